import Bleu
import BleuCore
import BleuEmulator
import BleuWire
import Distributed
import Foundation

/// The actor the `rpc` suite calls.
distributed actor BenchActor: PeripheralActor {
    typealias ActorSystem = BLEActorSystem
    distributed func reading() -> Double { 22.5 }
    distributed func upload(_ data: Data) -> Int { data.count }
}

/// `bleu-bench rpc`: distributed calls through `BLEActorSystem` on the emulator.
///
/// - `.instant`: sequential round trips per second of a no-argument call returning `Double`,
///   against a raw write-without-response + notification echo of the same 8 bytes in the same
///   run; the same call from 8 concurrent callers; ATT payload bytes per call.
/// - Realistic (LE 2M, data length 251, 7.5 ms interval, ATT MTU 247): the median call latency
///   in connection intervals, and the goodput of a call uploading 64 KiB as a ratio of the
///   link reference (DESIGN.md), with the compact framing and with `bleu24`.
struct RPCBenchmark: BenchmarkSuite {
    let name = "rpc"
    let summary = "distributed calls: round trips against a raw echo, bytes on air, latency and bulk goodput on the realistic link"

    func run(_ options: BenchmarkOptions, _ report: inout BenchmarkReport) async throws {
        let seconds = options.quick ? 0.3 : 1.0
        progress("rpc: .instant calls against the raw echo, interleaved")
        let instant = try await Self.pair(.instant)
        let raw = try await LinkScenario.Echo(bytes: 8)
        // Rounds of each alternate, so a machine busy for a while slows both alike; the best
        // round of each counts.
        var calls = 0.0
        var echo = 0.0
        for _ in 0..<5 {
            calls = max(calls, try await bestRate(rounds: 1, seconds: seconds / 3) {
                for _ in 0..<100 { _ = try await instant.actor.reading() }
                return 100
            })
            echo = max(echo, try await bestRate(rounds: 1, seconds: seconds / 3) {
                try await raw.run(100)
                return 100
            })
        }
        report.record("instant.calls_per_s", calls, unit: "1/s", ".instant sequential calls")
        report.record("instant.raw_echo_per_s", echo, unit: "1/s", "baseline: raw write + notify echo")
        report.record("instant.overhead_ratio", echo / calls, unit: "x", "raw echo rate / call rate")

        progress("rpc: .instant, 8 concurrent callers")
        let concurrent = try await bestRate(seconds: seconds) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask { for _ in 0..<50 { _ = try await instant.actor.reading() } }
                }
                try await group.waitForAll()
            }
            return 400
        }
        report.record("instant.concurrent8_calls_per_s", concurrent, unit: "1/s", ".instant calls, 8 concurrent callers")

        instant.bus.clearTrace()
        _ = try await instant.actor.reading()
        let att = instant.bus.trace.filter { $0.kind == .att }
        let request = att.filter { $0.opcode == 0x52 }.compactMap(\.length).reduce(0) { $0 + $1 - 3 }
        let response = att.filter { $0.opcode == 0x1B }.compactMap(\.length).reduce(0) { $0 + $1 - 3 }
        report.record("bytes_on_air.request", Double(request), unit: "B", "ATT payload of a call's request")
        report.record("bytes_on_air.response", Double(response), unit: "B", "ATT payload of its response")

        var realistic = EmulatorConfiguration.default
        realistic.phy = .le2M
        realistic.dataLength = 251
        realistic.connectionInterval = .microseconds(7500)
        realistic.centralMTU = 247
        progress("rpc: realistic latency")
        let link = try await Self.pair(realistic)
        let clock = ContinuousClock()
        var latencies: [Double] = []
        for _ in 0..<(options.quick ? 20 : 60) {
            let start = clock.now
            _ = try await link.actor.reading()
            latencies.append((clock.now - start).seconds)
        }
        latencies.sort()
        let interval = realistic.connectionInterval.seconds
        report.record("realistic.latency_ci", latencies[latencies.count / 2] / interval, unit: "CI", "median call latency in connection intervals")

        let reference = LinkGoodput.referenceKilobitsPerSecond(phy: .le2M, dataLength: 251)
        for format in [WireFormat.compact, .bleu24] {
            progress("rpc: realistic 64 KiB upload, \(format)")
            let pair = format == .compact ? link : try await Self.pair(realistic, format: format)
            let payload = Data(count: 64 * 1024)
            var best = 0.0
            for _ in 0..<(options.quick ? 1 : 3) {
                let start = clock.now
                _ = try await BLEActorSystem.withCallTimeout(.seconds(30)) { try await pair.actor.upload(payload) }
                best = max(best, Double(payload.count * 8) / (clock.now - start).seconds / 1000)
            }
            let key = format == .compact ? "realistic.bulk_ratio" : "realistic.bulk_ratio_bleu24"
            report.record(key, best / reference, unit: "x", "64 KiB upload call (\(format)) / link reference")
        }
    }

    struct Pair {
        let bus: EmulatorBus
        let systems: [BLEActorSystem]
        let actor: BenchActor
    }

    static func pair(_ emulator: EmulatorConfiguration, format: WireFormat = .compact) async throws -> Pair {
        let bus = EmulatorBus(configuration: emulator)
        var configuration = BLEActorSystem.Configuration(discoveryQuietPeriod: .milliseconds(50), wireFormat: format)
        configuration.logger.logLevel = .error
        let peripheral = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus), configuration: configuration)
        let central = BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus), configuration: configuration)
        let hosted = BenchActor(actorSystem: peripheral)
        try await peripheral.startAdvertising(hosted)
        let actor = try await central.connect(to: hosted.id, as: BenchActor.self)
        _ = try await actor.reading()
        return Pair(bus: bus, systems: [peripheral, central], actor: actor)
    }

    private func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// `bestRate` for async bodies.
