import Bleu
import BleuCore
import BleuEmulator
import BleuEmulatorHub
import Foundation

/// `bleu-bench memory`: peak resident memory of one side of a link, in a process of its own.
///
/// Each scenario runs in a child process (`bleu-bench memory --scenario central|peripheral`),
/// since a peak is per process. The measured process holds only the measured side: the other
/// side, and the emulated medium itself, run in a second child (`bleu-bench memory-peer`) that
/// serves the medium as a hub, as a radio's controller would keep the link layer out of the
/// host. The measured process connects to that hub, takes its baseline (resident memory once
/// the hub connection is up, nothing of Bleu's made yet), starts the peak afresh, builds its
/// side, and reads the peak when every link carried a call.
///
/// - `central`: one `BLEActorSystem` central (its `FleetOrchestrator` keeps the links, pinned)
///   discovers 100 peripherals hosting one actor each, holds the 100 links and calls each actor
///   once: (peak − baseline − code) / 100 is `memory.central_per_link_kib`, where code is the
///   program's and libraries' pages first touched meanwhile (`RssFile`, once per process, not
///   per link; reported as `memory.central.code_kib`) — the figure issue 18 names
///   `fleet.memory_per_link_kib` (every key of a suite starts with its name; see
///   Docs/Performance.md).
/// - `peripheral`: one `BLEActorSystem` peripheral hosts 32 actors; 16 centrals (in the peer
///   process) each discover all 32 and call each once: `memory.peripheral_kib` (peak −
///   baseline − code), and that over
///   32 × 16 as `memory.peripheral_per_actor_per_central_kib`.
///
/// On Linux the peak is `VmHWM` of `/proc/self/status`, reset at the baseline; on Darwin
/// `ru_maxrss`, which counts from the process's start (baseline included).
struct MemoryBenchmark: BenchmarkSuite {
    let name = "memory"
    let summary = "peak resident memory of a central holding 100 actor links, and of a peripheral hosting 32 actors for 16 centrals, each in a process of its own"

    static let links = 100
    static let hostedActors = 32
    static let centrals = 16
    static let endpointVariable = "BLEU_BENCH_MEMORY_HUB"

    func run(_ options: BenchmarkOptions, _ report: inout BenchmarkReport) async throws {
        switch options.scenario {
        case nil:
            for scenario in ["central", "peripheral"] {
                progress("memory: \(scenario) scenario, in a process of its own")
                let figures = try Self.runChild(["memory", "--scenario", scenario, "--json"])
                for (key, value) in figures.sorted(by: { $0.key < $1.key }) {
                    let short = key.hasPrefix("memory.") ? String(key.dropFirst("memory.".count)) : key
                    report.record(short, value, unit: "KiB", Self.label(of: short))
                }
            }
        case "central"?:
            try await central(&report)
        case "peripheral"?:
            try await peripheral(&report)
        case let other?:
            throw BenchmarkError("unknown memory scenario '\(other)': central or peripheral")
        }
    }

    // MARK: Scenarios

