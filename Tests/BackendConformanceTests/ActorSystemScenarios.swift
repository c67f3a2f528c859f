import Bleu
import BleuCore
import BleuTesting
import Foundation
import Testing

@Suite("Every backend · the actor system: discover, resolve, call, errors, streams, disconnects", .timeLimit(.minutes(1)))
struct ActorSystemScenarios {
    /// A peripheral system and a central system on the backend's radios.
    private func systems(_ backend: Backend) -> (Radios, peripheral: BLEActorSystem, central: BLEActorSystem) {
        let radios = backend.makePair()
        return (radios, BLEActorSystem(peripheralManager: radios.peripheral, configuration: .fast),
                BLEActorSystem(centralManager: radios.central, configuration: .fast))
    }

    @Test("an actor is discovered by type, resolved by id, and called; its state persists across calls", arguments: Backend.allCases)
    func discoverAndCall(_ backend: Backend) async throws {
        let (_, peripheral, central) = systems(backend)
        let counter = CounterActor(actorSystem: peripheral)
        try await peripheral.startAdvertising(counter)
        let found = try await central.discover(CounterActor.self, timeout: .seconds(5), count: 1)
        let remote = try #require(found.first)
        #expect(remote.id == counter.id)
        #expect(try await remote.increment() == 1)
        try await remote.add(41)
        #expect(try await remote.current() == 42)
        let resolved = try CounterActor.resolve(id: counter.id, using: central)
        #expect(try await resolved.increment() == 43)
    }

    @Test("a Codable error arrives as itself; another as RemoteCallError", arguments: Backend.allCases)
    func errors(_ backend: Backend) async throws {
        let (_, peripheral, central) = systems(backend)
        let failing = FailingActor(actorSystem: peripheral)
        try await peripheral.startAdvertising(failing)
        let remote = try await central.connect(to: failing.id, as: FailingActor.self)
        await #expect(throws: ExampleFailure(code: 7, reason: "always fails")) { try await remote.fail() }
        await #expect(throws: RemoteCallError.self) { try await remote.failOpaquely() }
    }

    @Test("a stream delivers its values in order and ends", arguments: Backend.allCases)
    func streams(_ backend: Backend) async throws {
        let (_, peripheral, central) = systems(backend)
        let sensor = StreamingSensorActor(actorSystem: peripheral)
        try await peripheral.startAdvertising(sensor)
        let remote = try await central.connect(to: sensor.id, as: StreamingSensorActor.self)
        var values: [Double] = []
        for try await value in try await remote.readings(count: 20) { values.append(value) }
        #expect(values.count == 20)
        #expect(values == values.sorted())
    }

    @Test("a lost link fails the next call with BleuError.disconnected or reconnects and answers — never runs it twice",
          arguments: Backend.allCases)
    func disconnect(_ backend: Backend) async throws {
        let (radios, peripheral, central) = systems(backend)
        let counter = CounterActor(actorSystem: peripheral)
        try await peripheral.startAdvertising(counter)
        let remote = try await central.connect(to: counter.id, as: CounterActor.self)
        #expect(try await remote.increment() == 1)
        let link = try #require(await radios.central.retrieveConnectedPeripherals(withServices: []).first)
        let events = radios.central.events()
        radios.loseLink(link.id)
        for await event in events {
            if case .disconnected(let id, let reason) = event, id == link.id {
                #expect(reason == .supervisionTimeout)
                break
            }
        }
        // The reference reconnects on the next call; the count shows the lost link ran nothing twice.
        #expect(try await remote.increment() == 2)
    }
}
