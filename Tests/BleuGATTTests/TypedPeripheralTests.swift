import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuGATT

/// A heart-rate strap as a kind of peripheral: Heart Rate required (its measurement subscribed
/// as the strap connects), Battery optional.
struct HeartRateStrap: GATTPeripheral {
    static var services: [PeripheralServiceDeclaration] {
        RequiredService(HeartRateService.self, subscribing: \.measurement)
        OptionalService(BatteryService.self)
    }

    let heartRate: TypedGATTService<HeartRateService>
    let battery: TypedGATTService<BatteryService>?
    let undeclared: [UndeclaredService]

    init(_ services: DiscoveredServices) throws(GATTError) {
        heartRate = try services.required(HeartRateService.self)
        battery = services.optional(BatteryService.self)
        undeclared = services.undeclared
    }
}

/// A peripheral type whose initialiser refuses the device after discovery (a battery it
/// requires in code, though declared optional).
struct PickyStrap: GATTPeripheral {
    static var services: [PeripheralServiceDeclaration] {
        RequiredService(HeartRateService.self, subscribing: \.measurement)
        OptionalService(BatteryService.self)
    }

    let battery: TypedGATTService<BatteryService>

    init(_ services: DiscoveredServices) throws(GATTError) {
        battery = try services.required(BatteryService.self)
    }
}

@Suite("Typed peripherals: a kind of device, discovered and subscribed as it connects", .timeLimit(.minutes(1)))
struct TypedPeripheralTests {
    /// A strap hosting Heart Rate, optionally Battery, and whatever else `extra` hosts.
    static func strap(battery: Bool = true, extra: @escaping @Sendable (GATTServer) async throws -> Void = { _ in })
        async throws -> (GATTFixture, HostedService) {
        try await GATTFixture.make { server in
            let heartRate = try await server.host(HeartRateService.self) { handlers in
                handlers.onRead(HeartRateService.bodySensorLocation) { _ in .wrist }
            }
            if battery {
                let hosted = try await server.host(BatteryService.self)
                try hosted.setValue(87, for: BatteryService.level)
            }
            try await extra(server)
            return heartRate
        }
    }

    @Test("the declared services come typed: a read by key path, and a value sent right after connecting is in the declared subscription's stream")
    func typedServicesAndDeclaredSubscription() async throws {
        let (fixture, heartRate) = try await Self.strap()
        var peripheralEvents = fixture.peripheral.events()
        let strap = try await HeartRateStrap.discover(using: fixture.client)
        // Subscribed during discovery, before anyone asked for the values.
        try #require(await strap.heartRate.isNotifying(\.measurement))
        _ = await peripheralEvents.first { if case .subscribed = $0 { true } else { false } }
        try await heartRate.notify(HeartRateService.measurement, HeartRateMeasurement(heartRate: 71))
        try await heartRate.notify(HeartRateService.measurement, HeartRateMeasurement(heartRate: 72))

        #expect(try await strap.battery?.read(\.level) == 87)
        #expect(try await strap.heartRate.read(\.bodySensorLocation) == .wrist)
        var values = try await strap.heartRate.updates(\.measurement).makeAsyncIterator()
        #expect(try await values.next()?.heartRate == 71, "the value sent before updates(_:) was asked for is not lost")
        #expect(try await values.next()?.heartRate == 72)
        #expect(strap.undeclared.isEmpty)
        // Only the characteristics the service types declare were discovered.
        let declared = Set(HeartRateService.declaration.characteristicUUIDs)
        #expect(Set(strap.heartRate.remote.characteristics.map(\.uuid)).isSubset(of: declared))
    }

    @Test("a second updates(_:) subscribes anew; both streams get the values")
    func secondUpdates() async throws {
        let (fixture, heartRate) = try await Self.strap()
        let strap = try await HeartRateStrap.discover(using: fixture.client)
        var first = try await strap.heartRate.updates(\.measurement).makeAsyncIterator()
        var second = try await strap.heartRate.updates(\.measurement).makeAsyncIterator()
        #expect(fixture.client.openStreams(of: try strap.heartRate.remote.remote(HeartRateService.measurement)) == 2)
        try await heartRate.notify(HeartRateService.measurement, HeartRateMeasurement(heartRate: 90))
        #expect(try await first.next()?.heartRate == 90)
        #expect(try await second.next()?.heartRate == 90)
    }

    @Test("an optional service the device lacks is nil; a required one fails the connection with serviceNotFound and cancels it")
    func missingServices() async throws {
        let (fixture, _) = try await Self.strap(battery: false)
        let strap = try await HeartRateStrap.discover(using: fixture.client)
        #expect(strap.battery == nil)

        // A device without Heart Rate: connecting through the type fails and leaves no link.
        let bus = EmulatorBus(configuration: .instant)
        let peripheral = EmulatedPeripheralManager(bus: bus)
        let server = GATTServer(peripheral: peripheral)
        _ = try await server.host(BatteryService.self)
        try await peripheral.startAdvertising(AdvertisingData(flags: .leGeneralDiscoverable, localName: "NoHR"))
        let central = EmulatedCentralManager(bus: bus)
        let id = try await central.discover(name: "NoHR")
        let error = await thrown { try await HeartRateStrap.connect(id, using: central) }
        #expect(error as? GATTError == .serviceNotFound(service: "Heart Rate", uuid: HeartRateService.uuid, peripheral: id))
        #expect(await !central.isConnected(id), "the connection made for the discovery is cancelled")
    }