    private func central(_ report: inout BenchmarkReport) async throws {
        let peer = try PeerProcess(scenario: "central")
        defer { peer.stop() }
        try await peer.waitFor("ready")
        let bus = try await EmulatorBus(connectingTo: peer.endpoint)
        let baseline = Self.startMeasuring()

        let system = BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus), configuration: Self.configuration)
        progress("memory: central discovering \(Self.links) peripherals")
        let actors = try await system.discover(BenchActor.self, timeout: .seconds(120), count: Self.links)
        guard actors.count == Self.links else { throw BenchmarkError("found \(actors.count) of \(Self.links) actors") }
        for actor in actors { _ = try await actor.reading() }
        let growth = Self.finishMeasuring(since: baseline)

        Self.record(growth, baseline: baseline, as: "central", &report)
        report.record("central_per_link_kib", growth.state / Double(Self.links), unit: "KiB", Self.label(of: "central_per_link_kib"))
        withExtendedLifetime((system, actors)) {}
    }

    private func peripheral(_ report: inout BenchmarkReport) async throws {
        let peer = try PeerProcess(scenario: "peripheral")
        defer { peer.stop() }
        try await peer.waitFor("ready")
        let bus = try await EmulatorBus(connectingTo: peer.endpoint)
        let baseline = Self.startMeasuring()

        let system = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus), configuration: Self.configuration)
        let actors = (0..<Self.hostedActors).map { _ in BenchActor(actorSystem: system) }
        try await system.startAdvertising(actors)
        progress("memory: \(Self.centrals) centrals calling \(Self.hostedActors) actors each")
        try peer.send("go")
        try await peer.waitFor("done")
        let growth = Self.finishMeasuring(since: baseline)

        Self.record(growth, baseline: baseline, as: "peripheral", &report)
        report.record("peripheral_kib", growth.state, unit: "KiB", Self.label(of: "peripheral_kib"))
        report.record("peripheral_per_actor_per_central_kib", growth.state / Double(Self.hostedActors * Self.centrals), unit: "KiB",
                      Self.label(of: "peripheral_per_actor_per_central_kib"))
        withExtendedLifetime((system, actors)) {}
    }

    /// The actor systems' configuration on both sides: quiet logs, and a quiet period long
    /// enough that a discovery waits for every peripheral the count asks for.
    static var configuration: BLEActorSystem.Configuration {
        var configuration = BLEActorSystem.Configuration(discoveryQuietPeriod: .seconds(5))
        configuration.logger = FleetBenchmark.quietLogger
        return configuration
    }

    // MARK: Measuring

    /// Resident memory at the baseline, in KiB: all of it, and the part mapped from files.
    struct Baseline {
        var resident: Double
        var file: Double
    }

    /// What one scenario grew by since its baseline, in KiB.
    struct Growth {
        /// The peak of resident memory over the baseline.
        var peak: Double
        /// Of it, pages of the program and its libraries touched for the first time (code run
        /// for the first time): paid once per process, not per link.
        var code: Double
        /// Resident memory over the baseline at the end.
        var held: Double
        /// The peak without the code: the state the scenario holds.
        var state: Double { peak - code }
    }

    /// Takes the baseline; the peak starts afresh from it.
    static func startMeasuring() -> Baseline {
        let baseline = Baseline(resident: ProcessMemory.residentKiB, file: ProcessMemory.fileKiB)
        if !ProcessMemory.resetPeak() {
            FileHandle.standardError.write(Data("memory: the peak cannot be reset here; it counts from the process's start\n".utf8))
        }
        return baseline
    }

    /// The growth since ``startMeasuring()``.
    static func finishMeasuring(since baseline: Baseline) -> Growth {
        let held = ProcessMemory.residentKiB
        let peak = max(ProcessMemory.peakKiB, held)
        return Growth(peak: peak - baseline.resident, code: max(0, ProcessMemory.fileKiB - baseline.file),
                      held: held - baseline.resident)
    }

    /// A scenario's growth, under `side.…` keys.
    static func record(_ growth: Growth, baseline: Baseline, as side: String, _ report: inout BenchmarkReport) {
        for (key, value) in [("baseline_kib", baseline.resident), ("peak_kib", growth.peak), ("code_kib", growth.code),
                             ("state_kib", growth.state), ("held_kib", growth.held)] {
            report.record("\(side).\(key)", value, unit: "KiB", label(of: "\(side).\(key)"))
        }
    }

    static func label(of key: String) -> String {
        let scenario = key.hasPrefix("central") ? "central, \(links) links" : "peripheral, \(hostedActors) actors × \(centrals) centrals"
        return switch key {
        case "central.baseline_kib", "peripheral.baseline_kib": "\(scenario): resident before (hub client up)"
        case "central.peak_kib", "peripheral.peak_kib": "\(scenario): peak − baseline"
        case "central.code_kib", "peripheral.code_kib": "\(scenario): of it, code paged in"
        case "central.state_kib", "peripheral.state_kib", "peripheral_kib": "\(scenario): peak − baseline − code"
        case "central.held_kib", "peripheral.held_kib": "\(scenario): resident − baseline at the end"
        case "central_per_link_kib": "central: per link (issue 18: fleet.memory_per_link_kib)"
        case "peripheral_per_actor_per_central_kib": "peripheral: per actor per central"
        default: key
        }
    }

    // MARK: Processes

    /// Runs this program with `arguments` and returns the figures of its JSON output.
    static func runChild(_ arguments: [String]) throws -> [String: Double] {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        child.arguments = arguments
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        guard child.terminationStatus == 0 else {
            throw BenchmarkError("bleu-bench \(arguments.joined(separator: " ")) failed with status \(child.terminationStatus)")
        }
        // A debug build's warning goes to standard error; standard output is the JSON object.
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw BenchmarkError("bleu-bench \(arguments.joined(separator: " ")) printed no JSON object")
        }
        return object.compactMapValues { ($0 as? NSNumber)?.doubleValue }
    }

    private func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// The other side of a memory scenario, in a child process (`bleu-bench memory-peer`): serves
