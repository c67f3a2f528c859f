import Bleu
import BleuCore
import BleuTesting
import Foundation
import Testing

extension EveryBackend {
    @Suite("the actor system: discover, resolve, call, errors, streams, disconnects", .timeLimit(.minutes(1)))
    struct ActorSystemScenarios {
        /// A peripheral system and a central system on the backend's radios.
        private func systems(_ backend: Backend) async throws -> (Radios, peripheral: BLEActorSystem, central: BLEActorSystem) {
            let radios = try await backend.makePair()
            var configuration = BLEActorSystem.Configuration.fast
            configuration.remoteTypes.register(ExampleFailure.self)  // FailingActor's error, caught as itself
            return (radios, BLEActorSystem(peripheralManager: radios.peripheral, configuration: configuration),
                    BLEActorSystem(centralManager: radios.central, configuration: configuration))
        }

        @Test("an actor is discovered by type, resolved by id, and called; its state persists across calls",
              arguments: Backend.available)
        func discoverAndCall(_ backend: Backend) async throws {
            let (radios, peripheral, central) = try await systems(backend)
            defer { radios.stop() }
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

        @Test("a registered Codable error arrives as itself; another as RemoteCallError", arguments: Backend.available)
        func errors(_ backend: Backend) async throws {
            let (radios, peripheral, central) = try await systems(backend)
            defer { radios.stop() }
            let failing = FailingActor(actorSystem: peripheral)
            try await peripheral.startAdvertising(failing)
            let remote = try await central.connect(to: failing.id, as: FailingActor.self)
            await #expect(throws: ExampleFailure(code: 7, reason: "always fails")) { try await remote.fail() }
            await #expect(throws: RemoteCallError.self) { try await remote.failOpaquely() }
        }

        @Test("a stream delivers its values in order and ends", arguments: Backend.available)
        func streams(_ backend: Backend) async throws {
            let (radios, peripheral, central) = try await systems(backend)
            defer { radios.stop() }
            let sensor = StreamingSensorActor(actorSystem: peripheral)
            try await peripheral.startAdvertising(sensor)
            let remote = try await central.connect(to: sensor.id, as: StreamingSensorActor.self)
            var values: [Double] = []
            for try await value in try await remote.readings(count: 20) { values.append(value) }
            #expect(values.count == 20)
            #expect(values == values.sorted())
        }

        @Test("a lost link fails the next call with BleuError.disconnected or reconnects and answers — never runs it twice",
              arguments: Backend.available)
        func disconnect(_ backend: Backend) async throws {
            let (radios, peripheral, central) = try await systems(backend)
            defer { radios.stop() }
            let counter = CounterActor(actorSystem: peripheral)
            try await peripheral.startAdvertising(counter)
            let remote = try await central.connect(to: counter.id, as: CounterActor.self)
            #expect(try await remote.increment() == 1)
            let link = try #require(await radios.central.retrieveConnectedPeripherals(withServices: []).first)
            var events = radios.central.events().makeAsyncIterator()
            var peripheralEvents = radios.peripheral.events().makeAsyncIterator()
            // Each stream starts with the radio's state: once that has arrived, the stream is
            // open wherever the medium is (a hub's client's subscription crosses to the hub on its
            // own connection, which the other radio's calls do not wait for).
            _ = await events.next()
            _ = await peripheralEvents.next()
            try radios.loseLink(link.id)
            var lost: DisconnectReason?
            while let event = await events.next() {
                if case .disconnected(let id, let reason) = event, id == link.id {
                    lost = reason
                    break
                }
            }
            #expect(lost == .supervisionTimeout)
            // The peripheral's side of the link times out too; CoreBluetooth's peripheral role
            // reports no disconnections at all (CBPeripheralManager has no such callback).
            if backend.reportsPeripheralDisconnections {
                var centralLost: DisconnectReason?
                while let event = await peripheralEvents.next() {
                    if case .centralDisconnected(_, let reason) = event {
                        centralLost = reason
                        break
                    }
                }
                #expect(centralLost == .supervisionTimeout)
            }
            // The reference reconnects on the next call; the count shows the lost link ran nothing twice.
            #expect(try await remote.increment() == 2)
        }
    }
}
