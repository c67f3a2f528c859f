import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuGATT

/// Blood Pressure Service characteristics against bytes built by hand from the GATT
/// Specification Supplement's "Blood Pressure Measurement", "Intermediate Cuff Pressure" and
/// "Blood Pressure Feature" tables, then end to end on the emulator.
///
/// Checked against the SIG's GATT XML definitions (org.bluetooth.characteristic.*.xml as
/// published in the oesmith/gatt-xml collection):
/// - blood_pressure_measurement.xml: Flags uint8, bits 0–4 (bit 0 set = kPa); field order;
///   Systolic, Diastolic, Mean Arterial Pressure SFLOAT; Time Stamp; Pulse Rate SFLOAT; User ID
///   uint8 (255 unknown user); Measurement Status 16 bits: bit 0 body movement, bit 1 cuff too
///   loose, bit 2 irregular pulse, bits 3–4 pulse rate range (0 within, 1 above the upper
///   limit, 2 below the lower limit), bit 5 improper position.
/// - blood_pressure_feature.xml: 16 bits, bits 0–5 (bit 5 Multiple Bonds).
///
/// Not checked there: intermediate_cuff_pressure.xml carries no field table; its reuse of the
/// measurement's layout (cuff pressure in the Systolic field, the other two unused) is from
/// memory of the Blood Pressure Service specification.
@Suite("Catalogue: Blood Pressure")
struct BloodPressureTests {
    let measurement = BloodPressureService.measurement

    // Flags 0x00: mmHg, nothing optional. SFLOATs at exponent 0: 120 = 0x0078, 80 = 0x0050,
    // 93 = 0x005D, each least significant octet first.
    @Test("mmHg, the three pressures only")
    func pressuresOnly() throws {
        let value = BloodPressureMeasurement(systolic: try MedFloat16(mantissa: 120, exponent: 0),
                                             diastolic: try MedFloat16(mantissa: 80, exponent: 0),
                                             meanArterialPressure: try MedFloat16(mantissa: 93, exponent: 0))
        try expectBytes(measurement.codec, value, bytes("00 78 00 50 00 5D 00"))
    }

    // Flags 0x1F: kPa (bit 0), Time Stamp (bit 1), Pulse Rate (bit 2), User ID (bit 3),
    // Measurement Status (bit 4). Pressures at exponent −1 (0xF in the SFLOAT's top nibble):
    // 16.0 = 160 (0x0A0) → 0xF0A0, 10.7 = 107 → 0xF06B, 12.4 = 124 → 0xF07C. Time Stamp
    // 2026-11-29 08:15:00: EA 07 0B 1D 08 0F 00. Pulse Rate 72 = 0x0048. User ID 3. Status
    // 0x000D: body movement (bit 0), irregular pulse (bit 2), pulse rate range 1 = exceeds
    // upper limit (bits 3–4).
    @Test("kPa with every optional field")
    func everyField() throws {
        let data = bytes("1F A0 F0 6B F0 7C F0 EA 07 0B 1D 08 0F 00 48 00 03 0D 00")
        let value = BloodPressureMeasurement(
            systolic: try MedFloat16(mantissa: 160, exponent: -1), diastolic: try MedFloat16(mantissa: 107, exponent: -1),
            meanArterialPressure: try MedFloat16(mantissa: 124, exponent: -1), unit: .kPa,
            timestamp: DateTime(year: 2026, month: 11, day: 29, hours: 8, minutes: 15, seconds: 0),
            pulseRate: try MedFloat16(mantissa: 72, exponent: 0), userID: 3,
            status: BloodPressureMeasurementStatus(bodyMovementDetected: true, irregularPulseDetected: true,
                                                   pulseRateRange: .exceedsUpperLimit))
        try expectBytes(measurement.codec, value, data)
        let decoded = try measurement.decode(data)
        #expect(decoded.systolic.doubleValue == 16.0 && decoded.diastolic.doubleValue == 10.7)
    }

    // Flags 0x10 with Measurement Status 0x0022: cuff too loose (bit 1), improper position
    // (bit 5); 0x0010 in bits 3–4 = 2, below the lower limit.
    @Test("measurement status bits, one at a time")
    func statusBits() throws {
        let base = "10 78 00 50 00 5D 00 "
        let loose = try measurement.decode(bytes(base + "22 00")).status
        #expect(loose == BloodPressureMeasurementStatus(cuffTooLoose: true, improperMeasurementPosition: true))
        #expect(try measurement.decode(bytes(base + "10 00")).status?.pulseRateRange == .belowLowerLimit)
    }

    @Test("reserved flag and status bits are ignored when read and written 0")
    func reservedBits() throws {
        // Flags 0xE0: bits 5–7 reserved, nothing present.
        let plain = try measurement.decode(bytes("E0 78 00 50 00 5D 00"))
        #expect(try measurement.encode(plain) == bytes("00 78 00 50 00 5D 00"))
        // Status 0xFFC1: bits 6–15 reserved, bit 0 body movement.
        let status = try measurement.decode(bytes("10 78 00 50 00 5D 00 C1 FF"))
        #expect(status.status == BloodPressureMeasurementStatus(bodyMovementDetected: true))
        #expect(try measurement.encode(status) == bytes("10 78 00 50 00 5D 00 01 00"))
    }

