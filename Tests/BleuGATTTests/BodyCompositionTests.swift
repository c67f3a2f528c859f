import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuGATT

/// Body Composition Service characteristics against bytes built by hand from the GATT
/// Specification Supplement's "Body Composition Measurement" and "Body Composition Feature"
/// tables, then end to end on the emulator.
///
/// Checked against the SIG's GATT XML definitions (org.bluetooth.characteristic.*.xml as
/// published in the oesmith/gatt-xml collection):
/// - body_composition_measurement.xml: Flags 16 bits, bits 0–12 (bit 0 imperial, bit 12
///   Multiple Packet Measurement); field order; Body Fat Percentage uint16 (decimal exponent −1);
///   User ID uint8 (255 unknown); Basal Metabolism uint16 (decimal exponent 3 J, kJ); Muscle
///   Percentage uint16 (0.1 %); masses uint16 (0.005 kg or 0.01 lb); Impedance uint16 (0.1 Ω);
///   Height uint16 (0.001 m or 0.1 in). (The XML's "Soft Lean Mass – Pounds" names the kilogram
///   as its unit, an evident slip in the XML; the pound is kept.)
/// - body_composition_feature.xml: 32 bits, bits 0–10, Mass Measurement Resolution 4 bits at
///   bit 11, Height Measurement Resolution 3 bits at bit 15.
///
/// Not checked there: the 0xFFFF "measurement unsuccessful" Body Fat Percentage is from memory
/// of the Body Composition Service specification.
@Suite("Catalogue: Body Composition")
struct BodyCompositionTests {
    let measurement = BodyCompositionService.measurement

    // Flags 0x0000 (uint16): SI, Body Fat Percentage only: 23.5 % = 235 × 0.1 % = 0x00EB.
    @Test("body fat only")
    func bodyFatOnly() throws {
        try expectBytes(measurement.codec, BodyCompositionMeasurement(bodyFatPercentage: 235), bytes("00 00 EB 00"))
    }

    // Flags 0x1FFF: imperial (bit 0), bits 1–11 every field, Multiple Packet Measurement (bit
    // 12). Body fat 0x00EB; Time Stamp 2026-11-29 07:05:09 (EA 07 0B 1D 07 05 09); User ID 4;
    // Basal Metabolism 7000 kJ = 0x1B58; Muscle Percentage 41.2 % = 0x019C; Muscle Mass 65 lb =
    // 6500 × 0.01 = 0x1964; Fat Free Mass 120 lb = 0x2EE0; Soft Lean Mass 110 lb = 0x2AF8; Body
    // Water Mass 80 lb = 0x1F40; Impedance 500 Ω = 5000 × 0.1 = 0x1388; Weight 160 lb = 0x3E80;
    // Height 70 in = 700 × 0.1 = 0x02BC.
    @Test("every field, imperial, as one of several packets")
    func everyField() throws {
        let value = BodyCompositionMeasurement(
            bodyFatPercentage: 235, units: .imperial,
            timestamp: DateTime(year: 2026, month: 11, day: 29, hours: 7, minutes: 5, seconds: 9), userID: 4,
            basalMetabolism: 7000, musclePercentage: 412, muscleMass: 6500, fatFreeMass: 12000, softLeanMass: 11000,
            bodyWaterMass: 8000, impedance: 5000, weight: 16000, height: 700, isMultiplePacketMeasurement: true)
        let data = bytes("FF 1F EB 00 EA 07 0B 1D 07 05 09 04 58 1B 9C 01 64 19 E0 2E F8 2A 40 1F 88 13 80 3E BC 02")
        try expectBytes(measurement.codec, value, data)
        #expect(value.units.mass(16000) == 160 && value.units.height(700) == 70)
    }

    // Flags 0x0408: Basal Metabolism (bit 3) and Weight (bit 10) — in the field order, basal
    // first, whatever order the flags are set in: 0x1B58 then 0x3E80 (SI: 80 kg = 16000 × 0.005).
    @Test("optional fields keep the table's order")
    func fieldOrder() throws {
        try expectBytes(measurement.codec, BodyCompositionMeasurement(bodyFatPercentage: 235, basalMetabolism: 7000, weight: 16000),
                        bytes("08 04 EB 00 58 1B 80 3E"))
        try expectBytes(measurement.codec, BodyCompositionMeasurement(bodyFatPercentage: 235, isMultiplePacketMeasurement: true),
                        bytes("00 10 EB 00"))
        #expect(BodyMeasurementUnits.si.mass(16000) == 80)
    }

