import Bleu
import BleuCore
import BleuEmulator
import BleuTesting
import Distributed
import Foundation
import Testing

@Suite("Fixed actor ids, apps that restart, actors that move")
struct ActorIDTests {
    @Test("withActorID gives the actor the chosen id; a live id is refused with actorIDInUse; a released one can be chosen again")
    func chosenIDs() async throws {
        let system = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: EmulatorBus()))
        let id = UUID()
        var first: CounterActor? = try system.withActorID(id) { CounterActor(actorSystem: system) }
        #expect(first?.id == id)
        // Only the first actor the body creates gets the id.
        let other = UUID()
        var second: CounterActor?
        let firstOfTwo = try system.withActorID(other) {
            let made = CounterActor(actorSystem: system)
            second = CounterActor(actorSystem: system)
            return made
        }
        #expect(firstOfTwo.id == other)
        #expect(second.map { $0.id != other } == true)
        #expect(throws: BLEActorSystemError.actorIDInUse(id)) {
            _ = try system.withActorID(id) { CounterActor(actorSystem: system) }
        }
        first = nil
        let again = try system.withActorID(id) { CounterActor(actorSystem: system) }
        #expect(again.id == id)
    }

    @Test("withActorID refuses an actor created on another system (the id was not given to it)")
    func otherSystem() async throws {
        let bus = EmulatorBus()
        let system = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus))
        let other = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus))
        let id = UUID()
        #expect(throws: BLEActorSystemError.actorIDInUse(id)) {
            _ = try system.withActorID(id) { CounterActor(actorSystem: other) }
        }
        // The refused id stays free.
        #expect(try system.withActorID(id) { CounterActor(actorSystem: system) }.id == id)
    }

    /// A peripheral app: its radio and its actor system, created anew at each "launch".
    final class PeripheralApp {
        var manager: EmulatedPeripheralManager?
        var system: BLEActorSystem?
        var counter: CounterActor?

        init(bus: EmulatorBus, device: String, actorID: UUID) async throws {
            let manager = EmulatedPeripheralManager(bus: bus, options: .init(deviceIdentifier: device))
            let system = BLEActorSystem(peripheralManager: manager, configuration: .fast)
            let counter = try system.withActorID(actorID) { CounterActor(actorSystem: system) }
            try await system.startAdvertising(counter)
            (self.manager, self.system, self.counter) = (manager, system, counter)
        }

        /// The app is killed: its radio goes away with it.
        func terminate() async {
            await system?.stopAdvertising()
            counter = nil
            system = nil
            manager = nil
        }
    }

    /// A peripheral app on `device` hosts a counter with a saved id; a central calls it; the app
    /// is killed and starts again on `restartedDevice` with the same id. Returns the central and
    /// its old reference, for a call after the restart.
    static func restart(on device: String, as restartedDevice: String, relocateAfter: Duration) async throws
        -> (central: BLEActorSystem, remote: CounterActor, app: PeripheralApp) {
        let bus = EmulatorBus()
        let savedID = UUID()
        var app: PeripheralApp? = try await PeripheralApp(bus: bus, device: device, actorID: savedID)
        var configuration = BLEActorSystem.Configuration.fast
        configuration.links.relocateAfter = relocateAfter
        let central = BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus), configuration: configuration)
        let remote = try await central.connect(to: savedID, as: CounterActor.self)
        #expect(try await remote.increment() == 1)
        var states = central.connectivity(of: savedID).makeAsyncIterator()
        await app?.terminate()
        app = nil
        while let state = await states.next(), state == .ready {}
        // The app starts again, with the id it saved.
        return (central, remote, try await PeripheralApp(bus: bus, device: restartedDevice, actorID: savedID))
    }

    @Test("a peripheral app that restarts with its persisted actor id is reached by the central's old reference", .timeLimit(.minutes(1)))
    func restartKeepsTheID() async throws {
        // The same device: reached again under its identifier, without searching elsewhere.
        let (_, remote, app) = try await Self.restart(on: "sensor", as: "sensor", relocateAfter: .seconds(3600))
        #expect(try await remote.increment() == 1)
        withExtendedLifetime(app) {}
    }

    @Test("an actor that comes back on another device (a new peripheral identifier) is located again by scanning", .timeLimit(.minutes(1)))
    func movedActorIsFoundAgain() async throws {
        let (central, remote, app) = try await Self.restart(on: "old phone", as: "new phone", relocateAfter: .milliseconds(100))
        #expect(try await remote.increment() == 1)
        #expect(central.currentConnectivity(of: remote.id) == .ready)
        withExtendedLifetime(app) {}
    }
}
