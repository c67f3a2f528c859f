import BleuCore
import BleuEmulatorHub
import Foundation
import Testing
@testable import BleuEmulator
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A hostile client on a hub's Unix-domain socket — garbage, broken frames, valid requests at
/// random and mutated, half frames left hanging, a client that never reads, bursts of
/// connections — while two well-behaved clients exchange reads and notifications beside it.
/// They must see every value, in order, and no error; the hub logs one line per client it drops
/// and none about them; what the hostile clients made is gone once they are.
///
/// A few seconds in the test run; `scripts/fuzz.sh hub 600` runs it for ten minutes
/// (`BLEU_HUB_FUZZ_SECONDS`). The seed is printed; `BLEU_HUB_FUZZ_SEED` replays the hostile
/// side's choices (the interleaving with the good clients is the machine's);
/// `BLEU_HUB_FUZZ_MODE` (one of ``HostileClient/modes``) runs one kind of attack only.
@Suite("A hostile client on a hub", .timeLimit(.minutes(20)))
struct HostileClientTests {
    static let service = BluetoothUUID(string: "0B1E00F1-0000-1000-8000-00805F9B34FB")!
    static let value = BluetoothUUID(string: "0B1E00F2-0000-1000-8000-00805F9B34FB")!

    @Test("a hostile client does not disturb two well-behaved ones")
    func hostile() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seconds = environment["BLEU_HUB_FUZZ_SECONDS"].flatMap(Double.init) ?? 4
        let seed = environment["BLEU_HUB_FUZZ_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        print("hostile hub client: seed \(seed) (BLEU_HUB_FUZZ_SEED replays), \(seconds) s (BLEU_HUB_FUZZ_SECONDS)")

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bleu-hostile-\(UUID().uuidString.prefix(8)).sock").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let log = Locked<[String]>([])
        let bus = EmulatorBus(configuration: .instant)
        let hub = EmulatorHubServer(bus: bus, log: { line in log.withLock { $0.append(line) } })
        try await hub.start(at: [.unix(path: path)])

        // The well-behaved pair: clients 1 and 2.
        let peripheral = EmulatedPeripheralManager(bus: try await EmulatorBus(connectingTo: "unix:\(path)"))
        let central = EmulatedCentralManager(bus: try await EmulatorBus(connectingTo: "unix:\(path)"))
        let published = try await peripheral.add(ServiceDefinition(uuid: Self.service, characteristics: [
            CharacteristicDefinition(uuid: Self.value, properties: [.read, .notify], permissions: .readable, value: nil),
        ]))
        let atPeripheral = try #require(published.characteristic(Self.value))
        let requests = peripheral.events()
        let answering = Task {
            var count: UInt32 = 0
            for await case .readRequest(let request) in requests {
                await peripheral.respond(to: request, with: .success(Data(withUnsafeBytes(of: count.littleEndian) { Array($0) })))
                count += 1
            }
        }
        defer { answering.cancel() }
        try await peripheral.startAdvertising(AdvertisingData(localName: "Steady", serviceUUIDs: [Self.service]), scanResponse: nil)
        var found: UUID?
        for try await advertisement in try await central.scan(ScanOptions(services: [Self.service])) {
            found = advertisement.peripheral
            break
        }
        await central.stopScan()
        let peer = try #require(found)
        try await central.connect(peer, timeout: .seconds(10))
        let services = try await central.discoverServices([Self.service], on: peer)
        let characteristic = try #require(try await central.discoverCharacteristics(nil, for: services[0]).first)
        var notifications = try await central.subscribe(to: characteristic).makeAsyncIterator()
        _ = try await central.read(characteristic)   // The subscription has reached the peripheral.
        let residentBefore = Self.residentKiB()

        // One exchange: a read (its value counts the reads) and a notification (its value
        // counts them too); both must be the next number.
        var exchanged: UInt32 = 1   // the read above was number 0
        func exchange() async throws {
            let expected = Data(withUnsafeBytes(of: exchanged.littleEndian) { Array($0) })
            #expect(try await central.read(characteristic) == expected, "read \(exchanged), seed \(seed)")
            while await !peripheral.updateValue(expected, for: atPeripheral, onSubscribedCentrals: nil) {}
            #expect(try await notifications.next() == expected, "notification \(exchanged), seed \(seed)")
            exchanged += 1
        }
        // The pair's pace alone, for the report.
        let alone = ContinuousClock.now
        while ContinuousClock.now - alone < .seconds(1) { try await exchange() }
        let aloneRate = Double(exchanged - 1)

        let only = environment["BLEU_HUB_FUZZ_MODE"].flatMap { HostileClient.modes.firstIndex(of: $0) }
        let hostile = HostileClient(path: path, seed: seed, seconds: seconds, only: only)
        let running = Task.detached { await hostile.run() }
        let before = exchanged
        let started = ContinuousClock.now
        while !hostile.isFinished { try await exchange() }
        let besideRate = Double(exchanged - before) / ((ContinuousClock.now - started) / .seconds(1))
        let stats = await running.value
        print(String(format: "hostile hub client: %@; the good pair: %.0f exchanges/s alone, %.0f/s beside it; hub resident memory %d → %d KiB",
                     stats.description, aloneRate, besideRate, residentBefore, Self.residentKiB()))
        #expect(exchanged > before, "the good clients made no progress beside the hostile one (seed \(seed))")

        // One line per dropped or refused client, none about the good pair.
        let lines = log.withLock { $0 }
        var perClient: [String: Int] = [:]
        for line in lines {
            #expect(line.hasPrefix("hub: dropped client ") || line.hasPrefix("hub: refused client "), "\(line) (seed \(seed))")
            let client = line.split(separator: " ").prefix(4).joined(separator: " ")
            perClient[client, default: 0] += 1
        }
        #expect(perClient.keys.allSatisfy { !$0.hasSuffix(" 1") && !$0.hasSuffix(" 2") }, "\(perClient.keys.sorted())")
        #expect(perClient.values.allSatisfy { $0 == 1 }, "a client logged twice: \(perClient.filter { $0.value > 1 })")

        // Once the hub has seen every hostile connection close, only what outlives a client by
        // design is left: restorable managers, kept for a successor.
        let settled = ContinuousClock.now + .seconds(10)
        while hub.connectedClientCount > 2, ContinuousClock.now < settled { try await Task.sleep(for: .milliseconds(10)) }
        #expect(hub.connectedClientCount == 2)
        let (centrals, peripherals, kept) = bus.withEngine {
            ($0.centrals.count, $0.peripherals.count, $0.restorable.centrals.count + $0.restorable.peripherals.count)
        }
        #expect(centrals + peripherals == 2 + kept, "managers left: \(centrals) centrals, \(peripherals) peripherals, \(kept) restorable (seed \(seed))")
        await hub.stop()
    }

