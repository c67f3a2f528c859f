#if !canImport(CoreBluetooth)
import Bleu
import BleuCore
import BleuCoreBluetooth
import BleuEmulator
import BleuTesting
import Foundation
import Testing

/// The acceptance check: Bleu's distributed actors, with both radios on this backend — the
/// path an iPhone app takes, here over the emulator.
@Suite("BLEActorSystem over CoreBluetoothCentralManager and CoreBluetoothPeripheralManager", .timeLimit(.minutes(1)))
struct ActorSystemAcceptanceTests {
    /// A central and a peripheral system, each on this backend's manager, on a fresh bus.
    static func systems() -> (EmulatorBus, CoreBluetoothCentralManager, CoreBluetoothPeripheralManager, BLEActorSystem, BLEActorSystem) {
        let bus = EmulatorBus(configuration: .instant)
        let centralManager = CoreBluetoothCentralManager(bus: bus)
        let peripheralManager = CoreBluetoothPeripheralManager(bus: bus)
        var configuration = BLEActorSystem.Configuration.fast
        configuration.remoteTypes.register(ExampleFailure.self)  // FailingActor's error, caught as itself
        return (bus, centralManager, peripheralManager, BLEActorSystem(centralManager: centralManager, configuration: configuration),
                BLEActorSystem(peripheralManager: peripheralManager, configuration: .fast))
    }

    @Test("host actors, connect, call them, get a typed error, and see a lost link fail a call in progress")
    func actorsOverCoreBluetooth() async throws {
        let (bus, centralManager, _, central, peripheral) = Self.systems()

        let counter = CounterActor(actorSystem: peripheral)
        let failing = FailingActor(actorSystem: peripheral)
        let sensor = StreamingSensorActor(actorSystem: peripheral)
        try await peripheral.startAdvertising(counter, failing, sensor)

        let remoteCounter = try await central.connect(to: counter.id, as: CounterActor.self)
        #expect(try await remoteCounter.increment() == 1)
        try await remoteCounter.add(41)
        #expect(try await remoteCounter.current() == 42)

        let remoteFailing = try await central.connect(to: failing.id, as: FailingActor.self)
        do {
            _ = try await remoteFailing.fail()
            Issue.record("the call returned")
        } catch let failure as ExampleFailure {
            #expect(failure == ExampleFailure(code: 7, reason: "always fails"))
        }

        let remoteSensor = try await central.connect(to: sensor.id, as: StreamingSensorActor.self)
        let readings = try await remoteSensor.endless()
        var iterator = readings.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        #expect(try await iterator.next() == 1)
        let link = try #require(await centralManager.retrieveConnectedPeripherals(withServices: []).first)
        bus.loseLink(between: centralManager.emulatorManager, and: link.id)
        do {
            while try await iterator.next() != nil {}
            Issue.record("the stream ended without an error")
        } catch BleuError.disconnected(let id, let reason) {
            #expect(id == link.id && reason == .supervisionTimeout)
        }
    }

    /// Waits until the actor's connectivity is (or is not) ready.
    static func until(_ central: BLEActorSystem, _ id: UUID, ready: Bool) async {
        for await state in central.connectivity(of: id) where (state == .ready) == ready { return }
    }

    @Test("links kept across outages over this backend: a call during an outage waits and runs once; failFast fails at once; a radio cycle republishes")
    func outagesOverCoreBluetooth() async throws {
        let (bus, _, peripheralManager, central, peripheral) = Self.systems()
        var failFastConfiguration = BLEActorSystem.Configuration.fast
        failFastConfiguration.links.callPolicy = .failFast
        let impatient = BLEActorSystem(centralManager: CoreBluetoothCentralManager(bus: bus), configuration: failFastConfiguration)
        let counter = CounterActor(actorSystem: peripheral)
        try await peripheral.startAdvertising(counter)
        let remote = try await central.connect(to: counter.id, as: CounterActor.self)
        let hurried = try await impatient.connect(to: counter.id, as: CounterActor.self)
        #expect(try await remote.increment() == 1)

        // Out of range: the waiting call runs once the peripheral is back; the impatient one fails at once.
        bus.setDistance(1000, of: peripheralManager.emulatorManager)
        await Self.until(central, counter.id, ready: false)
        await Self.until(impatient, counter.id, ready: false)
        async let waited = remote.increment()
        await #expect(throws: BleuError.self) { _ = try await hurried.increment() }
        bus.setDistance(1, of: peripheralManager.emulatorManager)
        #expect(try await waited == 2)

        // The peripheral's radio goes off and on: CoreBluetooth clears its services; the system
        // publishes the actor again by itself, and the old reference reaches it.
        bus.setState(.poweredOff, of: peripheralManager.emulatorManager)
        await Self.until(central, counter.id, ready: false)
        bus.setState(.poweredOn, of: peripheralManager.emulatorManager)
        #expect(try await remote.increment() == 3)
        #expect(try await counter.current() == 3, "no call ran twice")
    }
}
#endif
