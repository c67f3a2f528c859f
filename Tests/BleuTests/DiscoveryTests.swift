@testable import Bleu
import BleuCore
import BleuEmulator
import BleuTesting
import Distributed
import Foundation
import Testing

/// Conforms to ``TemperatureReading`` without listing it in `discoverableAs`.
distributed actor PlainThermometer: TemperatureReading {
    typealias ActorSystem = BLEActorSystem
    distributed func temperature() async throws -> Double { 19 }
}

@Suite("Discovery, connection and resolve")
struct DiscoveryTests {
    /// The budget of a first call that must locate its actor by scanning. On an idle machine it
    /// takes tens of milliseconds; with the whole suite running beside six busy processes on 2
    /// cores it was measured at 16 s (not understood yet: see issue 15's note), so these tests
    /// give it more than the default 5 s.
    static let lookupTimeout = Duration.seconds(30)

    /// A first call that locates its actor, within ``lookupTimeout``; when it fails, the central's
    /// log (trace level, with times) is attached to the failure, so a slow lookup on a loaded
    /// machine shows where its time went.
    static func lookup<T>(_ logs: CapturedLogs, sourceLocation: SourceLocation = #_sourceLocation,
                                    _ call: () async throws -> T) async throws -> T {
        do {
            return try await BLEActorSystem.withCallTimeout(lookupTimeout, operation: call)
        } catch {
            Issue.record("the lookup failed with \(error); the central's log:\n\(logs.transcript)", sourceLocation: sourceLocation)
            throw error
        }
    }