    @Test("connect(_:using:) connects, discovers and subscribes")
    func connectThroughTheType() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let peripheral = EmulatedPeripheralManager(bus: bus)
        let server = GATTServer(peripheral: peripheral)
        let heartRate = try await server.host(HeartRateService.self)
        try await peripheral.startAdvertising(AdvertisingData(flags: .leGeneralDiscoverable, localName: "Strap"))
        let central = EmulatedCentralManager(bus: bus)
        let id = try await central.discover(name: "Strap")
        var events = peripheral.events()
        let strap = try await HeartRateStrap.connect(id, using: central)
        #expect(await central.isConnected(id))
        try #require(await strap.heartRate.isNotifying(\.measurement))
        _ = await events.first { if case .subscribed = $0 { true } else { false } }
        try await heartRate.notify(HeartRateService.measurement, HeartRateMeasurement(heartRate: 64))
        var values = try await strap.heartRate.updates(\.measurement).makeAsyncIterator()
        #expect(try await values.next()?.heartRate == 64)
    }

    @Test("when the type's initialiser refuses the device, the subscriptions discovery made are ended")
    func refusedByTheInitialiser() async throws {
        let (fixture, _) = try await Self.strap(battery: false)
        let error = await thrown { try await PickyStrap.discover(using: fixture.client) }
        #expect(error as? GATTError == .serviceNotFound(service: try #require(BatteryService.uuid.name), uuid: BatteryService.uuid, peripheral: fixture.client.peripheral))
        let heartRate = try await fixture.client.discover(HeartRateService.self)
        let measurement = try heartRate.remote(HeartRateService.measurement)
        #expect(fixture.client.openStreams(of: measurement) == 0)
        #expect(await !fixture.client.isNotifying(measurement))
    }

    @Test("asked for everything: undeclared services typed by the data source (the SIG catalogue, or a list of your own), the unknown ones as bytes")
    func everything() async throws {
        let unknown = BluetoothUUID(string: "0D5A0000-1111-4222-8333-444455556666")!
        let unknownValue = BluetoothUUID(string: "0D5A0001-1111-4222-8333-444455556666")!
        let (fixture, _) = try await Self.strap { server in
            _ = try await server.host(DeviceInformationService.declaration {
                try DeviceInformationService.manufacturerName.value("Acme")
            })
            let thermostat = try await server.host(ReadmeThermostatService.self)
            try thermostat.setValue(2150, for: ReadmeThermostatService.target)
            _ = try await server.host(ServiceDeclaration(unknown, characteristics: [
                CharacteristicDeclaration(uuid: unknownValue, name: "Unknown", properties: [.read],
                                          permissions: [.readable], descriptors: [], value: Data([0xCA, 0xFE])),
            ]))
        }
        let declaredOnly = try await HeartRateStrap.discover(using: fixture.client)
        #expect(declaredOnly.undeclared.isEmpty)

        let strap = try await HeartRateStrap.discover(using: fixture.client, scope: .everything,
                                                     dataSource: ServiceTypeList([ReadmeThermostatService.self]))
        let services = try await DiscoveredServices.discover(HeartRateStrap.services, using: fixture.client, scope: .everything,
                                                             dataSource: ServiceTypeList([ReadmeThermostatService.self]))
        #expect(Set(strap.undeclared.map(\.uuid)) == [DeviceInformationService.uuid, ReadmeThermostatService.uuid, unknown])
        let information = try #require(services.typed(DeviceInformationService.self), "typed by the SIG catalogue")
        #expect(try await information.read(\.manufacturerName) == "Acme")
        let thermostat = try #require(services.typed(ReadmeThermostatService.self), "typed by the app's list")
        #expect(try await thermostat.read(\.target) == 2150)
        let raw = try #require(strap.undeclared.first { $0.uuid == unknown })
        #expect(raw.type == nil)
        #expect(try await raw.remote.read(unknownValue) == Data([0xCA, 0xFE]))
        // The catalogue alone does not know the thermostat: bytes.
        let catalogueOnly = try await HeartRateStrap.discover(using: fixture.client, scope: .everything)
        #expect(catalogueOnly.undeclared.first { $0.uuid == ReadmeThermostatService.uuid }?.type == nil)
        #expect(catalogueOnly.undeclared.first { $0.uuid == DeviceInformationService.uuid }?.type.map(ObjectIdentifier.init) == ObjectIdentifier(DeviceInformationService.self))
    }

    @Test("asked for everything, a declared service's characteristics its type does not declare come too: bytes, or typed at run time")
    func undeclaredCharacteristics() async throws {
        let vendorCalibration = Characteristic<UInt16>("0D5A0101-1111-4222-8333-444455556666", name: "Calibration",
                                                       codec: .uint16, properties: [.read])
        let (fixture, _) = try await GATTFixture.make { server in
            // A strap whose Heart Rate service carries a vendor characteristic besides the SIG's.
            let hosted = try await server.host(ServiceDeclaration(HeartRateService.uuid,
                                                                  characteristics: HeartRateService.characteristics + [vendorCalibration.declaration]))
            try hosted.setValue(0x0102, for: vendorCalibration)
            return hosted
        }
        let declaredOnly = try await HeartRateStrap.discover(using: fixture.client)
        #expect(declaredOnly.heartRate.undeclaredCharacteristics.isEmpty, "only what the type declares is discovered")

        let strap = try await HeartRateStrap.discover(using: fixture.client, scope: .everything)
        #expect(strap.heartRate.undeclaredCharacteristics.map(\.uuid) == [vendorCalibration.uuid])
        #expect(try await strap.heartRate.remote.read(vendorCalibration.uuid) == Data([0x02, 0x01]))
        #expect(try await strap.heartRate.remote.read(vendorCalibration) == 0x0102)
    }
}
