import Bleu
import BleuCore
import BleuEmulator
import Foundation

/// `bleu-bench actors`: `BLEActorSystem` keeping its links, on the realistic emulated link
/// (`.default`: LE 2M, 251-byte LL payload, 30 ms connection interval, 2 s supervision timeout,
/// 30 ms connect latency) in real time — the bus runs on `ContinuousClock`, so the time measured
/// is the emulated radio's time.
///
/// - Recovery: a central system holds one remote ``BenchActor``; its link is lost
///   (`EmulatorBus.loseLink`, at a random phase of the connection interval) and a caller calls
///   back to back until a call succeeds again. Link loss → first successful call, in connection
///   intervals (`actors.recovery_ci.p50`, `.p99`) and in milliseconds, split into the loss going
///   unnoticed (the supervision timeout) and the system's own part, detection → first successful
///   call. Samples come from several independent lanes (a bus, a peripheral system and a central
///   system each) running at once, staggered, so the suite stays under a minute.
/// - Scaling: calls per second against one actor on one peripheral, and across 16 peripherals
///   (16 peripheral systems hosting one actor each, one central system calling all 16 at once),
///   one caller per actor calling back to back in both; their ratio
///   (`actors.fleet16_vs_single_ratio`, 16 when the links do not slow each other down). Then
///   the same with 8 callers per actor (`actors.fleet16_vs_single_ratio_x8`), where the
///   central's one radio, shared by 16 links, becomes the limit.
struct ActorsBenchmark: BenchmarkSuite {
    let name = "actors"
    let summary = "actor calls across link losses (loss → first successful call, in connection intervals) and across 16 peripherals against one"

    /// The emulated link of the suite: the realistic preset, with room for 16 links on one central.
    static var link: EmulatorConfiguration {
        var configuration = EmulatorConfiguration.default
        configuration.maximumConnectionsPerCentral = 20
        return configuration
    }

    func run(_ options: BenchmarkOptions, _ report: inout BenchmarkReport) async throws {
        let lanes = options.quick ? 4 : 12
        let cycles = options.quick ? 5 : 10
        let radio = EmulatorBus(configuration: Self.link).configuration
        let interval = radio.connectionInterval.seconds

        progress("actors: \(lanes * cycles) link losses (\(lanes) lanes × \(cycles))")
        let samples = try await Self.recoveries(lanes: lanes, cycles: cycles)
        let total = samples.map(\.toCall).sorted()
        let afterDetection = samples.map { $0.toCall - $0.detected }.sorted()
        let detection = samples.map(\.detected).sorted()
        let reconnect = samples.map { $0.ready - $0.detected }.sorted()
        let readyToCall = samples.map { $0.toCall - $0.ready }.sorted()
        let p = FleetBenchmark.percentile
        report.record("link.connection_interval_ms", interval * 1000, unit: "ms", "connection interval (.default)")
        report.record("link.supervision_timeout_ms", radio.supervisionTimeout.seconds * 1000, unit: "ms", "supervision timeout (.default)")
        report.record("recovery_ci.p50", p(total, 0.5) / interval, unit: "CI", "link loss → first successful call, median")
        report.record("recovery_ci.p99", p(total, 0.99) / interval, unit: "CI", "link loss → first successful call, 99th percentile")
        report.record("recovery_ms.p50", p(total, 0.5) * 1000, unit: "ms", "link loss → first successful call, median")
        report.record("recovery_ms.p99", p(total, 0.99) * 1000, unit: "ms", "link loss → first successful call, 99th percentile")
        report.record("recovery.samples", Double(samples.count), unit: "", "link losses measured")
        report.record("recovery.detect_ms.p50", p(detection, 0.5) * 1000, unit: "ms", "loss → connectivity leaves .ready, median")
        report.record("recovery.after_detect_ci.p50", p(afterDetection, 0.5) / interval, unit: "CI", "loss noticed → first successful call, median")
        report.record("recovery.after_detect_ci.p99", p(afterDetection, 0.99) / interval, unit: "CI", "loss noticed → first successful call, 99th pct")
        report.record("recovery.after_detect_ms.p50", p(afterDetection, 0.5) * 1000, unit: "ms", "loss noticed → first successful call, median")
        report.record("recovery.after_detect_ms.p99", p(afterDetection, 0.99) * 1000, unit: "ms", "loss noticed → first successful call, 99th pct")
        report.record("recovery.reconnect_ms.p50", p(reconnect, 0.5) * 1000, unit: "ms", "loss noticed → .ready again, median")
        report.record("recovery.reconnect_ms.p99", p(reconnect, 0.99) * 1000, unit: "ms", "loss noticed → .ready again, 99th pct")
        report.record("recovery.ready_to_call_ms.p50", p(readyToCall, 0.5) * 1000, unit: "ms", ".ready again → first successful call, median")
        report.record("recovery.failed_calls_per_loss", Double(samples.map(\.failedCalls).reduce(0, +)) / Double(samples.count),
                      unit: "", "calls that failed per loss, mean")

        let seconds = options.quick ? 0.5 : 1.5
        let rounds = options.quick ? 1 : 2
        progress("actors: calls against one peripheral")
        let single = try await Self.callRates(peripherals: 1, callers: [1, 8], seconds: seconds, rounds: rounds)
        progress("actors: calls across 16 peripherals")
        let fleet = try await Self.callRates(peripherals: 16, callers: [1, 8], seconds: seconds, rounds: rounds)
        report.record("single.calls_per_second", single[1]!, unit: "1/s", "one peripheral, one caller back to back")
        report.record("fleet16.calls_per_second", fleet[1]!, unit: "1/s", "16 peripherals, one caller each, all at once")
        report.record("fleet16_vs_single_ratio", fleet[1]! / single[1]!, unit: "x", "16 peripherals / one (16 = scales)")
        report.record("single_x8.calls_per_second", single[8]!, unit: "1/s", "one peripheral, 8 callers")
        report.record("fleet16_x8.calls_per_second", fleet[8]!, unit: "1/s", "16 peripherals, 8 callers each")
        report.record("fleet16_vs_single_ratio_x8", fleet[8]! / single[8]!, unit: "x", "16 peripherals / one, 8 callers per actor")
    }