    /// This process's resident memory, from /proc (0 where there is none).
    static func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ")[1]) ?? 0
    }
}

/// The hostile side: connection after connection on blocking sockets, on a thread of its own.
final class HostileClient: Sendable {
    struct Stats: Sendable, CustomStringConvertible {
        var connections = 0
        var frames = 0
        var bytes = 0
        /// Per mode: how many times it ran, and for how long in all.
        var modes: [String: (count: Int, seconds: Double)] = [:]
        var description: String {
            let modes = modes.sorted { $0.key < $1.key }.map { String(format: "%@ %d in %.1f s", $0.key, $0.value.count, $0.value.seconds) }
            return "\(connections) connections, \(frames) frames, \(bytes) bytes (\(modes.joined(separator: ", ")))"
        }
    }

    static let modes = ["garbage", "broken frames", "requests", "half frame", "never reading", "burst"]

    let path: String
    let seed: UInt64
    let seconds: Double
    /// The one mode to run (an index into ``modes``), or `nil` for all of them at random.
    let only: Int?
    private let finished = Locked(false)

    init(path: String, seed: UInt64, seconds: Double, only: Int?) {
        self.path = path
        self.seed = seed
        self.seconds = seconds
        self.only = only
    }

    var isFinished: Bool { finished.withLock { $0 } }

    func run() async -> Stats {
        await withCheckedContinuation { (done: CheckedContinuation<Stats, Never>) in
            Thread {
                let stats = self.attack()
                self.finished.withLock { $0 = true }
                done.resume(returning: stats)
            }.start()
        }
    }

