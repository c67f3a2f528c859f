import Bleu
import BleuCore
import BleuEmulator
import BleuEmulatorHub
import BleuGATT
import BleuHCI
import BleuTesting
import Foundation
import ProcessSupport
import Testing

/// The actor system and typed GATT with the peripheral in a process of its own
/// (`bleu-hub-peer`, built beside the tests) and the central in this one, both clients of a hub
/// this process serves on the default preset: realistic timing, in real time.
@Suite("Across processes: actors and typed GATT, the peripheral in a process of its own", .timeLimit(.minutes(1)),
       .enabled(if: ToolProcess.executable(named: "bleu-hub-peer") != nil,
                "the bleu-hub-peer executable is not built next to the tests (run swift build --build-tests)"),
       .enabled(if: ProcessInfo.processInfo.environment["BLEU_TOOL_PROCESSES"] != "0",
                "BLEU_TOOL_PROCESSES=0 leaves out the tests that run child processes (scripts/test.sh sets it for its sanitizer runs)"))
struct CrossProcessTests {
    /// A hub on a Unix-domain socket, the peer joined to it (its "ready" line read), and a bus of
    /// this process on the same hub.
    struct Session {
        let hub: EmulatorHubServer
        let hubBus: EmulatorBus
        let peer: ChildProcess
        let bus: EmulatorBus
        let path: String

        static func start(_ name: String) async throws -> Session {
            let path = HubSocketTests.socketPath(name)
            let hubBus = EmulatorBus(configuration: .default)
            let hub = EmulatorHubServer(bus: hubBus)
            try await hub.start(at: [.unix(path: path)])
            let peer = try ToolProcess.start(["unix:\(path)"], tool: "bleu-hub-peer")
            let ready = try await peer.nextLine()
            guard ready == "ready" else {
                peer.terminate()
                throw BleuError.invalidState(.hubConnectionLost(reason: "the peer did not start: \(ready ?? "no output")"))
            }
            return Session(hub: hub, hubBus: hubBus, peer: peer, bus: try await EmulatorBus(connectingTo: "unix:\(path)"), path: path)
        }

        func stop() async {
            peer.terminate()
            await hub.stop()
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    @Test("the actor system across processes: discover, calls, a Codable error, a stream; the peer killed mid-call fails the call with the link's supervision timeout, not the call timeout")
    func actorSystem() async throws {
        let session = try await Session.start("actors")
        var configuration = BLEActorSystem.Configuration()
        configuration.remoteTypes.register(ExampleFailure.self)
        let central = BLEActorSystem(centralManager: EmulatedCentralManager(bus: session.bus), configuration: configuration)

        let counter = try #require(try await central.discover(CounterActor.self, timeout: .seconds(10), count: 1).first)
        #expect(try await counter.increment() == 1)
        try await counter.add(41)
        #expect(try await counter.current() == 42)

        let failing = try #require(try await central.discover(FailingActor.self, timeout: .seconds(10), count: 1).first)
        await #expect(throws: ExampleFailure(code: 7, reason: "always fails")) { try await failing.fail() }
        await #expect(throws: RemoteCallError.self) { try await failing.failOpaquely() }

        let sensor = try #require(try await central.discover(StreamingSensorActor.self, timeout: .seconds(10), count: 1).first)
        var readings: [Double] = []
        for try await reading in try await sensor.readings(count: 20) { readings.append(reading) }
        #expect(readings == (0..<20).map { 20 + Double($0) / 2 })

        let holding = try #require(try await central.discover(HoldingActor.self, timeout: .seconds(10), count: 1).first)
        let call = Task { try await holding.hold(seconds: 50) }
        // The peer prints "holding" once the call runs there: the call is in flight when it dies.
        #expect(try await session.peer.nextLine() == "holding")
        session.peer.kill()
        do {
            let returned = try await call.value
            Issue.record("the call returned \(returned) from a killed process")
        } catch BleuError.disconnected(_, let reason) {
            // Not BleuError.timeout: the call failed when the link did, before the call timeout
            // (configuration.callTimeout, 10 s) would have ended it.
            #expect(reason == .supervisionTimeout)
        }
        await session.stop()
    }

    @Test("typed GATT across processes: a typed central reads and subscribes to a typed heart-rate sensor in another process")
    func typedGATT() async throws {
        let session = try await Session.start("gatt")
        try await Self.readPeerSensor(with: EmulatedCentralManager(bus: session.bus))
        await session.stop()
    }

    /// Finds the peer's typed heart-rate sensor with `central`, reads it and takes its 50 measurements.
    static func readPeerSensor(with central: some CentralManager) async throws {
        var found: UUID?
        for try await advertisement in try await central.scan() where advertisement.localName == "Hub peer sensor" {
            found = advertisement.peripheral
            break
        }
        await central.stopScan()
        let peer = try #require(found)
        try await central.connect(peer, timeout: .seconds(10))
        let client = GATTClient(central: central, peripheral: peer)
        let heartRate = try await client.discover(HeartRateService.self)
        #expect(try await heartRate.read(HeartRateService.bodySensorLocation) == .chest)
        let battery = try await client.discover(BatteryService.self)
        #expect(try await battery.read(BatteryService.level) == 87)
        var beats: [UInt16] = []
        for try await measurement in try await heartRate.subscribe(to: HeartRateService.measurement) {
            beats.append(measurement.heartRate)
            if beats.count == 50 { break }
        }
        #expect(beats == Array(60..<110))
    }

    @Test("our BleuHCI host on a hub's virtual controller against the peer process: an actor call, typed reads, 50 typed notifications in order")
    func hciHostOnAController() async throws {
        let session = try await Session.start("hci")
        let controllers = VirtualControllerServer(bus: session.hubBus)
        let bound = try await controllers.start(at: [.tcp(host: "127.0.0.1", port: 0)])
        guard case .tcp(_, let port)? = bound.first else { throw BleuError.invalidState(.hubConnectionLost(reason: "no controller port")) }
        let radio = HCIRadio(host: HCIHost(transport: try await NIOHCITransport.connect(host: "127.0.0.1", port: port)))
        try await radio.start()
        let central = HCICentralManager(radio: radio)

        let system = BLEActorSystem(centralManager: central)
        let counter = try #require(try await system.discover(CounterActor.self, timeout: .seconds(10), count: 1).first)
        #expect(try await counter.increment() == 1)

        try await Self.readPeerSensor(with: central)
        await radio.stop()
        await controllers.stop()
        await session.stop()
    }
}