    // MARK: Recovery

    /// One link loss, in seconds from the loss.
    struct Recovery: Sendable {
        /// Until the central's connectivity left `.ready`.
        var detected: Double
        /// Until it was `.ready` again.
        var ready: Double
        /// Until the first call that succeeded.
        var toCall: Double
        /// Calls that failed in between.
        var failedCalls: Int
    }

    /// `lanes` independent lanes, started a fraction of a cycle apart, each losing its link `cycles` times.
    static func recoveries(lanes: Int, cycles: Int) async throws -> [Recovery] {
        // One cycle takes about the supervision timeout plus the reconnection.
        let stagger = (link.supervisionTimeout + .milliseconds(300)) / lanes
        return try await withThrowingTaskGroup(of: [Recovery].self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    try await Task.sleep(for: stagger * lane)
                    return try await recoveryLane(seed: UInt64(lane + 1), cycles: cycles)
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }

    private static func recoveryLane(seed: UInt64, cycles: Int) async throws -> [Recovery] {
        var emulator = link
        emulator.seed = seed
        let world = try await World(emulator: emulator, peripherals: 1)
        let actor = world.actors[0]
        guard let peripheral = await world.centralManager.retrieveConnectedPeripherals(withServices: []).first?.id else {
            throw BenchmarkError("the central has no link after connecting")
        }
        let clock = ContinuousClock()
        // The central's connectivity of the actor, with when each state was seen.
        let states = Locked([(at: ContinuousClock.Instant, state: ActorConnectivity)]())
        let connectivity = world.central.connectivity(of: actor.id)
        let watcher = Task {
            for await state in connectivity { states.withLock { $0.append((clock.now, state)) } }
        }
        defer { watcher.cancel() }

        var random = SeededRandomNumberGenerator(seed: seed)
        let interval = world.bus.configuration.connectionInterval
        var samples: [Recovery] = []
        for _ in 0..<cycles {
            _ = try await actor.reading()
            let settled = clock.now.advanced(by: .seconds(5))
            while states.withLock({ $0.last?.state }) != .ready {
                guard clock.now < settled else {
                    throw BenchmarkError("the link is not ready before a loss: \(states.withLock { $0.map(\.state) })")
                }
                try await clock.sleep(for: .milliseconds(1))
            }
            // A loss at a random phase of the connection interval.
            try await clock.sleep(for: interval * Double.random(in: 0..<1, using: &random))
            let lost = clock.now
            world.bus.loseLink(between: world.centralManager, and: peripheral)
            var failed = 0
            let deadline = lost.advanced(by: .seconds(15))
            while true {
                let start = clock.now
                do {
                    _ = try await actor.reading()
                    break
                } catch {
                    failed += 1
                    guard clock.now < deadline else { throw BenchmarkError("no call succeeded 15 s after a link loss: \(error)") }
                    // Never spin on a call that fails at once.
                    if clock.now - start < .milliseconds(1) { try await clock.sleep(for: .milliseconds(1)) }
                }
            }
            let called = clock.now
            // The watcher may be a moment behind the call.
            let seen = clock.now.advanced(by: .seconds(1))
            var detected: ContinuousClock.Instant?
            var ready: ContinuousClock.Instant?
            while ready == nil && clock.now < seen {
                let after = states.withLock { $0.filter { $0.at >= lost } }
                detected = after.first { $0.state != .ready }?.at
                if let detected { ready = after.first { $0.at >= detected && $0.state == .ready }?.at }
                if ready == nil { try await clock.sleep(for: .milliseconds(1)) }
            }
            guard let detected, let ready else { throw BenchmarkError("the connectivity did not go down and up around a loss") }
            samples.append(Recovery(detected: (detected - lost).seconds, ready: (min(ready, called) - lost).seconds,
                                    toCall: (called - lost).seconds, failedCalls: failed))
            // Only the state now matters from here on.
            states.withLock { $0 = Array($0.suffix(1)) }
        }
        await world.close()
        return samples
    }

    // MARK: Scaling

    /// Calls per second across `peripherals` peripheral systems hosting one actor each, with
    /// each number of `callers` per actor in turn (each caller calls back to back): the best of
    /// `rounds` rounds of `seconds` for each.
    static func callRates(peripherals: Int, callers: [Int], seconds: Double, rounds: Int) async throws -> [Int: Double] {
        var emulator = link
        emulator.seed = 100 + UInt64(peripherals)
        let world = try await World(emulator: emulator, peripherals: peripherals)
        for actor in world.actors { _ = try await actor.reading() }
        let clock = ContinuousClock()
        var rates: [Int: Double] = [:]
        for perActor in callers {
            var best = 0.0
            for _ in 0..<rounds {
                let start = clock.now
                let deadline = start.advanced(by: .seconds(seconds))
                let calls = try await withThrowingTaskGroup(of: Int.self) { group in
                    for actor in world.actors {
                        for _ in 0..<perActor {
                            group.addTask {
                                var calls = 0
                                while clock.now < deadline {
                                    _ = try await actor.reading()
                                    calls += 1
                                }
                                return calls
                            }
                        }
                    }
                    return try await group.reduce(0, +)
                }
                best = max(best, Double(calls) / (clock.now - start).seconds)
            }
            rates[perActor] = best
        }
        await world.close()
        return rates
    }

    // MARK: World

    /// A bus with `peripherals` peripheral systems hosting a ``BenchActor`` each, and one central
    /// system connected to all of them.
    struct World {
        let bus: EmulatorBus
        let centralManager: EmulatedCentralManager
        let central: BLEActorSystem
        let hosts: [BLEActorSystem]
        let hosted: [BenchActor]
        let actors: [BenchActor]

        init(emulator: EmulatorConfiguration, peripherals: Int) async throws {
            bus = EmulatorBus(configuration: emulator)
            var configuration = BLEActorSystem.Configuration(discoveryQuietPeriod: .milliseconds(50))
            configuration.logger = FleetBenchmark.quietLogger
            var hosts: [BLEActorSystem] = []
            var hosted: [BenchActor] = []
            for _ in 0..<peripherals {
                let host = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus), configuration: configuration)
                let actor = BenchActor(actorSystem: host)
                try await host.startAdvertising(actor)
                hosts.append(host)
                hosted.append(actor)
            }
            centralManager = EmulatedCentralManager(bus: bus)
            let central = BLEActorSystem(centralManager: centralManager, configuration: configuration)
            // One scan connects to them all (a few at once, as the link policy allows).
            let actors = try await central.discover(BenchActor.self, timeout: .seconds(30), count: peripherals)
            guard actors.count == peripherals else {
                throw BenchmarkError("found \(actors.count) of \(peripherals) actors")
            }
            self.central = central
            self.hosts = hosts
            self.hosted = hosted
            self.actors = actors
        }

        /// Stops keeping the links and advertising, so nothing of this world runs on.
        func close() async {
            for actor in actors { await central.disconnect(from: actor) }
            for host in hosts { await host.stopAdvertising() }
        }
    }

    private func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// A benchmark that could not measure what it set out to.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
