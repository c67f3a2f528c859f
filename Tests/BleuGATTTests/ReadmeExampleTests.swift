import BleuCore
import Foundation
import Testing
import BleuGATT
import BleuEmulator

enum ReadmeMode: UInt8, Sendable, CaseIterable { case off, heat, cool }

/// The README's BleuGATT example, compiled and run as written (the enum renamed to keep the
/// test target's names apart).
enum ReadmeThermostatService: GATTService {
    static let uuid: BluetoothUUID = "9F1E0000-7B51-4C9A-9E2A-1B2C3D4E5F60"
    static let target = Characteristic<Int16>(
        "9F1E0001-7B51-4C9A-9E2A-1B2C3D4E5F60", codec: .sint16, properties: [.read, .write, .notify],
        userDescription: "Target temperature",
        presentationFormat: PresentationFormat(format: .sint16, exponent: -2, unit: PresentationFormat.Unit.degreeCelsius))
    static let mode = Characteristic<ReadmeMode>(
        "9F1E0002-7B51-4C9A-9E2A-1B2C3D4E5F60", codec: .enumeration(ReadmeMode.self), properties: [.read, .write])

    static var characteristics: [CharacteristicDeclaration] {
        target
        mode
    }
}

@Test("README BleuGATT example")
func readmeGATTExample() throws {
    let definition = try ReadmeThermostatService.declaration.definition()
    let info = try DeviceInformationService.declaration {
        try DeviceInformationService.manufacturerName.value("Acme")
        try DeviceInformationService.modelNumber.value("Thermo 2")
    }
    let bytes = try HeartRateService.measurement.encode(HeartRateMeasurement(heartRate: 72, rrIntervals: [800]))
    let measurement = try HeartRateService.measurement.decode(bytes)
    var printed = ""
    do {
        _ = try BatteryService.level.decode(Data([101]))
    } catch {
        printed = "\(error)"
    }
    #expect(definition.characteristics.count == 2)
    #expect(try info.definition().characteristics.map(\.value) == [Data("Acme".utf8), Data("Thermo 2".utf8)])
    #expect(measurement.heartRate == 72 && measurement.rrIntervalSeconds == [0.78125])
    #expect(printed == "Battery Level: expected 0–100, found 101 (answered with ATT error 0x13, Value Not Allowed)")
}

@Test("README typed central and peripheral example")
func readmeTypedExample() async throws {
    var printed: [String] = []
    func print(_ value: Any) { printed.append("\(value)") }

    let bus = EmulatorBus(configuration: .instant)             // any backend's managers will do
    let peripheral = EmulatedPeripheralManager(bus: bus)
    let server = GATTServer(peripheral: peripheral)
    let sensor = try await server.host(HeartRateService.self) { handlers in
        handlers.onRead(HeartRateService.bodySensorLocation) { _ in .chest }
    }
    try await peripheral.startAdvertising(AdvertisingData(localName: "HR"))

    let central = EmulatedCentralManager(bus: bus)
    let id = try await central.scan().first { $0.localName == "HR" }!.peripheral
    try await central.connect(id)
    let heartRate = try await GATTClient(central: central, peripheral: id).discover(HeartRateService.self)
    print(try await heartRate.read(HeartRateService.bodySensorLocation))       // chest
    let beats = try await heartRate.subscribe(to: HeartRateService.measurement)
    try await sensor.notify(HeartRateService.measurement, HeartRateMeasurement(heartRate: 72, rrIntervals: [800]))
    for try await beat in beats { print(beat.heartRate); break }              // 72

    #expect(printed == ["chest", "72"])
}
