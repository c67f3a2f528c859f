import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuGATT

/// Weight Scale Service characteristics against bytes built by hand from the GATT
/// Specification Supplement's "Weight Measurement" and "Weight Scale Feature" tables, then end
/// to end on the emulator.
///
/// Checked against the SIG's GATT XML definitions (org.bluetooth.characteristic.*.xml as
/// published in the oesmith/gatt-xml collection):
/// - weight_measurement.xml: Flags uint8 (bit 0 imperial, bit 1 time stamp, bit 2 user ID,
///   bit 3 BMI and height); field order; Weight uint16 (kg: decimal exponent −3, multiplier 5,
///   so 0.005 kg; lb: decimal exponent −2); User ID uint8 (255 unknown); BMI uint16 (decimal
///   exponent −1); Height uint16 (m: decimal exponent −3; in: decimal exponent −1).
/// - weight_scale_feature.xml: 32 bits, bits 0–2, Weight Measurement Resolution 4 bits at bit 3
///   (values 0–7), Height Measurement Resolution 3 bits at bit 7 (values 0–3).
///
/// Not checked there: the 0xFFFF "measurement unsuccessful" Weight is from memory of the
/// Weight Scale Service specification.
@Suite("Catalogue: Weight Scale")
struct WeightScaleTests {
    let measurement = WeightScaleService.measurement

    // Flags 0x00: SI, weight only. 70 kg = 14000 steps of 0.005 kg = 0x36B0.
    @Test("SI weight only")
    func weightOnly() throws {
        try expectBytes(measurement.codec, WeightMeasurement(weight: 14000), bytes("00 B0 36"))
        #expect(try measurement.decode(bytes("00 B0 36")).weightValue == 70)
    }

    // Flags 0x0F: imperial (bit 0), Time Stamp (bit 1), User ID (bit 2), BMI and Height
    // (bit 3). Weight 154.32 lb = 15432 × 0.01 lb = 0x3C48. Time Stamp 2026-11-29 07:05:09:
    // EA 07 0B 1D 07 05 09. User ID 1. BMI 22.4 = 224 × 0.1 = 0x00E0. Height 69.5 in = 695 ×
    // 0.1 in = 0x02B7.
    @Test("imperial with every optional field")
    func everyField() throws {
        let value = WeightMeasurement(weight: 15432, units: .imperial,
                                      timestamp: DateTime(year: 2026, month: 11, day: 29, hours: 7, minutes: 5, seconds: 9),
                                      userID: 1, bmiAndHeight: .init(bmi: 224, height: 695))
        try expectBytes(measurement.codec, value, bytes("0F 48 3C EA 07 0B 1D 07 05 09 01 E0 00 B7 02"))
        #expect(value.weightValue == 154.32)
        #expect(value.units.height(695) == 69.5 && BodyMeasurementUnits.si.height(1750) == 1.75)
    }

    @Test("an unsuccessful measurement has no value; reserved flag bits are ignored and written 0")
    func unsuccessfulAndReserved() throws {
        let failed = try measurement.decode(bytes("00 FF FF"))
        #expect(failed.weight == WeightMeasurement.measurementUnsuccessful && failed.weightValue == nil)
        let reserved = try measurement.decode(bytes("F0 B0 36"))
        #expect(reserved == WeightMeasurement(weight: 14000))
        #expect(try measurement.encode(reserved) == bytes("00 B0 36"))
    }

    @Test("fields flagged but missing, and bytes left over, are refused naming the field")
    func malformed() {
        expectRejected(measurement.codec, bytes("00 B0"), .invalidLength)
        expectRejected(measurement.codec, bytes("00 B0 36 01"), .invalidLength)
        let height = codecError { () throws(GATTCodecError) in try measurement.decode(bytes("08 B0 36 E0 00")) }
        #expect(height?.path == ["Weight Measurement", "Height"])
        let time = codecError { () throws(GATTCodecError) in try measurement.decode(bytes("02 B0 36 EA 07 0D 1D 07 05 09")) }
        #expect(time?.path == ["Weight Measurement", "Time Stamp", "Month"])
    }

    // "Weight Scale Feature": uint32. Bits 0–2 = 0b111 (time stamp, multiple users, BMI);
    // weight resolution 4 (0.05 kg / 0.1 lb) in bits 3–6 = 0x20; height resolution 3
    // (0.001 m / 0.1 in) in bits 7–9 = 0x180. Total 0x000001A7.
    @Test("Weight Scale Feature: flags and the two resolutions")
    func feature() throws {
        let codec = WeightScaleService.feature.codec
        let value = WeightScaleFeature(supported: [.timeStamp, .multipleUsers, .bmi], massResolution: .twentiethOfKilogram,
                                       heightResolution: .thousandthOfMetre)
        try expectBytes(codec, value, bytes("A7 01 00 00"))
        #expect(value.massResolution.kilograms == 0.05 && value.massResolution.pounds == 0.1)
        #expect(value.heightResolution.metres == 0.001 && value.heightResolution.inches == 0.1)
        try expectBytes(codec, WeightScaleFeature(), bytes("00 00 00 00"))
        // 0xFFFFFDA7: bits 10–31 reserved, ignored; the rest as above.
        #expect(try codec.decode(bytes("A7 FD FF FF")) == value)
        #expect(try codec.encode(WeightScaleFeature(supported: .init(rawValue: 0xFFFF_FFFF))) == bytes("07 00 00 00"))
        // Weight resolution 8 (0x40) and height resolution 4 (0x200) are reserved.
        let weight = codecError { () throws(GATTCodecError) in try WeightScaleService.feature.decode(bytes("40 00 00 00")) }
        #expect(weight?.path == ["Weight Scale Feature", "Weight Measurement Resolution"])
        #expect(weight?.kind == .valueNotAllowed)
        let height = codecError { () throws(GATTCodecError) in try WeightScaleService.feature.decode(bytes("00 02 00 00")) }
        #expect(height?.path == ["Weight Scale Feature", "Height Measurement Resolution"])
        expectRejected(codec, bytes("A7 01 00"), .invalidLength)
    }

    @Test("a scale on the emulator: the feature read, weights indicated")
    func endToEnd() async throws {
        let feature = WeightScaleFeature(supported: [.multipleUsers], massResolution: .twoHundredthOfKilogram)
        let (fixture, scale) = try await GATTFixture.make { server in
            let scale = try await server.host(WeightScaleService.self)
            try scale.setValue(feature, for: WeightScaleService.feature)
            return scale
        }
        var events = fixture.peripheral.events()
        let remote = try await fixture.client.discover(WeightScaleService.self)
        #expect(try await remote.read(WeightScaleService.feature) == feature)
        let stream = try await remote.subscribeSeen(to: WeightScaleService.measurement, events: &events)
        let weights = [WeightMeasurement(weight: 14000, userID: 2),
                       WeightMeasurement(weight: WeightMeasurement.measurementUnsuccessful, userID: 0xFF),
                       WeightMeasurement(weight: 15432, units: .imperial, bmiAndHeight: .init(bmi: 224, height: 695))]
        let sending = Task {
            for weight in weights { try await scale.notify(WeightScaleService.measurement, weight) }
        }
        let received = try await values(weights.count, of: stream)
        try await sending.value
        #expect(received == weights)
        let handle = try remote.remote(WeightScaleService.measurement).valueHandle
        #expect(fixture.bus.trace.filter { $0.kind == .att && $0.opcode == 0x1D && $0.handle == handle }.count == weights.count)
    }
}
