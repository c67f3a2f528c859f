import BleuCore
import BleuEmulator
import BleuEmulatorHub
import Foundation
import ProcessSupport
import Testing

/// The hub over real sockets: a server in this process and clients connecting to it, and the
/// `bleu` tool's hub, server and demo as three processes.
@Suite("A hub over sockets", .timeLimit(.minutes(1)))
struct HubSocketTests {
    static let service = BluetoothUUID(string: "0B1E0001-0000-1000-8000-00805F9B34FB")!
    static let value = BluetoothUUID(string: "0B1E0002-0000-1000-8000-00805F9B34FB")!

    /// A socket path of this test's own.
    static func socketPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("bleu-\(name)-\(UUID().uuidString.prefix(8)).sock").path
    }

    /// A peripheral on one client hosting a readable, notifying value; a central on another
    /// finds it, connects, reads and subscribes.
    static func exchange(peripheralBus: EmulatorBus, centralBus: EmulatorBus) async throws {
        let peripheral = EmulatedPeripheralManager(bus: peripheralBus)
        let published = try await peripheral.add(ServiceDefinition(uuid: service, characteristics: [
            CharacteristicDefinition(uuid: value, properties: [.read, .notify], permissions: .readable, value: nil),
        ]))
        let requests = peripheral.events()
        let app = Task {
            for await case .readRequest(let request) in requests {
                await peripheral.respond(to: request, with: .success(Data("over a socket".utf8)))
            }
        }
        defer { app.cancel() }
        try await peripheral.startAdvertising(AdvertisingData(localName: "Socket", serviceUUIDs: [service]), scanResponse: nil)
        let central = EmulatedCentralManager(bus: centralBus)
        var found: UUID?
        for try await advertisement in try await central.scan(ScanOptions(services: [service])) {
            found = advertisement.peripheral
            break
        }
        let peer = try #require(found)
        await central.stopScan()
        try await central.connect(peer, timeout: .seconds(10))
        let services = try await central.discoverServices([service], on: peer)
        let characteristic = try #require(try await central.discoverCharacteristics(nil, for: services[0]).first)
        #expect(try await central.read(characteristic) == Data("over a socket".utf8))
        let values = try await central.subscribe(to: characteristic)
        let characteristicAtPeripheral = try #require(published.characteristic(value))
        Task {
            for index in 0..<3 {
                while await !peripheral.updateValue(Data([UInt8(index)]), for: characteristicAtPeripheral, onSubscribedCentrals: nil) {}
            }
        }
        var received: [UInt8] = []
        for try await value in values {
            received += value
            if received.count == 3 { break }
        }
        #expect(received == [0, 1, 2])
    }

    @Test("two clients meet on a hub's Unix-domain socket; when the hub stops their calls fail, typed")
    func unixSocket() async throws {
        let path = Self.socketPath("unix")
        let hub = EmulatorHubServer(bus: EmulatorBus(configuration: .instant))
        try await hub.start(at: [.unix(path: path)])
        let peripheralBus = try await EmulatorBus(connectingTo: "unix:\(path)")
        let centralBus = try await EmulatorBus(connectingTo: "unix:\(path)")
        try await Self.exchange(peripheralBus: peripheralBus, centralBus: centralBus)
        await hub.stop()
        let central = EmulatedCentralManager(bus: centralBus)
        do {
            _ = try await central.scan(ScanOptions())
            Issue.record("a scan on a stopped hub succeeded")
        } catch BleuError.invalidState(.hubConnectionLost) {
        }
        try? FileManager.default.removeItem(atPath: path)
    }

    @Test("a hub on TCP with a token: without it a client is refused with the reason; with it, welcomed")
    func tcpToken() async throws {
        let hub = EmulatorHubServer(bus: EmulatorBus(configuration: .instant), token: "s3cret")
        let bound = try await hub.start(at: [.tcp(host: "127.0.0.1", port: 0)])
        guard case .tcp(_, let port)? = bound.first, port != 0 else {
            Issue.record("no port bound: \(bound)")
            return
        }
        do {
            _ = try await EmulatorBus(connectingTo: "tcp:127.0.0.1:\(port)")
            Issue.record("a client without the token was let in")
        } catch BleuError.invalidState(.hubConnectionLost(let reason)) {
            #expect(reason.contains("this hub needs a token"))
        }
        let peripheralBus = try await EmulatorBus(connectingTo: "tcp:127.0.0.1:\(port)", token: "s3cret")
        let centralBus = try await EmulatorBus(connectingTo: "tcp:127.0.0.1:\(port)", token: "s3cret")
        try await Self.exchange(peripheralBus: peripheralBus, centralBus: centralBus)
        await hub.stop()
    }

    @Test("a hub listens on loopback only unless told otherwise; an endpoint must be unix: or tcp:")
    func endpoints() async throws {
        let hub = EmulatorHubServer(bus: EmulatorBus(configuration: .instant))
        await #expect(throws: BleuError.self) { try await hub.start(at: [.tcp(host: "0.0.0.0", port: 0)]) }
        #expect(HubEndpoint("unix:/tmp/x.sock") == .unix(path: "/tmp/x.sock"))
        #expect(HubEndpoint("tcp:127.0.0.1:9000") == .tcp(host: "127.0.0.1", port: 9000))
        #expect(HubEndpoint("udp:1") == nil && HubEndpoint("unix:") == nil && HubEndpoint("tcp:127.0.0.1:0") == nil)
        await #expect(throws: BleuError.self) { try await EmulatorBus(connectingTo: "serial:/dev/null") }
        await #expect(throws: BleuError.self) { try await EmulatorBus(connectingTo: "unix:\(Self.socketPath("absent"))") }
    }

    @Test("bleu hub --trace, bleu serve --hub and bleu demo --hub: three processes, every step of the demo succeeds; the trace holds the links, and each device's btsnoop capture decodes cleanly in tshark",
          .enabled(if: ToolProcess.executable != nil, Comment(rawValue: ToolProcess.skipReason)),
          .enabled(if: ProcessInfo.processInfo.environment["BLEU_TOOL_PROCESSES"] != "0",
                   "BLEU_TOOL_PROCESSES=0 leaves out the tests that run the bleu tool as child processes (scripts/test.sh sets it for its sanitizer runs)"))
    func processes() async throws {
        let path = Self.socketPath("demo")
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("bleu-hub-trace-\(UUID().uuidString.prefix(8)).txt").path
        let hub = try ToolProcess.start(["hub", "unix:\(path)", "--trace", trace])
        defer { hub.terminate() }
        let listening = try #require(try await hub.nextLine())
        #expect(listening.hasPrefix("hub listening on unix:\(path)"), "\(listening)")
        let server = try ToolProcess.start(["serve", "--hub", "unix:\(path)"])
        defer { server.terminate() }
        let serving = try #require(try await server.nextLine())
        #expect(serving.hasPrefix("serving on hub unix:\(path)"), "\(serving)")
        let demo = try await ToolProcess.run(["demo", "--hub", "unix:\(path)", "--seconds", "1"], limit: .seconds(50))
        #expect(demo.succeeded, "\(demo)")
        #expect(demo.outputText.contains("caught invalidInterval(0) as DemoError"), "\(demo.outputText)")
        #expect(demo.outputText.contains("Done:"), "\(demo.outputText)")

        // The hub writes what it has and closes its files when its input ends.
        server.terminate()
        #expect(try await hub.finish(limit: .seconds(20)).succeeded)
        let text = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(text.contains("CONNECTED") && text.contains("ATT") && text.contains("Write Request"), "\(text.prefix(2000))")
        let directory = URL(fileURLWithPath: trace).deletingLastPathComponent()
        let captures = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix(URL(fileURLWithPath: trace).lastPathComponent + ".") && $0.hasSuffix(".btsnoop") }
            .map { directory.appendingPathComponent($0).path }
        defer { for file in captures + [trace] { try? FileManager.default.removeItem(atPath: file) } }
        #expect(captures.count == 2, "one capture per device: \(captures)")
        guard let tshark = ["/usr/bin/tshark", "/usr/local/bin/tshark"].first(where: FileManager.default.isExecutableFile) else {
            print("HubSocketTests.processes: tshark is not installed (apt-get install tshark); skipped the capture decode")
            return
        }
        for capture in captures {
            let decoded = try await ChildProcess.run(tshark, arguments: ["-r", capture, "-V"], limit: .seconds(60))
            #expect(decoded.status == 0, "\(decoded)")
            #expect(!decoded.outputText.contains("Malformed"), "tshark found malformed packets in \(capture)")
            #expect(decoded.outputText.contains("LE Connection Complete") && decoded.outputText.contains("Write Request")
                        && decoded.outputText.contains("Handle Value Notification"), "\(decoded.outputText.prefix(3000))")
        }
    }
}
