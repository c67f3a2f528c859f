import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuGATT

/// The Health Thermometer, Current Time and Environmental Sensing profiles end to end on the
/// emulator: a typed peripheral, a typed central, the radio protocols in between.
@Suite("Typed GATT on the emulator: thermometer indications, current time, environment")
struct TimeAndEnvironmentProfileTests {
    @Test("indications of the indicate-only Temperature Measurement arrive decoded, in order, each confirmed before the next goes")
    func thermometerIndications() async throws {
        let (fixture, thermometer) = try await GATTFixture.make { server in
            try await server.host(HealthThermometerService.self) { handlers in
                handlers.onRead(HealthThermometerService.temperatureType) { _ in .mouth }
            }
        }
        let measurements = [
            TemperatureMeasurement(temperature: try MedFloat32(mantissa: 364, exponent: -1)),
            TemperatureMeasurement(temperature: try MedFloat32(mantissa: 986, exponent: -1), unit: .fahrenheit,
                                   timestamp: DateTime(year: 2026, month: 11, day: 24, hours: 7, minutes: 30, seconds: 5),
                                   type: .mouth),
            TemperatureMeasurement(temperature: try MedFloat32(mantissa: 3712, exponent: -2), type: .tympanum),
            TemperatureMeasurement(temperature: .positiveInfinity),
            TemperatureMeasurement(temperature: try MedFloat32(mantissa: -5, exponent: 0), unit: .celsius,
                                   timestamp: DateTime(year: 0, month: 0, day: 0)),
        ]
        var peripheralEvents = fixture.peripheral.events()
        let remote = try await fixture.client.discover(HealthThermometerService.self)
        let measurementHandle = try remote.remote(HealthThermometerService.temperatureMeasurement).valueHandle
        let stream = try await remote.subscribe(to: HealthThermometerService.temperatureMeasurement)
        _ = await peripheralEvents.first { if case .subscribed = $0 { true } else { false } }

        for measurement in measurements {
            try await thermometer.notify(HealthThermometerService.temperatureMeasurement, measurement)
        }
        var received: [TemperatureMeasurement] = []
        for try await measurement in stream {
            received.append(measurement)
            if received.count == measurements.count { break }
        }
        #expect(received == measurements)

        // A read after the last value: its request follows the last confirmation on the link.
        #expect(try await remote.read(HealthThermometerService.temperatureType) == .mouth)
        let exchange = fixture.bus.trace.filter { event in
            event.kind == .att && (event.opcode == 0x1D && event.handle == measurementHandle || event.opcode == 0x1E)
        }
        let indication: UInt8 = 0x1D, confirmation: UInt8 = 0x1E
        #expect(exchange.map(\.opcode) == Array(repeating: [indication, confirmation], count: measurements.count).flatMap { $0 },
                "every indication confirmed by the central, and none sent while one was unconfirmed")
        #expect(exchange.allSatisfy { $0.direction == ($0.opcode == indication ? .peripheralToCentral : .centralToPeripheral) })
        #expect(!fixture.bus.trace.contains { $0.kind == .att && $0.opcode == 0x1B }, "no notification: the characteristic only indicates")
    }

    @Test("a typed Current Time read, from a handler")
    func currentTimeRead() async throws {
        let now = CurrentTime(
            exactTime256: ExactTime256(
                dayDateTime: DayDateTime(dateTime: DateTime(year: 2026, month: 11, day: 24, hours: 10, minutes: 15, seconds: 42),
                                         dayOfWeek: .tuesday),
                fractions256: 0x40),
            adjustReason: [.externalReferenceTimeUpdate, .changeOfDST])
        let (fixture, _) = try await GATTFixture.make { server in
            try await server.host(CurrentTimeService.self) { handlers in
                handlers.onRead(CurrentTimeService.currentTime) { _ in now }
            }
        }
        let remote = try await fixture.client.discover(CurrentTimeService.self)
        #expect(try await remote.read(CurrentTimeService.currentTime) == now)
        // The bytes on air are the specification's 10-byte layout.
        #expect(try await remote.read(CurrentTimeService.currentTime.uuid) == bytes("EA 07 0B 18 0A 0F 2A 02 40 0A"))
    }

    @Test("typed Environmental Sensing reads, the 'not known' values included")
    func environmentalSensingRead() async throws {
        let (fixture, sensor) = try await GATTFixture.make { server in
            try await server.host(EnvironmentalSensingService.self)
        }
        let temperature = try Temperature(celsius: -12.34)
        let humidity = try Humidity(percent: 45.5)
        let pressure = try Pressure(pascals: 101_325.2)
        try sensor.setValue(temperature, for: EnvironmentalSensingService.temperature)
        try sensor.setValue(humidity, for: EnvironmentalSensingService.humidity)
        try sensor.setValue(pressure, for: EnvironmentalSensingService.pressure)

        let remote = try await fixture.client.discover(EnvironmentalSensingService.self)
        #expect(try await remote.read(EnvironmentalSensingService.temperature).celsius == -12.34)
        #expect(try await remote.read(EnvironmentalSensingService.humidity).percent == 45.5)
        #expect(try await remote.read(EnvironmentalSensingService.pressure).pascals == 101_325.2)
        // sint16 −1234 = 0xFB2E; uint16 4550 = 0x11C6; uint32 1013252 = 0x000F7604.
        #expect(try await remote.read(EnvironmentalSensingService.temperature.uuid) == bytes("2E FB"))
        #expect(try await remote.read(EnvironmentalSensingService.humidity.uuid) == bytes("C6 11"))
        #expect(try await remote.read(EnvironmentalSensingService.pressure.uuid) == bytes("04 76 0F 00"))

        try sensor.setValue(.unknown, for: EnvironmentalSensingService.temperature)
        try sensor.setValue(.unknown, for: EnvironmentalSensingService.humidity)
        #expect(try await remote.read(EnvironmentalSensingService.temperature) == .unknown)
        #expect(try await remote.read(EnvironmentalSensingService.temperature).celsius == nil)
        #expect(try await remote.read(EnvironmentalSensingService.humidity).percent == nil)
    }
}
