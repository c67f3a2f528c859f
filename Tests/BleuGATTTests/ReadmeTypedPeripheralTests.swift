import BleuCore
import BleuEmulator
import Foundation
import Testing
import BleuGATT

// The README's "A typed device: peripheral and central" quotes the code between the "README:"
// markers below verbatim; change both together. This file imports BleuGATT as a user would
// (not @testable), so the example compiles against the public API only.

@Suite("README: a typed device, peripheral and central", .timeLimit(.minutes(1)))
struct ReadmeTypedPeripheralTests {
    // README: typed device — begin
    struct HeartRateStrap: GATTPeripheral {
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
    // README: typed device — end

    @Test("the README's example runs as written")
    func example() async throws {
        // README: typed device usage — begin
        let bus = EmulatorBus(configuration: .instant)             // any backend's managers will do
        let peripheral = EmulatedPeripheralManager(bus: bus)
        let server = GATTServer(peripheral: peripheral)
        let sensor = try await server.host(HeartRateService.self) { handlers in
            handlers.onRead(HeartRateService.bodySensorLocation) { _ in .chest }
        }
        try await peripheral.startAdvertising(AdvertisingData(localName: "HR"))

        let central = EmulatedCentralManager(bus: bus)
        let id = try await central.scan().first { $0.localName == "HR" }!.peripheral
        let strap = try await HeartRateStrap.connect(id, using: central)     // discovers, subscribes
        let location = try await strap.heartRate.read(\.bodySensorLocation)   // .chest
        let level = try await strap.battery?.read(\.level)                   // nil: this strap has none
        try await sensor.notify(HeartRateService.measurement, HeartRateMeasurement(heartRate: 72, rrIntervals: [800]))
        var beats = try await strap.heartRate.updates(\.measurement).makeAsyncIterator()
        let beat = try await beats.next()                                    // 72 bpm, sent before updates(_:)
        // README: typed device usage — end
        #expect(location == .chest)
        #expect(level == nil)
        #expect(beat?.heartRate == 72 && beat?.rrIntervals == [800])
    }

    @Test("the README's code blocks and this file's README regions are the same lines")
    func readmeInSync() throws {
        try ReadmeRegions.expectInSync(heading: "### A typed device: peripheral and central",
                                       regions: ["typed device", "typed device usage"])
    }
}
