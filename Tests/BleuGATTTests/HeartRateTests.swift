import BleuCore
import Foundation
import Testing
@testable import BleuGATT

/// Heart Rate Service characteristics against bytes built by hand from the GATT Specification
/// Supplement's field tables ("Heart Rate Measurement", "Body Sensor Location", "Heart Rate
/// Control Point") and the Heart Rate Service specification.
@Suite("Catalogue: Heart Rate")
struct HeartRateTests {
    let codec = HeartRateService.measurement

    // GSS "Heart Rate Measurement": Flags 0x00 (uint8 value, contact not supported, no energy,
    // no RR), Heart Rate Measurement Value uint8 = 72 bpm.
    @Test("8-bit value, no optional fields")
    func minimal() throws {
        let data = bytes("00 48")
        #expect(try codec.decode(data) == HeartRateMeasurement(heartRate: 72))
        #expect(try codec.encode(HeartRateMeasurement(heartRate: 72)) == data)
    }

    // Flags 0x01 (bit 0: value is uint16), value 0x0136 = 310 bpm, little-endian.
    @Test("16-bit value")
    func wide() throws {
        let value = HeartRateMeasurement(heartRate: 310)
        #expect(value.valueFormat == .uint16)
        #expect(try codec.encode(value) == bytes("01 36 01"))
        #expect(try codec.decode(bytes("01 36 01")) == value)
        // A sensor may send a small value in the 16-bit format; the format is kept so the bytes round-trip.
        let small = try codec.decode(bytes("01 48 00"))
        #expect(small.heartRate == 72 && small.valueFormat == .uint16)
        #expect(try codec.encode(small) == bytes("01 48 00"))
    }

    // Flags bits 1–2, Sensor Contact Status: 0b11 supported and detected (flags 0x06),
    // 0b10 supported, not detected (0x04), 0b01 and 0b00 not supported (0x02, 0x00).
    @Test("sensor contact status bits")
    func sensorContact() throws {
        #expect(try codec.decode(bytes("06 48")).sensorContact == .detected)
        #expect(try codec.decode(bytes("04 48")).sensorContact == .notDetected)
        #expect(try codec.decode(bytes("02 48")).sensorContact == .notSupported)
        #expect(try codec.decode(bytes("00 48")).sensorContact == .notSupported)
        #expect(try codec.encode(HeartRateMeasurement(heartRate: 72, sensorContact: .detected)) == bytes("06 48"))
        #expect(try codec.encode(HeartRateMeasurement(heartRate: 72, sensorContact: .notDetected)) == bytes("04 48"))
    }

    // Flags 0x1E: contact detected (bits 1–2 = 0b11), Energy Expended present (bit 3), RR-Interval
    // present (bit 4). Value uint8 75; Energy Expended uint16 kJ 0x0123 = 291; RR-Intervals uint16
    // in 1/1024 s: 0x0320 = 800 (0.78125 s), 0x0300 = 768 (0.75 s).
    @Test("every field: contact, energy expended, two RR intervals")
    func full() throws {
        let data = bytes("1E 4B 23 01 20 03 00 03")
        let value = HeartRateMeasurement(heartRate: 75, sensorContact: .detected, energyExpended: 291, rrIntervals: [800, 768])
        #expect(try codec.decode(data) == value)
        #expect(try codec.encode(value) == data)
        #expect(value.rrIntervalSeconds == [0.78125, 0.75])
    }

    // Flags 0x10 (RR present) with 16-bit value 0x0050 omitted (flags bit 0 clear): value 80,
    // then one RR interval 1024 = 1 s.
    @Test("RR intervals without energy expended")
    func rrOnly() throws {
        #expect(try codec.decode(bytes("10 50 00 04")) == HeartRateMeasurement(heartRate: 80, rrIntervals: [1024]))
    }

    @Test("missing fields, an odd RR byte, a flagged but absent field, and trailing bytes are invalid lengths (0x0D)")
    func malformed() {
        expectRejected(codec.codec, bytes(""), .invalidLength)
        expectRejected(codec.codec, bytes("00"), .invalidLength)          // no value
        expectRejected(codec.codec, bytes("01 48"), .invalidLength)       // uint16 value cut short
        expectRejected(codec.codec, bytes("08 48 23"), .invalidLength)    // energy expended cut short
        expectRejected(codec.codec, bytes("10 48"), .invalidLength)       // RR flagged, none present
        expectRejected(codec.codec, bytes("10 48 00 04 01"), .invalidLength) // odd RR byte
        expectRejected(codec.codec, bytes("00 48 00"), .invalidLength)    // trailing byte
        let error = codecError { () throws(GATTCodecError) in try HeartRateService.measurement.decode(bytes("08 48 23")) }
        #expect(error?.path == ["Heart Rate Measurement", "Energy Expended"])
    }

    @Test("a heart rate over 255 cannot be sent in the 8-bit format")
    func narrowOverflow() {
        let value = HeartRateMeasurement(heartRate: 300, valueFormat: .uint8)
        let error = codecError { () throws(GATTCodecError) in try HeartRateService.measurement.encode(value) }
        #expect(error?.kind == .valueNotAllowed)
        #expect(error?.path == ["Heart Rate Measurement", "Heart Rate Measurement Value"])
    }

    // GSS "Body Sensor Location": uint8, 0 Other, 1 Chest, 2 Wrist, 3 Finger, 4 Hand,
    // 5 Ear Lobe, 6 Foot; 7–255 reserved.
    @Test("Body Sensor Location values, reserved values rejected")
    func bodySensorLocation() throws {
        let expected: [BodySensorLocation] = [.other, .chest, .wrist, .finger, .hand, .earLobe, .foot]
        for (raw, location) in expected.enumerated() {
            #expect(try HeartRateService.bodySensorLocation.decode(Data([UInt8(raw)])) == location)
        }
        expectRejected(HeartRateService.bodySensorLocation.codec, bytes("07"), .valueNotAllowed)
        expectRejected(HeartRateService.bodySensorLocation.codec, bytes("01 00"), .invalidLength)
    }

    // GSS "Heart Rate Control Point": uint8, 0x01 Reset Energy Expended, others reserved. The
    // Heart Rate Service answers an unsupported value with application error 0x80
    // (Control Point Not Supported) rather than 0x13.
    @Test("Heart Rate Control Point: reset, and 0x80 for anything else")
    func controlPoint() throws {
        #expect(try HeartRateService.controlPoint.encode(.resetEnergyExpended) == bytes("01"))
        let error = codecError { () throws(GATTCodecError) in try HeartRateService.controlPoint.decode(bytes("02")) }
        #expect(error?.kind == .valueNotAllowed)
        #expect(error?.attError == ATTError(0x80))
        #expect(error?.attError.isApplicationError == true)
        expectRejected(HeartRateService.controlPoint.codec, bytes("01 01"), .invalidLength)
    }

    @Test("the service declares its three characteristics with the specification's properties")
    func declaration() throws {
        let definition = try HeartRateService.declaration.definition()
        #expect(definition.uuid == BluetoothUUID(0x180D))
        #expect(definition.characteristics.map(\.uuid) == [BluetoothUUID(0x2A37), BluetoothUUID(0x2A38), BluetoothUUID(0x2A39)])
        #expect(definition.characteristics.map(\.properties) == [[.notify], [.read], [.write]])
        #expect(definition.characteristics.map(\.permissions) == [[], [.readable], [.writeable]])
    }
}