    @Test("short data, a reserved pulse rate range and a reserved SFLOAT are refused naming the field")
    func malformed() {
        expectRejected(measurement.codec, bytes("00 78 00 50 00"), .invalidLength)            // MAP missing
        expectRejected(measurement.codec, bytes("04 78 00 50 00 5D 00"), .invalidLength)      // pulse flagged, absent
        expectRejected(measurement.codec, bytes("00 78 00 50 00 5D 00 48"), .invalidLength)   // byte left over
        let range = codecError { () throws(GATTCodecError) in try measurement.decode(bytes("10 78 00 50 00 5D 00 18 00")) }
        #expect(range?.kind == .valueNotAllowed)
        #expect(range?.path == ["Blood Pressure Measurement", "Measurement Status", "Pulse Rate Range Detection"])
        let reserved = codecError { () throws(GATTCodecError) in try measurement.decode(bytes("00 01 08 50 00 5D 00")) }
        #expect(reserved?.path == ["Blood Pressure Measurement", "Systolic"])
        let user = codecError { () throws(GATTCodecError) in try measurement.decode(bytes("08 78 00 50 00 5D 00")) }
        #expect(user?.path == ["Blood Pressure Measurement", "User ID"])
        #expect(user?.kind == .invalidLength)
    }

    // Flags 0x04: Pulse Rate present. Current Cuff Pressure 152 mmHg = 0x0098 in the Systolic
    // field; Diastolic and MAP unused, NaN (0x07FF); Pulse Rate 70 = 0x0046.
    @Test("Intermediate Cuff Pressure: the cuff pressure in the systolic field, NaN in the other two")
    func intermediateCuffPressure() throws {
        let codec = BloodPressureService.intermediateCuffPressure.codec
        let value = IntermediateCuffPressure(cuffPressure: try MedFloat16(mantissa: 152, exponent: 0),
                                             pulseRate: try MedFloat16(mantissa: 70, exponent: 0))
        try expectBytes(codec, value, bytes("04 98 00 FF 07 FF 07 46 00"))
        // Whatever the unused fields hold is ignored.
        #expect(try codec.decode(bytes("04 98 00 50 00 5D 00 46 00")) == value)
        expectRejected(codec, bytes("04 98 00 FF 07 FF 07"), .invalidLength)
    }

    // "Blood Pressure Feature": uint16; 0x0023 = body movement (bit 0), cuff fit (bit 1),
    // multiple bonds (bit 5). Bits 6–15 reserved.
    @Test("Blood Pressure Feature bits; reserved bits cleared both ways")
    func feature() throws {
        let codec = BloodPressureService.feature.codec
        try expectBytes(codec, [.bodyMovementDetection, .cuffFitDetection, .multipleBonds], bytes("23 00"))
        try expectBytes(codec, .all, bytes("3F 00"))
        #expect(try codec.decode(bytes("23 FF")) == [.bodyMovementDetection, .cuffFitDetection, .multipleBonds])
        #expect(try codec.encode(BloodPressureFeature(rawValue: 0xFF1C)) == bytes("1C 00"))
        expectRejected(codec, bytes("23"), .invalidLength)
    }

    @Test("a blood pressure monitor on the emulator: intermediate cuff pressures notified, the result indicated, features read")
    func endToEnd() async throws {
        let features: BloodPressureFeature = [.bodyMovementDetection, .irregularPulseDetection]
        let (fixture, monitor) = try await GATTFixture.make { server in
            try await server.host(BloodPressureService.self) { handlers in
                handlers.onRead(BloodPressureService.feature) { _ in features }
            }
        }
        var events = fixture.peripheral.events()
        let remote = try await fixture.client.discover(BloodPressureService.self)
        #expect(try await remote.read(BloodPressureService.feature) == features)
        let cuff = try await remote.subscribeSeen(to: BloodPressureService.intermediateCuffPressure, events: &events)
        let results = try await remote.subscribeSeen(to: BloodPressureService.measurement, events: &events)

        let pressures = try [160, 140, 120].map { try IntermediateCuffPressure(cuffPressure: MedFloat16(mantissa: $0, exponent: 0)) }
        let result = BloodPressureMeasurement(
            systolic: try MedFloat16(mantissa: 121, exponent: 0), diastolic: try MedFloat16(mantissa: 79, exponent: 0),
            meanArterialPressure: try MedFloat16(mantissa: 93, exponent: 0),
            timestamp: DateTime(year: 2026, month: 11, day: 29, hours: 8, minutes: 16, seconds: 30),
            pulseRate: try MedFloat16(mantissa: 64, exponent: 0), userID: BloodPressureMeasurement.unknownUser,
            status: BloodPressureMeasurementStatus(irregularPulseDetected: true))
        let sending = Task {
            for pressure in pressures {
                try await monitor.notify(BloodPressureService.intermediateCuffPressure, pressure)
            }
            try await monitor.notify(BloodPressureService.measurement, result)
        }
        let received = try await values(pressures.count, of: cuff)
        #expect(received == pressures)
        var iterator = results.makeAsyncIterator()
        #expect(try await iterator.next() == result)
        try await sending.value
        let handle = try remote.remote(BloodPressureService.measurement).valueHandle
        #expect(fixture.bus.trace.contains { $0.kind == .att && $0.opcode == 0x1D && $0.handle == handle }, "indicated")
        #expect(!fixture.bus.trace.contains { $0.kind == .att && $0.opcode == 0x1B && $0.handle == handle }, "never notified")
    }
}