    private func attack() -> Stats {
        var samples = WireSamples(seed: seed, names: 1...4)
        var stats = Stats()
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            let mode = only ?? samples.int(0...5)
            let started = Date()
            switch mode {
            case 0: garbage(&samples, &stats)
            case 1: brokenFrames(&samples, &stats)
            case 2: requests(&samples, &stats)
            case 3: halfFrame(&samples, &stats)
            case 4: neverReading(&samples, &stats)
            default: burst(&samples, &stats)
            }
            let name = Self.modes[mode]
            stats.modes[name, default: (0, 0)].count += 1
            stats.modes[name, default: (0, 0)].seconds += Date().timeIntervalSince(started)
        }
        return stats
    }

    // MARK: Modes

    /// Random bytes, no hello.
    private func garbage(_ samples: inout WireSamples, _ stats: inout Stats) {
        guard let socket = connect(&stats) else { return }
        defer { close(socket) }
        send(socket, (0..<samples.int(1...4096)).map { _ in samples.byte() }, &stats)
    }

    /// A hello, then frames of random kinds, lengths and payloads.
    private func brokenFrames(_ samples: inout WireSamples, _ stats: inout Stats) {
        guard let socket = connect(&stats) else { return }
        defer { close(socket) }
        send(socket, HubProtocol.hello(token: nil), &stats)
        for _ in 0..<samples.int(1...20) {
            let payload = (0..<samples.int(0...64)).map { _ in samples.byte() }
            let length = samples.bool() ? UInt32(payload.count + 1) : samples.u32()
            var frame = withUnsafeBytes(of: length.littleEndian) { Array($0) }
            frame.append(samples.byte())
            frame += payload
            guard send(socket, frame, &stats) else { return }
            stats.frames += 1
            drain(socket)
        }
    }

    /// A hello, then requests valid in form, naming a few small numbers so that they meet the
    /// managers, streams and channels earlier ones made; now and then one is mutated (a byte
    /// changed, cut short, or a number used twice).
    private func requests(_ samples: inout WireSamples, _ stats: inout Stats) {
        guard let socket = connect(&stats) else { return }
        defer { close(socket) }
        send(socket, HubProtocol.hello(token: nil), &stats)
        var number: UInt64 = 1
        for _ in 0..<samples.int(1...300) {
            var frame = HubProtocol.request(number, samples.request())
            switch samples.int(0...19) {
            case 0: frame[samples.int(4...frame.count - 1)] = samples.byte()
            case 1: frame = Array(frame.prefix(samples.int(0...frame.count - 1)))
            case 2: number -= 1
            default: break
            }
            number += 1
            guard send(socket, frame, &stats) else { return }
            stats.frames += 1
            drain(socket)
        }
    }

    /// A hello and part of a frame, then nothing for a while.
    private func halfFrame(_ samples: inout WireSamples, _ stats: inout Stats) {
        guard let socket = connect(&stats) else { return }
        defer { close(socket) }
        send(socket, HubProtocol.hello(token: nil), &stats)
        let frame = HubProtocol.request(1, samples.request())
        send(socket, Array(frame.prefix(samples.int(1...frame.count - 1))), &stats)
        usleep(UInt32(samples.int(0...50_000)))
    }

    /// A hello, a central, then requests whose answers it never reads: the medium's trace and
    /// scans, until the hub stops taking them.
    private func neverReading(_ samples: inout WireSamples, _ stats: inout Stats) {
        guard let socket = connect(&stats) else { return }
        defer { close(socket) }
        send(socket, HubProtocol.hello(token: nil), &stats)
        send(socket, HubProtocol.request(0, .attachCentral(manager: 1, restoreIdentifier: nil, mtu: nil, device: nil, passkeyHandler: false)), &stats)
        for number in 1...UInt64(samples.int(100...3000)) {
            let request: HubRequest = number.isMultiple(of: 2) ? .bus(.trace) : .central(manager: 1, .state)
            guard send(socket, HubProtocol.request(number, request), &stats) else { return }
            stats.frames += 1
        }
    }

    /// Many connections at once, each saying hello, all closed together.
    private func burst(_ samples: inout WireSamples, _ stats: inout Stats) {
        var sockets: [Int32] = []
        for _ in 0..<samples.int(2...40) {
            guard let socket = connect(&stats) else { break }
            sockets.append(socket)
            send(socket, HubProtocol.hello(token: nil), &stats)
        }
        for socket in sockets { close(socket) }
    }

    // MARK: Sockets

    func connect(_ stats: inout Stats) -> Int32? {
        #if canImport(Glibc)
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let socket = Darwin.socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard socket >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            let bytes = Array(path.utf8.prefix(buffer.count - 1))
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        // A write the hub does not take within a second fails (and the connection is given up).
        var limit = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Glibc)
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                #else
                Darwin.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                #endif
            }
        }
        guard connected == 0 else {
            close(socket)
            return nil
        }
        stats.connections += 1
        return socket
    }

    /// Writes all of `bytes`; `false` once the hub has closed the connection or stopped taking them.
    @discardableResult
    func send(_ socket: Int32, _ bytes: [UInt8], _ stats: inout Stats) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { buffer in
                #if canImport(Glibc)
                Glibc.send(socket, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
                #else
                Darwin.send(socket, buffer.baseAddress, buffer.count, 0)
                #endif
            }
            guard written > 0 else { return false }
            offset += written
            stats.bytes += written
        }
        return true
    }

    /// Reads whatever the hub has sent, without waiting.
    private func drain(_ socket: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 {}
    }
}

