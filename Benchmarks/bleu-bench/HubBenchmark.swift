import BleuCore
import BleuEmulator
import BleuEmulatorHub
import Foundation

/// `bleu-bench hub`: the emulator across processes. The same GATT workload — a central reading a
/// characteristic, then following a notified one — runs with both managers on one in-process
/// bus, and with the peripheral in a child process (`bleu-bench hub-peer`) and the central in
/// this one, both clients of a hub this process serves on a Unix-domain socket. Reads run on
/// the instant preset (what the protocol costs per call); notifications on the default realistic
/// preset, in real time on both sides (whether the hub keeps the link model's goodput).
struct HubBenchmark: BenchmarkSuite {
    let name = "hub"
    let summary = "one GATT workload in one process and across processes on a hub: reads per second (instant) and notification goodput (realistic), as ratios"

    static let service: BluetoothUUID = "7A11B000-0B5E-4C3A-8F2D-1E2F3A4B5C6D"
    static let readable: BluetoothUUID = "7A11B001-0B5E-4C3A-8F2D-1E2F3A4B5C6D"
    static let notified: BluetoothUUID = "7A11B002-0B5E-4C3A-8F2D-1E2F3A4B5C6D"
    static let peerName = "hub-bench"
    static let endpointVariable = "BLEU_BENCH_HUB"

    func run(_ options: BenchmarkOptions, _ report: inout BenchmarkReport) async throws {
        let reads = options.quick ? 300 : 3000
        let seconds = options.quick ? 2.0 : 6.0

        progress("hub: reads in one process, then across processes (instant)")
        let localReads = try await Self.local(.instant) { try await Self.readRate(on: $0, count: reads) }
        let hubReads = try await Self.acrossProcesses(.instant) { try await Self.readRate(on: $0, count: reads) }
        report.record("reads.in_process_per_s", localReads, unit: "reads/s", "one process: reads per second")
        report.record("reads.hub_per_s", hubReads, unit: "reads/s", "across processes: reads per second")
        report.record("calls_ratio", hubReads / localReads, unit: "ratio", "across processes / one process, reads")

        progress("hub: notification goodput in one process, then across processes (default preset, \(seconds) s each)")
        let localGoodput = try await Self.local(.default) { try await Self.goodput(on: $0, seconds: seconds) }
        let hubGoodput = try await Self.acrossProcesses(.default) { try await Self.goodput(on: $0, seconds: seconds) }
        report.record("goodput.in_process_kbps", localGoodput, unit: "kb/s", "one process: notification goodput")
        report.record("goodput.hub_kbps", hubGoodput, unit: "kb/s", "across processes: notification goodput")
        report.record("goodput_ratio", hubGoodput / localGoodput, unit: "ratio", "across processes / one process, goodput")
    }

    /// Runs `measure` against the peer on one in-process bus.
    static func local(_ configuration: EmulatorConfiguration,
                      _ measure: (EmulatedCentralManager) async throws -> Double) async throws -> Double {
        let bus = EmulatorBus(configuration: configuration)
        let peer = Task { try await HubPeer.serve(on: bus) }
        defer { peer.cancel() }
        return try await measure(EmulatedCentralManager(bus: bus))
    }

    /// Runs `measure` against the peer in a child process, both on a hub served from here.
    static func acrossProcesses(_ configuration: EmulatorConfiguration,
                                _ measure: (EmulatedCentralManager) async throws -> Double) async throws -> Double {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bleu-bench-hub-\(getpid()).sock").path
        let hub = EmulatorHubServer(bus: EmulatorBus(configuration: configuration))
        try await hub.start(at: [.unix(path: path)])
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        child.arguments = ["hub-peer"]
        child.environment = ProcessInfo.processInfo.environment.merging([endpointVariable: "unix:\(path)"]) { _, new in new }
        let input = Pipe()
        child.standardInput = input
        child.standardOutput = FileHandle.nullDevice  // its own (empty) table would cut into ours
        try child.run()
        defer {
            try? input.fileHandleForWriting.close()
            child.waitUntilExit()
            try? FileManager.default.removeItem(atPath: path)
        }
        let rate = try await measure(EmulatedCentralManager(bus: try await EmulatorBus(connectingTo: "unix:\(path)")))
        await hub.stop()
        return rate
    }

