import BleuCore
import Foundation
import Testing
@testable import BleuGATT

/// Health Thermometer Service characteristics against bytes built by hand from the GATT
/// Specification Supplement's field tables ("Temperature Measurement", "Date Time",
/// "Temperature Type", "Measurement Interval").
@Suite("Catalogue: Health Thermometer")
struct HealthThermometerTests {
    let measurement = HealthThermometerService.temperatureMeasurement

    // GSS "Temperature Measurement": Flags 0x00 (Celsius, no time stamp, no type);
    // Temperature Measurement Value FLOAT 36.4 = mantissa 364 (0x00016C), exponent −1 (0xFF)
    // → 0xFF00016C, sent least significant octet first.
    @Test("Celsius value only")
    func celsius() throws {
        let value = TemperatureMeasurement(temperature: try MedFloat32(mantissa: 364, exponent: -1))
        try expectBytes(measurement.codec, value, bytes("00 6C 01 00 FF"))
        #expect(try measurement.decode(bytes("00 6C 01 00 FF")).temperature.doubleValue == 36.4)
    }

    // Flags 0x07: Fahrenheit (bit 0), Time Stamp present (bit 1), Temperature Type present
    // (bit 2). Value 98.6 = 986e-1 (0xFF0003DA). Time Stamp (GSS "Date Time"): Year uint16
    // 2024 = 0x07E8, Month 3, Day 15, Hours 13, Minutes 45, Seconds 30. Temperature Type 6 (Mouth).
    @Test("Fahrenheit with time stamp and type")
    func everyField() throws {
        let data = bytes("07 DA 03 00 FF E8 07 03 0F 0D 2D 1E 06")
        let value = TemperatureMeasurement(temperature: try MedFloat32(mantissa: 986, exponent: -1), unit: .fahrenheit,
                                           timestamp: DateTime(year: 2024, month: 3, day: 15, hours: 13, minutes: 45, seconds: 30),
                                           type: .mouth)
        try expectBytes(measurement.codec, value, data)
    }

    // Flags 0x04: type only (bit 2), value NaN (0x007FFFFF) — a thermometer with no reading.
    @Test("type without time stamp, and a NaN reading")
    func typeOnly() throws {
        try expectBytes(measurement.codec, TemperatureMeasurement(temperature: .nan, type: .tympanum), bytes("04 FF FF 7F 00 09"))
    }

    @Test("flagged fields missing, trailing bytes, and out-of-range date fields are rejected")
    func malformed() {
        expectRejected(measurement.codec, bytes("00 6C 01 00"), .invalidLength)            // FLOAT cut short
        expectRejected(measurement.codec, bytes("02 6C 01 00 FF E8 07 03"), .invalidLength) // time stamp cut short
        expectRejected(measurement.codec, bytes("04 6C 01 00 FF"), .invalidLength)         // type flagged, absent
        expectRejected(measurement.codec, bytes("00 6C 01 00 FF 06"), .invalidLength)      // type present, not flagged
        expectRejected(measurement.codec, bytes("02 6C 01 00 FF E8 07 0D 0F 0D 2D 1E"), .valueNotAllowed) // month 13
        expectRejected(measurement.codec, bytes("04 6C 01 00 FF 0A"), .valueNotAllowed)   // type 10 reserved
        let error = codecError { () throws(GATTCodecError) in
            try HealthThermometerService.temperatureMeasurement.decode(bytes("02 6C 01 00 FF E8 07 03 0F 18 00 00"))
        }
        #expect(error?.path == ["Temperature Measurement", "Time Stamp", "Hours"])
        #expect(error?.expected == "0–23")
    }

    // GSS "Temperature Type": 1 Armpit … 9 Tympanum; 0 and 10–255 reserved.
    @Test("Temperature Type values")
    func temperatureType() throws {
        for type in TemperatureType.allCases {
            #expect(try HealthThermometerService.temperatureType.decode(Data([type.rawValue])) == type)
        }
        #expect(TemperatureType.armpit.rawValue == 1 && TemperatureType.tympanum.rawValue == 9)
        expectRejected(HealthThermometerService.temperatureType.codec, bytes("00"), .valueNotAllowed)
        expectRejected(HealthThermometerService.temperatureType.codec, bytes("0A"), .valueNotAllowed)
    }

    // GSS "Measurement Interval": uint16 seconds, 0 = no periodic measurement; 0x0E10 = 3600 s.
    @Test("Measurement Interval, and a writable one restricted to a valid range answering 0xFF")
    func measurementInterval() throws {
        try expectBytes(HealthThermometerService.measurementInterval.codec, 3600, bytes("10 0E"))
        try expectBytes(HealthThermometerService.measurementInterval.codec, 0, bytes("00 00"))
        let writable = Characteristic<UInt16>(BluetoothUUID.Characteristic.measurementInterval,
                                              codec: IntegerCodec<UInt16>().restricted(to: 0...3600, answering: .outOfRange),
                                              properties: [.read, .write, .indicate])
        let error = codecError { () throws(GATTCodecError) in try writable.decode(bytes("11 0E")) }
        #expect(error?.attError == .outOfRange)
        #expect(writable.permissions == AttributePermissions.readWrite)
    }

    @Test("a Date Time converts to and from Foundation dates; unknown fields give no date")
    func dateConversion() throws {
        let utc = TimeZone(identifier: "UTC")!
        let time = DateTime(year: 2024, month: 2, day: 29, hours: 23, minutes: 59, seconds: 58)
        let date = try #require(time.date(in: utc))
        #expect(date.timeIntervalSince1970 == 1_709_251_198)
        #expect(DateTime(date, in: utc) == time)
        #expect(DateTime(year: 0, month: 2, day: 29).date(in: utc) == nil)
        #expect(DateTime(year: 2023, month: 2, day: 29).date(in: utc) == nil)
        // GSS "Date Time": Year 0 is "not known"; 1–1581 are outside 1582–9999.
        try expectBytes(DateTime.codec, DateTime(year: 0, month: 0, day: 0), bytes("00 00 00 00 00 00 00"))
        expectRejected(DateTime.codec, bytes("0F 00 01 01 00 00 00"), .valueNotAllowed)
    }
}