/// The limits that keep one client from taking what the others need, each reached on purpose.
@Suite("A hub's limits", .timeLimit(.minutes(1)))
struct HubLimitTests {
    /// A hub on a socket of its own with these limits, its log lines as a stream.
    static func hub(_ limits: EmulatorHubServer.Limits) async throws -> (EmulatorHubServer, path: String, log: AsyncStream<String>) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bleu-limits-\(UUID().uuidString.prefix(8)).sock").path
        let (log, line) = AsyncStream.makeStream(of: String.self)
        let hub = EmulatorHubServer(bus: EmulatorBus(configuration: .instant), log: { line.yield($0) }, limits: limits)
        try await hub.start(at: [.unix(path: path)])
        return (hub, path, log)
    }

    @Test("a client that says nothing is dropped at the hello deadline, with one log line")
    func helloDeadline() async throws {
        let (hub, path, log) = try await Self.hub(.init(helloDeadline: .milliseconds(200)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var stats = HostileClient.Stats()
        let silent = try #require(HostileClient(path: path, seed: 0, seconds: 0, only: nil).connect(&stats))
        defer { close(silent) }
        let line = await log.first { _ in true }
        #expect(line?.hasSuffix("no hello within 0.2 seconds") == true, "\(line ?? "no line")")
        await hub.stop()
    }

    @Test("a client that stops reading is dropped once its unsent answers pass the limit")
    func neverReading() async throws {
        let (hub, path, log) = try await Self.hub(.init(maximumUnsentBytes: 1 << 20))
        defer { try? FileManager.default.removeItem(atPath: path) }
        // A trace of 10,000 events of about 100 bytes each: every answer to a trace request is
        // about 1 MB.
        hub.bus.withEngine { engine in
            for index in 0..<10_000 { engine.record(.fault, String(repeating: "x", count: 80) + "\(index)") }
        }
        let client = HostileClient(path: path, seed: 0, seconds: 0, only: nil)
        var stats = HostileClient.Stats()
        let socket = try #require(client.connect(&stats))
        defer { close(socket) }
        client.send(socket, HubProtocol.hello(token: nil), &stats)
        for number in 1...UInt64(40) {
            guard client.send(socket, HubProtocol.request(number, .bus(.trace)), &stats) else { break }
        }
        let line = await log.first { _ in true }
        #expect(line?.hasSuffix("not reading: its answers pile up unsent") == true, "\(line ?? "no line")")
        await hub.stop()
    }

    @Test("a client past the maximum is refused, and told why")
    func maximumClients() async throws {
        let (hub, path, log) = try await Self.hub(.init(maximumClients: 1))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try await EmulatorBus(connectingTo: "unix:\(path)")
        do {
            _ = try await EmulatorBus(connectingTo: "unix:\(path)")
            Issue.record("a second client was let in")
        } catch BleuError.invalidState(.hubConnectionLost(let reason)) {
            #expect(reason.contains("the hub has its maximum of 1 clients"), "\(reason)")
        }
        #expect(await log.first { _ in true }?.contains("the hub has its maximum of 1 clients") == true)
        withExtendedLifetime(first) {}
        await hub.stop()
    }
}
