import BleuCore
import BleuEmulator
import BleuOrchestration
import Foundation
import Testing
@testable import BleuGATT

/// A typed peripheral kept connected by the fleet orchestrator: re-discovered and
/// re-subscribed on every link, its typed stream going on across links.
@Suite("Typed peripherals kept connected by FleetOrchestrator", .timeLimit(.minutes(1)))
struct KeptPeripheralTests {
    struct World {
        let bus: EmulatorBus
        let peripheral: EmulatedPeripheralManager
        let heartRate: HostedService
        let central: EmulatedCentralManager
        let id: UUID
        let straps: KeptPeripherals<HeartRateStrap>
        let fleet: FleetOrchestrator
    }

    /// A strap (Heart Rate and Battery at 87 %) and a fleet that keeps it as a `HeartRateStrap`.
    static func world() async throws -> World {
        let bus = EmulatorBus(configuration: .instant)
        let peripheral = EmulatedPeripheralManager(bus: bus)
        let server = GATTServer(peripheral: peripheral)
        let heartRate = try await server.host(HeartRateService.self)
        let battery = try await server.host(BatteryService.self)
        try battery.setValue(87, for: BatteryService.level)
        try await peripheral.startAdvertising(AdvertisingData(flags: .leGeneralDiscoverable, localName: "Strap",
                                                              serviceUUIDs: [HeartRateService.uuid]))
        let central = EmulatedCentralManager(bus: bus)
        let id = try await central.discover(name: "Strap")
        let straps = KeptPeripherals<HeartRateStrap>(central: central)
        let configuration = FleetConfiguration(profile: DeviceProfile(service: HeartRateService.uuid, subscriptions: [],
                                                                      writeCharacteristic: nil))
        let fleet = FleetOrchestrator(central: central, configuration: configuration, clock: ContinuousClock(), seed: 7,
                                      store: InMemoryPinnedDeviceStore(),
                                      setUp: LinkSetUp(prepare: straps.prepare, linkEnded: straps.linkEnded))
        return World(bus: bus, peripheral: peripheral, heartRate: heartRate, central: central, id: id, straps: straps, fleet: fleet)
    }

    @Test("after a link loss the strap is discovered and subscribed again, and the same stream goes on")
    func streamContinuesAcrossLinks() async throws {
        let world = try await Self.world()
        var values = world.straps.updates(of: world.id, in: HeartRateService.self, \.measurement).makeAsyncIterator()
        var peripheralEvents = world.peripheral.events()
        await world.fleet.pin(world.id)
        await world.fleet.start()

        for (link, rate) in [(1, UInt16(70)), (2, 71), (3, 72)] {
            _ = await peripheralEvents.first { if case .subscribed = $0 { true } else { false } }
            try await world.heartRate.notify(HeartRateService.measurement, HeartRateMeasurement(heartRate: rate))
            #expect(try await values.next()?.heartRate == rate, "link \(link)")
            let strap = try #require(world.straps.device(world.id), "the device is set up on link \(link)")
            #expect(try await strap.battery?.read(\.level) == 87)
            world.bus.loseLink(between: world.central, and: world.id)
        }
        await world.fleet.shutdown()
    }

    @Test("a link whose set-up finds the required service gone ends the stream with that typed error")
    func databaseChanged() async throws {
        let world = try await Self.world()
        var values = world.straps.updates(of: world.id, in: HeartRateService.self, \.measurement).makeAsyncIterator()
        var peripheralEvents = world.peripheral.events()
        await world.fleet.pin(world.id)
        await world.fleet.start()
        _ = await peripheralEvents.first { if case .subscribed = $0 { true } else { false } }
        try await world.heartRate.notify(HeartRateService.measurement, HeartRateMeasurement(heartRate: 66))
        #expect(try await values.next()?.heartRate == 66)

        // A firmware update without the Heart Rate service.
        try await world.heartRate.remove()
        world.bus.loseLink(between: world.central, and: world.id)
        let expected = GATTError.serviceNotFound(service: try #require(HeartRateService.uuid.name), uuid: HeartRateService.uuid,
                                                 peripheral: world.id)
        await #expect(throws: expected) { _ = try await values.next() }
        #expect(world.straps.device(world.id) == nil)
        await world.fleet.shutdown()
    }

    @Test("a stream its consumer dropped leaves the device's streams; a stream for a service the device lacks finishes")
    func droppedAndAbsent() async throws {
        let world = try await Self.world()
        do {
            _ = world.straps.updates(of: world.id, in: HeartRateService.self, \.measurement)
        }
        #expect(world.straps.streamCount(of: world.id) == 0, "a dropped stream is not kept")
        var absent = world.straps.updates(of: world.id, in: HealthThermometerService.self, \.temperatureMeasurement).makeAsyncIterator()
        #expect(world.straps.streamCount(of: world.id) == 1)
        await world.fleet.pin(world.id)
        await world.fleet.start()
        #expect(try await absent.next() == nil, "the strap has no thermometer: nothing to wait for")
        await world.fleet.shutdown()
    }
}