    @Test("service UUIDs are version-5 UUIDs of the type's or protocol's stable name")
    func serviceUUIDs() {
        let namespace = ActorServiceLayout.namespace
        #expect(ActorServiceLayout.name(of: CounterActor.self) == "actor:BleuTesting.CounterActor")
        #expect(ActorServiceLayout.name(of: $TemperatureReading.self) == "protocol:BleuTesting.TemperatureReading")
        #expect(ActorServiceLayout.serviceUUID(for: CounterActor.self)
                == BluetoothUUID(uuid: UUID(version5Of: "actor:BleuTesting.CounterActor", in: namespace)))
        #expect(ActorServiceLayout.serviceUUID(for: CounterActor.self) != ActorServiceLayout.serviceUUID(for: ValueActor.self))
        // Version 5, RFC 9562 variant.
        let bytes = withUnsafeBytes(of: ActorServiceLayout.serviceUUID(for: ValueActor.self).uuid.uuid) { Array($0) }
        #expect(bytes[6] >> 4 == 5)
        #expect(bytes[8] >> 6 == 2)
    }

    @Test("the actor id reaches the central over the air, in the actor service's id characteristic")
    func actorIDOverTheAir() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let peripheral = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus))
        let counter = CounterActor(actorSystem: peripheral)
        try await peripheral.startAdvertising(counter)
        // A plain central, no actor system: scan, connect, read.
        let central = EmulatedCentralManager(bus: bus)
        let service = ActorServiceLayout.serviceUUID(for: CounterActor.self)
        var scan = try await central.scan(ScanOptions(services: [service])).makeAsyncIterator()
        let advertisement = try #require(try await scan.next())
        #expect(advertisement.data.serviceUUIDs.contains(service))
        try await central.connect(advertisement.peripheral)
        let services = try await central.discoverServices([service], on: advertisement.peripheral)
        let characteristics = try await central.discoverCharacteristics([ActorServiceLayout.actorIDCharacteristic], for: services[0])
        let value = try await central.read(characteristics[0])
        #expect(value == withUnsafeBytes(of: counter.id.uuid) { Data($0) })
    }

    @Test("the actor id is a static value: the ATT server answers it, so faults injected into application reads never reach it")
    func actorIDIsStatic() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.faults = FaultRates(attError: 1)  // every read and write the application answers fails
        let bus = EmulatorBus(configuration: configuration)
        let peripheral = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus))
        let central = BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus))
        let counter = CounterActor(actorSystem: peripheral)
        try await peripheral.startAdvertising(counter)
        // Discovery reads each actor service's id once; it succeeds although no call could.
        let found = try await central.discover(CounterActor.self, timeout: .seconds(5))
        #expect(found.map(\.id) == [counter.id])
    }

    @Test("discovery by protocol finds actors whose type lists it; resolve through the protocol stub")
    func byProtocol() async throws {
        let pair = ConnectedPair()
        let sensor = SensorActor(actorSystem: pair.peripheral)
        try await pair.peripheral.startAdvertising(sensor, CounterActor(actorSystem: pair.peripheral))
        let found = try await pair.central.discover($TemperatureReading.self, timeout: .seconds(5))
        #expect(found.map(\.id) == [sensor.id])
        #expect(try await #require(found.first).temperature() == 22.5)
        // By concrete type, then through the protocol.
        let byType = try await pair.central.discover(SensorActor.self, timeout: .seconds(5))
        #expect(byType.map(\.id) == [sensor.id])
        let resolved = try $TemperatureReading.resolve(id: sensor.id, using: pair.central)
        #expect(try await resolved.temperature() == 22.5)
    }

    @Test("several actors on one peripheral: each discoverable, each called on its own")
    func severalActors() async throws {
        let pair = ConnectedPair()
        let counters = (0..<3).map { _ in CounterActor(actorSystem: pair.peripheral) }
        let value = ValueActor(actorSystem: pair.peripheral)
        try await pair.peripheral.startAdvertising(counters + [value])
        let found = try await pair.central.discover(CounterActor.self, timeout: .seconds(5))
        #expect(Set(found.map(\.id)) == Set(counters.map(\.id)))
        for (index, counter) in found.enumerated() { try await counter.add(index + 10) }
        for (index, counter) in found.enumerated() { #expect(try await counter.current() == index + 10) }
        let values = try await pair.central.discover(ValueActor.self, timeout: .seconds(5))
        #expect(try await #require(values.first).value() == 42)
    }

    @Test("a saved id: connect(to:as:) from a new central, and resolve that connects on the first call")
    func savedID() async throws {
        let pair = ConnectedPair()
        let counter = CounterActor(actorSystem: pair.peripheral)
        try await pair.peripheral.startAdvertising(counter)
        let saved = counter.id

        let second = pair.makeCentral()
        let connected = try await second.connect(to: saved, as: CounterActor.self)
        #expect(try await connected.increment() == 1)

        let third = pair.makeCentral()
        let resolved = try CounterActor.resolve(id: saved, using: third)
        #expect(await !third.isConnected(saved))
        #expect(try await resolved.increment() == 2)
        #expect(await third.isConnected(resolved))

        let unknown = try CounterActor.resolve(id: UUID(), using: pair.makeCentral(configuration: .init(connectionTimeout: .milliseconds(200))))
        await #expect(throws: BLEActorSystemError.self) { try await unknown.increment() }
    }

    @Test("a saved id resolved through a protocol its type does not list is found under its type's service")
    func savedIDThroughUnlistedProtocol() async throws {
        let pair = ConnectedPair()
        let plain = PlainThermometer(actorSystem: pair.peripheral)
        // The sensor lists the protocol, so a lookup by protocol reaches this peripheral, and
        // finds the plain thermometer there under its own type's service.
        try await pair.peripheral.startAdvertising(SensorActor(actorSystem: pair.peripheral), plain)
        let logs = CapturedLogs()
        let fresh = pair.makeCentral(configuration: .fast.logging(to: logs))
        let resolved = try $TemperatureReading.resolve(id: plain.id, using: fresh)
        #expect(try await Self.lookup(logs) { try await resolved.temperature() } == 19)
    }

    @Test("a saved id resolved through a protocol its type does not list is found by its id's hash; peripherals whose marker does not list it are not connected")
    func savedIDThroughUnlistedProtocolAlone() async throws {
        let pair = ConnectedPair()
        let plain = PlainThermometer(actorSystem: pair.peripheral)
        try await pair.peripheral.startAdvertising(plain)
        // Another peripheral hosting the same type: it advertises the same service, but its
        // marker does not list the saved id's hash.
        let neighbour = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: pair.bus), configuration: .fast)
        let other = PlainThermometer(actorSystem: neighbour)
        try await neighbour.startAdvertising(other)
        try #require(HostAdvertisement.hash(other.id) != HostAdvertisement.hash(plain.id), "the test's two ids share a hash")
        pair.bus.clearTrace()
        let logs = CapturedLogs()
        let fresh = pair.makeCentral(configuration: .fast.logging(to: logs))
        let resolved = try $TemperatureReading.resolve(id: plain.id, using: fresh)
        #expect(try await Self.lookup(logs) { try await resolved.temperature() } == 19)
        #expect(pair.bus.trace.filter { $0.kind == .connected }.count == 1, "only the peripheral that may host the id was connected")
    }

    @Test("isConnected follows the link; disconnect(from:) ends it and the next call reconnects")
    func connectionState() async throws {
        let pair = ConnectedPair()
        let counter = try await pair.host(CounterActor.self) { CounterActor(actorSystem: $0) }
        #expect(await pair.central.isConnected(counter))
        await pair.central.disconnect(from: counter)
        #expect(await !pair.central.isConnected(counter))
        #expect(try await counter.increment() == 1)
        #expect(await pair.central.isConnected(counter))
        // The link drops under the system's feet.
        let location = try #require(await pair.centralManager.retrieveConnectedPeripherals(withServices: []).first)
        pair.bus.loseLink(between: pair.centralManager, and: location.id)
        #expect(await !pair.central.isConnected(counter))
        #expect(try await counter.increment() == 2)
    }

    @Test("discovery with nothing advertised returns no actors at its timeout")
    func nothingFound() async throws {
        let pair = ConnectedPair()
        let found = try await pair.central.discover(CounterActor.self, timeout: .milliseconds(100))
        #expect(found.isEmpty)
    }

    @Test("systems are isolated: a peripheral system without a central manager cannot call, and vice versa")
    func roles() async throws {
        let pair = ConnectedPair()
        await #expect(throws: BleuError.self) { _ = try await pair.peripheral.discover(CounterActor.self, timeout: .milliseconds(10)) }
        await #expect(throws: BleuError.self) { try await pair.central.startAdvertising(CounterActor(actorSystem: pair.central)) }
    }
}