/// the emulated medium as a hub on a Unix-domain socket and runs the peers on it. It says
/// `ready` on standard output once the measured process may connect, takes `go` on standard
/// input, says `done` when its part is over, and stops when its input closes.
final class PeerProcess {
    let endpoint: String
    private let child = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let path: String

    init(scenario: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("bleu-bench-memory-\(getpid()).sock").path
        endpoint = "unix:\(path)"
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        child.arguments = ["memory-peer", "--scenario", scenario]
        // A heap profiler preloaded into the measured process (heaptrack) stays out of the peer.
        var environment = ProcessInfo.processInfo.environment.filter { $0.key != "LD_PRELOAD" && $0.key != "DUMP_HEAPTRACK_OUTPUT" }
        environment[MemoryBenchmark.endpointVariable] = endpoint
        child.environment = environment
        child.standardInput = input
        child.standardOutput = output
        try child.run()
    }

    /// Waits for the peer to say `word` on a line of its own (read on a thread of its own, so
    /// the cooperative pool goes on serving the measured side meanwhile).
    func waitFor(_ word: String) async throws {
        let handle = output.fileHandleForReading
        let said: Bool = await withCheckedContinuation { continuation in
            Thread {
                var line = Data()
                while true {
                    guard let byte = handle.readData(ofLength: 1).first else { return continuation.resume(returning: false) }
                    if byte == UInt8(ascii: "\n") {
                        if String(decoding: line, as: UTF8.self) == word { return continuation.resume(returning: true) }
                        line.removeAll()
                    } else {
                        line.append(byte)
                    }
                }
            }.start()
        }
        guard said else { throw BenchmarkError("the memory peer ended before saying '\(word)'") }
    }

    func send(_ word: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((word + "\n").utf8))
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        child.waitUntilExit()
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The peer process of the memory suite (the memory suite starts it): serves the medium as a
/// hub and runs the side that is not measured — 100 peripherals hosting one actor each for
/// `central`, 16 central systems for `peripheral`.
struct MemoryPeer: BenchmarkSuite {
    let name = "memory-peer"
    let summary = "the memory suite's peer process (the memory suite starts it)"

    func run(_ options: BenchmarkOptions, _ report: inout BenchmarkReport) async throws {
        guard let endpoint = ProcessInfo.processInfo.environment[MemoryBenchmark.endpointVariable],
              let parsed = HubEndpoint(endpoint) else {
            throw BenchmarkError("memory-peer runs under the memory suite, which sets \(MemoryBenchmark.endpointVariable)")
        }
        var emulator = EmulatorConfiguration.instant
        emulator.maximumConnectionsPerCentral = MemoryBenchmark.links + 4
        emulator.seed = 18
        let bus = EmulatorBus(configuration: emulator)
        let hub = EmulatorHubServer(bus: bus)
        _ = try await hub.start(at: [parsed])
        var lines = Self.lines().makeAsyncIterator()
        var systems: [BLEActorSystem] = []
        var hosted: [BenchActor] = []
        switch options.scenario {
        case "central"?:
            for _ in 0..<MemoryBenchmark.links {
                let host = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus), configuration: MemoryBenchmark.configuration)
                let actor = BenchActor(actorSystem: host)
                try await host.startAdvertising(actor)
                systems.append(host)
                hosted.append(actor)
            }
            Self.say("ready")
        case "peripheral"?:
            for _ in 0..<MemoryBenchmark.centrals {
                systems.append(BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus), configuration: MemoryBenchmark.configuration))
            }
            Self.say("ready")
            var go = false
            while let line = await lines.next() {
                if line == "go" { go = true; break }
            }
            guard go else { return }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for central in systems {
                    group.addTask {
                        let actors = try await central.discover(BenchActor.self, timeout: .seconds(120), count: MemoryBenchmark.hostedActors)
                        guard actors.count == MemoryBenchmark.hostedActors else {
                            throw BenchmarkError("a central found \(actors.count) of \(MemoryBenchmark.hostedActors) actors")
                        }
                        for actor in actors { _ = try await actor.reading() }
                    }
                }
                try await group.waitForAll()
            }
            Self.say("done")
        default:
            throw BenchmarkError("memory-peer needs --scenario central or peripheral")
        }
        // Until the measured process closes our input.
        while await lines.next() != nil {}
        withExtendedLifetime((systems, hosted)) {}
        await hub.stop()
    }

    private static func say(_ word: String) {
        FileHandle.standardOutput.write(Data((word + "\n").utf8))
    }

    /// The lines of standard input, read on a thread of its own; the stream ends with the input.
    private static func lines() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        Thread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }.start()
        return stream
    }
}
