import BleuCore
import BleuGATT
import BleuOrchestration
import Foundation
import Logging
import Testing

/// A heart-rate strap as a kind of device: Heart Rate required (its measurement subscribed as
/// it connects), Battery optional.
private struct Strap: GATTPeripheral {
    static var services: [PeripheralServiceDeclaration] {
        RequiredService(HeartRateService.self, subscribing: \.measurement)
        OptionalService(BatteryService.self)
    }

    let heartRate: TypedGATTService<HeartRateService>
    let battery: TypedGATTService<BatteryService>?

    init(_ services: DiscoveredServices) throws(GATTError) {
        heartRate = try services.required(HeartRateService.self)
        battery = services.optional(BatteryService.self)
    }
}

extension EveryBackend {
    @Suite("typed devices: connected through their type, and kept connected by the orchestrator", .timeLimit(.minutes(1)))
    struct TypedDeviceScenarios {
        @Test("a strap kept by the orchestrator: discovered and subscribed on each link, one stream across a lost link",
              arguments: Backend.available)
        func keptAcrossLinks(_ backend: Backend) async throws {
            let radios = try await backend.makePair()
            defer { radios.stop() }
            let sensor = try await GATTServer(peripheral: radios.peripheral).host(HeartRateService.self) { handlers in
                handlers.onRead(HeartRateService.bodySensorLocation) { _ in .chest }
            }
            let peripheralEvents = radios.peripheral.events()
            try await radios.peripheral.startAdvertising(AdvertisingData(localName: "Strap", serviceUUIDs: [HeartRateService.uuid]),
                                                          scanResponse: nil)
            // One measurement to each central that subscribes: 70 on the first link, 71 on the second.
            let sender = Task {
                var rate: UInt16 = 70
                for await case .subscribed(let central, _) in peripheralEvents {
                    try await sensor.notify(HeartRateService.measurement, HeartRateMeasurement(heartRate: rate), to: [central])
                    rate += 1
                }
            }
            defer { sender.cancel() }
            let found = try #require(try await radios.central.scan(ScanOptions(services: [HeartRateService.uuid])).first { _ in true })
            await radios.central.stopScan()

            let straps = KeptPeripherals<Strap>(central: radios.central)
            var logger = Logger(label: "conformance")
            logger.logLevel = .critical
            let fleet = FleetOrchestrator(central: radios.central,
                                          configuration: .init(profile: DeviceProfile(service: HeartRateService.uuid, subscriptions: [],
                                                                                      writeCharacteristic: nil)),
                                          clock: ContinuousClock(), logger: logger, store: InMemoryPinnedDeviceStore([found.peripheral]),
                                          setUp: LinkSetUp(prepare: straps.prepare, linkEnded: straps.linkEnded))
            var beats = straps.updates(of: found.peripheral, in: HeartRateService.self, \.measurement).makeAsyncIterator()
            await fleet.start()
            #expect(try await beats.next()?.heartRate == 70)
            let strap = try #require(straps.device(found.peripheral))
            #expect(try await strap.heartRate.read(\.bodySensorLocation) == .chest)
            #expect(strap.battery == nil, "the sensor hosts no Battery service")
            try radios.loseLink(found.peripheral)  // the orchestrator reconnects; the strap is set up again
            #expect(try await beats.next()?.heartRate == 71, "the same stream, the second link's subscription")
            await fleet.shutdown()
        }
    }
}
