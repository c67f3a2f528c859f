import Bleu
import BleuCore
import BleuTesting
import BumbleSupport
import Foundation
import Testing

@testable import BleuHCI

/// The distributed actor system on our host stack, across Bumble's virtual link: the same code
/// as on the emulator, on HCI managers.
@Suite("Interop: distributed actors over our HCI stack", .enabled(if: BumbleLink.python != nil, BumbleLink.skipReason),
       .timeLimit(.minutes(1)))
struct ActorsOverHCITests {
    @Test("discover by protocol, call, a Codable error, a counter that runs once per call, a stream")
    func actors() async throws {
        let pair = try await RadioPair.start()
        var configuration = BLEActorSystem.Configuration.fast
        configuration.remoteTypes.register(ExampleFailure.self)  // FailingActor's error, caught as itself
        let peripheralSystem = BLEActorSystem(peripheralManager: pair.peripheral, configuration: configuration)
        let centralSystem = BLEActorSystem(centralManager: pair.central, configuration: configuration)
        let sensor = SensorActor(actorSystem: peripheralSystem)
        let counter = CounterActor(actorSystem: peripheralSystem)
        let failing = FailingActor(actorSystem: peripheralSystem)
        let streaming = StreamingSensorActor(actorSystem: peripheralSystem)
        try await peripheralSystem.startAdvertising(sensor, counter, failing, streaming)

        let found = try await centralSystem.discover($TemperatureReading.self, timeout: .seconds(10), count: 1)
        let reading = try #require(found.first)
        #expect(reading.id == sensor.id, "the actor id travelled over the air")
        #expect(try await reading.temperature() == 22.5)

        let remoteCounter = try await centralSystem.connect(to: counter.id, as: CounterActor.self)
        for expected in 1...20 { #expect(try await remoteCounter.increment() == expected) }
        #expect(try await counter.current() == 20)

        let remoteFailing = try await centralSystem.connect(to: failing.id, as: FailingActor.self)
        await #expect(throws: ExampleFailure.self) { _ = try await remoteFailing.fail() }

        let remoteStreaming = try await centralSystem.connect(to: streaming.id, as: StreamingSensorActor.self)
        var values: [Double] = []
        for try await value in try await remoteStreaming.readings(count: 30) { values.append(value) }
        #expect(values.count == 30)

        await centralSystem.disconnect(from: counter.id)
        #expect(!(await centralSystem.isConnected(counter.id)))
        await pair.stop()
    }
}

@Suite("Interop: several centrals on one HCI peripheral", .enabled(if: BumbleLink.python != nil, BumbleLink.skipReason),
       .timeLimit(.minutes(1)))
struct SeveralCentralsOverHCITests {
    @Test("three centrals on their own controllers connect to one peripheral, which keeps advertising after each connection, and call it at once")
    func threeCentrals() async throws {
        let link = try await BumbleLink.start(extra: ["--more-controllers", "2"])
        defer { link.stop() }
        let peripheralRadio = try await BumbleLink.radio(port: link.portB, name: "peripheral")
        let configuration = BLEActorSystem.Configuration.fast
        let host = BLEActorSystem(peripheralManager: HCIPeripheralManager(radio: peripheralRadio), configuration: configuration)
        let counter = CounterActor(actorSystem: host)
        try await host.startAdvertising(counter)
        var radios: [HCIRadio] = []
        for port in [link.portA] + link.morePorts { radios.append(try await BumbleLink.radio(port: port, name: "central")) }
        let systems = radios.map { BLEActorSystem(centralManager: HCICentralManager(radio: $0), configuration: configuration) }
        #expect(systems.count == 3)
        var remotes: [CounterActor] = []
        for system in systems {  // one after another: a controller stops advertising on a connection; the radio resumes it
            remotes.append(try await system.connect(to: counter.id, as: CounterActor.self))
        }
        let results = try await withThrowingTaskGroup(of: [Int].self) { group in
            for remote in remotes {
                group.addTask { var seen: [Int] = []; for _ in 0..<10 { seen.append(try await remote.increment()) }; return seen }
            }
            return try await group.reduce(into: [Int]()) { $0 += $1 }
        }
        #expect(results.sorted() == Array(1...30), "every call ran once, each caller got its own replies")
        #expect(try await counter.current() == 30)
        for radio in radios { await radio.stop() }
        await peripheralRadio.stop()
    }
}