func bestRate(rounds: Int = 3, seconds: Double, _ body: () async throws -> Int) async rethrows -> Double {
    let clock = ContinuousClock()
    var best = 0.0
    for _ in 0..<rounds {
        var units = 0
        let start = clock.now
        var elapsed = 0.0
        repeat {
            units += try await body()
            elapsed = (clock.now - start).seconds
        } while elapsed < seconds
        best = max(best, Double(units) / elapsed)
    }
    return best
}

/// A fixed number of sequential no-argument calls on `.instant`, central and peripheral in this
/// process: the workload for counting instructions per call with callgrind. Run it twice with
/// different `--calls`; the difference of the totals over the difference of the counts is one
/// call's cost, set-up excluded (Docs/Performance.md).
struct CallsBenchmark: BenchmarkSuite {
    let name = "calls"
    let summary = "a fixed number (--calls) of no-argument actor calls on .instant, for callgrind"

    func run(_ options: BenchmarkOptions, _ report: inout BenchmarkReport) async throws {
        let pair = try await RPCBenchmark.pair(.instant)
        for _ in 0..<options.calls { _ = try await pair.actor.reading() }
        report.record("calls", Double(options.calls), unit: "calls", "no-argument calls made after set-up")
    }
}

/// The baseline of `calls` for callgrind: a fixed number (`--calls`) of write-without-response +
/// notification echoes of 8 bytes on `.instant`, the two ATT operations a call makes.
struct EchoesBenchmark: BenchmarkSuite {
    let name = "echoes"
    let summary = "a fixed number (--calls) of raw write + notify echoes on .instant, the baseline of calls"

    func run(_ options: BenchmarkOptions, _ report: inout BenchmarkReport) async throws {
        let echo = try await LinkScenario.Echo(bytes: 8)
        try await echo.run(1)
        try await echo.run(options.calls)
        report.record("echoes", Double(options.calls), unit: "echoes", "raw echoes made after set-up")
    }
}
