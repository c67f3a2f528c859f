import BleuCore
import BleuHCI
import Foundation
import Logging

/// `bleu-bench hci`: Bleu's host stack against Bumble's host, each on both sides of the same
/// pair of Bumble virtual controllers (a fresh pair for each), in one run: GATT notification
/// throughput and write-request round-trip time, as ratios (ours / Bumble's).
///
/// Both hosts reach the controllers over loopback TCP and exchange MTU 517; the controllers
/// report 27-byte ACL buffers and forward without air timing, so the figures measure the hosts.
struct HCIBenchmark: BenchmarkSuite {
    let name = "hci"
    let summary = "our HCI host against Bumble's on Bumble's virtual controllers: notification throughput, write round trip"

    static let service = BluetoothUUID("7E570000-0000-4B1E-8000-00000000BE7C")
    static let notify = BluetoothUUID("7E570001-0000-4B1E-8000-00000000BE7C")
    static let write = BluetoothUUID("7E570002-0000-4B1E-8000-00000000BE7C")

    func run(_ options: BenchmarkOptions, _ report: inout BenchmarkReport) async throws {
        let count = options.quick ? 200 : 2000, size = 200, writes = options.quick ? 50 : 200, rounds = 3
        progress("hci: Bleu's host on both sides (best of \(rounds) × \(count) notifications of \(size) B, \(writes) write requests)")
        let ours = try await measureOurs(count: count, size: size, writes: writes, rounds: rounds)
        progress("hci: Bumble's host on both sides")
        let theirs = try await measureBumble(count: count, size: size, writes: writes, rounds: rounds)
        report.record("ours.notify_kbps", ours.kbps, unit: "kb/s", "Bleu host: notification goodput")
        report.record("bumble.notify_kbps", theirs.kbps, unit: "kb/s", "baseline: Bumble host, same link")
        report.record("gatt_throughput_ratio", ours.kbps / theirs.kbps, unit: "x", "notification goodput, Bleu / Bumble")
        report.record("ours.write_rtt_ms", ours.rtt, unit: "ms", "Bleu host: write request round trip (median)")
        report.record("bumble.write_rtt_ms", theirs.rtt, unit: "ms", "baseline: Bumble host (median)")
        report.record("rtt_ratio", ours.rtt / theirs.rtt, unit: "x", "write round trip, Bleu / Bumble (lower is faster)")
    }

    private func link() async throws -> (PythonPeer, Int, Int) {
        let link = try PythonPeer(script: "bumble_link.py")
        let ready = try await link.nextObject()
        guard let a = ready["port_a"] as? Int, let b = ready["port_b"] as? Int else {
            link.stop()
            throw BenchmarkFailure("bumble_link.py did not start")
        }
        return (link, a, b)
    }

    private func measureBumble(count: Int, size: Int, writes: Int, rounds: Int) async throws -> (kbps: Double, rtt: Double) {
        let (link, a, b) = try await link()
        defer { link.stop() }
        let bench = try PythonPeer(script: "bumble_gatt_bench.py", arguments: [
            "--port-a", "\(a)", "--port-b", "\(b)", "--count", "\(count)", "--size", "\(size)", "--writes", "\(writes)",
            "--rounds", "\(rounds)"])
        defer { bench.stop() }
        let result = try await bench.nextObject()
        guard let kbps = result["notify_kbps"] as? Double, let rtt = result["write_rtt_ms_p50"] as? Double else {
            throw BenchmarkFailure("bumble_gatt_bench.py: \(result)")
        }
        return (kbps, rtt)
    }

    private func measureOurs(count: Int, size: Int, writes: Int, rounds: Int) async throws -> (kbps: Double, rtt: Double) {
        let (link, a, b) = try await link()
        defer { link.stop() }
        var logger = Logger(label: "bleu.bench.hci")
        logger.logLevel = .error
        func radio(_ port: Int) async throws -> HCIRadio {
            let radio = HCIRadio(host: HCIHost(transport: try await NIOHCITransport.connect(host: "127.0.0.1", port: port)),
                                 logger: logger)
            try await radio.start()
            return radio
        }
        let peripheralRadio = try await radio(b), centralRadio = try await radio(a)
        let peripheral = HCIPeripheralManager(radio: peripheralRadio), central = HCICentralManager(radio: centralRadio)
        let published = try await peripheral.add(ServiceDefinition(uuid: Self.service, characteristics: [
            CharacteristicDefinition(uuid: Self.notify, properties: .notify, permissions: .readable),
            CharacteristicDefinition(uuid: Self.write, properties: .write, permissions: .writeable),
        ]))
        let events = peripheral.events()
        let application = Task {  // accepts the writes
            for await event in events {
                if case .writeRequests(let requests) = event { await peripheral.respond(to: requests, with: .success(())) }
            }
        }
        defer { application.cancel() }
        try await peripheral.startAdvertising(AdvertisingData(localName: "bleu-bench"))
        guard let id = try await central.scan().first(where: { $0.localName == "bleu-bench" })?.peripheral else {
            throw BenchmarkFailure("the bench peripheral was not found")
        }
        await central.stopScan()
        try await central.connect(id, timeout: .seconds(10))
        let service = try await central.discoverServices([Self.service], on: id)[0]
        let characteristics = try await central.discoverCharacteristics(nil, for: service)
        let values = try await central.subscribe(to: characteristics.first { $0.uuid == Self.notify }!)
        let payload = Data((0..<size).map { UInt8(truncatingIfNeeded: $0) })

        let clock = ContinuousClock()
        var iterator = values.makeAsyncIterator()
        var kbps = 0.0
        for _ in 0..<rounds {
            let start = clock.now
            var sent = 0, received = 0
            // Send while the queue takes values, then read what arrived; the stream holds up to
            // `valueStreamLimit` values, more than the notification queue lets through at once.
            while received < count {
                while sent < count, await peripheral.updateValue(payload, for: published.characteristics[0]) { sent += 1 }
                guard try await iterator.next() != nil else { throw BenchmarkFailure("the notification stream ended") }
                received += 1
            }
            kbps = max(kbps, Double(count * size * 8) / ((clock.now - start) / .seconds(1)) / 1000)
        }

        let target = characteristics.first { $0.uuid == Self.write }!
        var rtts: [Double] = []
        for _ in 0..<writes {
            let begin = clock.now
            try await central.write(Data(repeating: 0x77, count: 20), to: target, type: .withResponse)
            rtts.append((clock.now - begin) / .milliseconds(1))
        }
        await centralRadio.stop()
        await peripheralRadio.stop()
        rtts.sort()
        return (kbps, rtts[rtts.count / 2])
    }
}