    /// Finds the peer, connects, and returns its two characteristics.
    static func connect(_ central: EmulatedCentralManager) async throws -> (peer: UUID, readable: RemoteCharacteristic, notified: RemoteCharacteristic) {
        var found: UUID?
        for try await advertisement in try await central.scan(ScanOptions(services: [service])) {
            found = advertisement.peripheral
            break
        }
        guard let peer = found else { throw BenchmarkFailure("the hub peer was not heard") }
        await central.stopScan()
        try await central.connect(peer, timeout: .seconds(10))
        let services = try await central.discoverServices([service], on: peer)
        let characteristics = try await central.discoverCharacteristics(nil, for: services[0])
        guard let readable = characteristics.first(where: { $0.uuid == Self.readable }),
              let notified = characteristics.first(where: { $0.uuid == Self.notified }) else {
            throw BenchmarkFailure("the hub peer's service lacks its characteristics")
        }
        return (peer, readable, notified)
    }

    /// Reads per second: the best of three rounds of `count` reads.
    static func readRate(on central: EmulatedCentralManager, count: Int) async throws -> Double {
        let (_, readable, _) = try await connect(central)
        let clock = ContinuousClock()
        var best = 0.0
        for _ in 0..<3 {
            let start = clock.now
            for _ in 0..<count { blackHole(try await central.read(readable)) }
            best = max(best, Double(count) / (clock.now - start).seconds)
        }
        return best
    }

    /// Notification goodput in kb/s over `seconds`, counted from the first value.
    static func goodput(on central: EmulatedCentralManager, seconds: Double) async throws -> Double {
        let (_, _, notified) = try await connect(central)
        let values = try await central.subscribe(to: notified)
        let clock = ContinuousClock()
        var start: ContinuousClock.Instant?
        var bytes = 0
        for try await value in values {
            guard let began = start else {
                start = clock.now
                continue
            }
            bytes += value.count
            if (clock.now - began).seconds >= seconds { break }
        }
        guard let start else { throw BenchmarkFailure("no notification arrived") }
        return Double(bytes * 8) / 1000 / (clock.now - start).seconds
    }
}

/// The peripheral of the hub suite: answers reads, and notifies as fast as its queue takes
/// while a central is subscribed. In this process on a local bus, or as `bleu-bench hub-peer`
/// in a child process (the endpoint in BLEU_BENCH_HUB; it stops when its input closes).
struct HubPeer: BenchmarkSuite {
    let name = "hub-peer"
    let summary = "the hub suite's peripheral process (the hub suite starts it)"

    func run(_ options: BenchmarkOptions, _ report: inout BenchmarkReport) async throws {
        guard let endpoint = ProcessInfo.processInfo.environment[HubBenchmark.endpointVariable] else {
            throw BenchmarkFailure("hub-peer runs under the hub suite, which sets \(HubBenchmark.endpointVariable)")
        }
        let bus = try await EmulatorBus(connectingTo: endpoint)
        let serving = Task { try await Self.serve(on: bus) }
        let input = Thread {
            while FileHandle.standardInput.availableData.count > 0 {}
            serving.cancel()
        }
        input.start()
        _ = await serving.result
    }

    static func serve(on bus: EmulatorBus) async throws {
        let peripheral = EmulatedPeripheralManager(bus: bus)
        var events = peripheral.events().makeAsyncIterator()
        let published = try await peripheral.add(ServiceDefinition(uuid: HubBenchmark.service, characteristics: [
            CharacteristicDefinition(uuid: HubBenchmark.readable, properties: [.read], permissions: .readable),
            CharacteristicDefinition(uuid: HubBenchmark.notified, properties: [.notify], permissions: .readable),
        ]))
        guard let notified = published.characteristic(HubBenchmark.notified) else { return }
        try await peripheral.startAdvertising(AdvertisingData(localName: HubBenchmark.peerName, serviceUUIDs: [HubBenchmark.service]),
                                              scanResponse: nil)
        let answer = Data(repeating: 0xA5, count: 20)
        var pump: Task<Void, Never>?
        defer { pump?.cancel() }
        while let event = await events.next() {
            switch event {
            case .readRequest(let request):
                await peripheral.respond(to: request, with: .success(answer))
            case .subscribed(let central, _):
                let length = await peripheral.maximumUpdateValueLength(for: central) ?? 20
                pump = Task { await Self.notify(peripheral, notified, length: length) }
            case .unsubscribed, .centralDisconnected:
                pump?.cancel()
            default:
                break
            }
        }
    }

    /// Notifies full-length values until cancelled, waiting for the queue when it is full.
    static func notify(_ peripheral: EmulatedPeripheralManager, _ characteristic: PublishedCharacteristic, length: Int) async {
        let value = Data(repeating: 0x5A, count: length)
        var ready = peripheral.events().makeAsyncIterator()
        while !Task.isCancelled {
            if await peripheral.updateValue(value, for: characteristic, onSubscribedCentrals: nil) { continue }
            while let event = await ready.next() {
                if case .readyToUpdateSubscribers = event { break }
            }
        }
    }
}