    @Test("reserved flag bits are ignored when read and written 0; missing fields are refused naming the field")
    func reservedAndMalformed() throws {
        let reserved = try measurement.decode(bytes("00 E0 EB 00"))
        #expect(reserved == BodyCompositionMeasurement(bodyFatPercentage: 235))
        #expect(try measurement.encode(reserved) == bytes("00 00 EB 00"))
        let weight = codecError { () throws(GATTCodecError) in try measurement.decode(bytes("00 04 EB 00 80")) }
        #expect(weight?.path == ["Body Composition Measurement", "Weight"])
        #expect(weight?.kind == .invalidLength)
        let flags = codecError { () throws(GATTCodecError) in try measurement.decode(bytes("00")) }
        #expect(flags?.path == ["Body Composition Measurement", "Flags"])
        expectRejected(measurement.codec, bytes("00 00 EB 00 00"), .invalidLength)
        #expect(try measurement.decode(bytes("00 00 FF FF")).bodyFatPercentage == BodyCompositionMeasurement.measurementUnsuccessful)
    }

    // "Body Composition Feature": uint32. Time Stamp (bit 0), Multiple Users (bit 1), Weight
    // (bit 9), Height (bit 10) = 0x0603; mass resolution 7 (0.005 kg / 0.01 lb) in bits 11–14 =
    // 0x3800; height resolution 3 (0.001 m / 0.1 in) in bits 15–17 = 0x18000. Total 0x0001BE03.
    @Test("Body Composition Feature: the supported fields and two resolutions")
    func feature() throws {
        let codec = BodyCompositionService.feature.codec
        let value = BodyCompositionFeature(supported: [.timeStamp, .multipleUsers, .weight, .height],
                                           massResolution: .twoHundredthOfKilogram, heightResolution: .thousandthOfMetre)
        try expectBytes(codec, value, bytes("03 BE 01 00"))
        // 0xFFFDBE03: bits 18–31 reserved, ignored.
        #expect(try codec.decode(bytes("03 BE FD FF")) == value)
        let mass = codecError { () throws(GATTCodecError) in try BodyCompositionService.feature.decode(bytes("00 40 00 00")) }
        #expect(mass?.path == ["Body Composition Feature", "Mass Measurement Resolution"])
        let height = codecError { () throws(GATTCodecError) in try BodyCompositionService.feature.decode(bytes("00 00 02 00")) }
        #expect(height?.path == ["Body Composition Feature", "Height Measurement Resolution"])
        expectRejected(codec, bytes("03 BE 01"), .invalidLength)
    }

    @Test("an analyser on the emulator: the feature read, a measurement indicated in two packets")
    func endToEnd() async throws {
        let feature = BodyCompositionFeature(supported: [.muscleMass, .impedance], massResolution: .tenthOfKilogram)
        let (fixture, analyser) = try await GATTFixture.make { server in
            try await server.host(BodyCompositionService.self) { handlers in
                handlers.onRead(BodyCompositionService.feature) { _ in feature }
            }
        }
        var events = fixture.peripheral.events()
        let remote = try await fixture.client.discover(BodyCompositionService.self)
        #expect(try await remote.read(BodyCompositionService.feature) == feature)
        let stream = try await remote.subscribeSeen(to: BodyCompositionService.measurement, events: &events)
        let packets = [BodyCompositionMeasurement(bodyFatPercentage: 180, muscleMass: 6000, isMultiplePacketMeasurement: true),
                       BodyCompositionMeasurement(bodyFatPercentage: 180, impedance: 4800)]
        let sending = Task {
            for packet in packets { try await analyser.notify(BodyCompositionService.measurement, packet) }
        }
        let received = try await values(packets.count, of: stream)
        try await sending.value
        #expect(received == packets)
    }
}
