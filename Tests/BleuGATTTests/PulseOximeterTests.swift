import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuGATT

/// Pulse Oximeter Service characteristics against bytes built by hand from the GATT
/// Specification Supplement's "PLX Spot-Check Measurement", "PLX Continuous Measurement" and
/// "PLX Features" tables, then end to end on the emulator.
///
/// Checked against the SIG's GATT XML definitions (org.bluetooth.characteristic.*.xml as
/// published in the oesmith/gatt-xml collection):
/// - plx_spot_check_measurement.xml: Flags uint8, bits 0–3 (timestamp, measurement status,
///   device and sensor status, pulse amplitude index) and bit 4 device clock not set; field
///   order; SpO2 and PR SFLOAT; Measurement Status 16 bits, bits 5–15; Device and Sensor Status
///   24 bits, bits 0–15; Pulse Amplitude Index SFLOAT.
/// - plx_continuous_measurement.xml: Flags uint8, bits 0–4 (fast, slow, measurement status,
///   device and sensor status, pulse amplitude index); field order; the same status bits.
/// - plx_features.xml: Supported Features 16 bits, bits 0–7; Measurement Status Support
///   (16 bits) when bit 0 is set, then Device and Sensor Status Support (24 bits) when bit 1 is.
///
/// Nothing these codecs encode was left unchecked.
@Suite("Catalogue: Pulse Oximeter")
struct PulseOximeterTests {
    let spotCheck = PulseOximeterService.spotCheckMeasurement
    let continuous = PulseOximeterService.continuousMeasurement

    func pair(_ spo2: Int, _ pulse: Int) throws -> SpO2PulseRate {
        SpO2PulseRate(spo2: try MedFloat16(mantissa: spo2, exponent: 0), pulseRate: try MedFloat16(mantissa: pulse, exponent: 0))
    }

    // Flags 0x00; SpO2 98 % = SFLOAT 0x0062, PR 72 bpm = 0x0048.
    @Test("spot check, SpO2 and pulse rate only")
    func spotCheckMinimal() throws {
        try expectBytes(spotCheck.codec, PLXSpotCheckMeasurement(spotCheck: try pair(98, 72)), bytes("00 62 00 48 00"))
    }

    // Flags 0x1F: Timestamp (bit 0), Measurement Status (bit 1), Device and Sensor Status (bit
    // 2), Pulse Amplitude Index (bit 3), Device Clock Not Set (bit 4). SpO2 97 = 0x0061, PR 65 =
    // 0x0041; Timestamp 2026-11-29 09:00:00 (EA 07 0B 1D 09 00 00); Measurement Status 0x0180
    // (Validated Data bit 7, Fully Qualified Data bit 8); Device and Sensor Status uint24
    // 0x002010 (Poor Signal bit 4, Sensor Displaced bit 13); PAI 2.5 % = 25e-1 = 0xF019.
    @Test("spot check with every field")
    func spotCheckEveryField() throws {
        let value = PLXSpotCheckMeasurement(
            spotCheck: try pair(97, 65), timestamp: DateTime(year: 2026, month: 11, day: 29, hours: 9),
            measurementStatus: [.validatedData, .fullyQualifiedData], deviceAndSensorStatus: [.poorSignalDetected, .sensorDisplaced],
            pulseAmplitudeIndex: try MedFloat16(mantissa: 25, exponent: -1), isDeviceClockNotSet: true)
        try expectBytes(spotCheck.codec, value, bytes("1F 61 00 41 00 EA 07 0B 1D 09 00 00 80 01 10 20 00 19 F0"))
    }

    @Test("reserved bits of the flags and both status fields are ignored when read and written 0")
    func reservedBits() throws {
        #expect(try spotCheck.decode(bytes("E0 62 00 48 00")) == PLXSpotCheckMeasurement(spotCheck: try pair(98, 72)))
        // Measurement Status 0x019F: bits 0–4 reserved.
        let status = try spotCheck.decode(bytes("02 62 00 48 00 9F 01"))
        #expect(status.measurementStatus == [.validatedData, .fullyQualifiedData])
        #expect(try spotCheck.encode(status) == bytes("02 62 00 48 00 80 01"))
        // Device and Sensor Status 0xFF2010: bits 16–23 reserved.
        let device = try spotCheck.decode(bytes("04 62 00 48 00 10 20 FF"))
        #expect(device.deviceAndSensorStatus == [.poorSignalDetected, .sensorDisplaced])
        #expect(try spotCheck.encode(device) == bytes("04 62 00 48 00 10 20 00"))
        #expect(try spotCheck.encode(PLXSpotCheckMeasurement(spotCheck: try pair(98, 72), deviceAndSensorStatus: .init(rawValue: 0xFFFF_FFFF)))
                == bytes("04 62 00 48 00 FF FF 00"))
    }

    @Test("short fields are refused naming them")
    func malformed() {
        let device = codecError { () throws(GATTCodecError) in try spotCheck.decode(bytes("04 62 00 48 00 10 20")) }
        #expect(device?.path == ["PLX Spot-Check Measurement", "Device and Sensor Status"])
        #expect(device?.kind == .invalidLength)
        let pulse = codecError { () throws(GATTCodecError) in try spotCheck.decode(bytes("00 62 00 48")) }
        #expect(pulse?.path == ["PLX Spot-Check Measurement", "SpO2PR-Spot-Check", "PR"])
        let slow = codecError { () throws(GATTCodecError) in try continuous.decode(bytes("02 60 00 46 00 61 00")) }
        // The SIG names 0x2A5F "PLX Continuous Measurement Characteristic".
        #expect(slow?.path == ["PLX Continuous Measurement Characteristic", "SpO2PR-Slow", "PR"])
        expectRejected(continuous.codec, bytes("00 60 00 46 00 00"), .invalidLength)
    }

    // Flags 0x1F: SpO2PR-Fast (bit 0), SpO2PR-Slow (bit 1), Measurement Status (bit 2), Device
    // and Sensor Status (bit 3), PAI (bit 4). Normal 96 %/70 bpm (60 00 46 00), Fast 95/72
    // (5F 00 48 00), Slow 97/68 (61 00 44 00); Measurement Status 0x0020 (Measurement Ongoing);
    // Device and Sensor Status 0x000200 (Signal Analysis Ongoing); PAI 3.0 % = 30e-1 = 0xF01E.
    @Test("continuous, with every field and with one at a time")
    func continuousMeasurement() throws {
        let every = PLXContinuousMeasurement(normal: try pair(96, 70), fast: try pair(95, 72), slow: try pair(97, 68),
                                             measurementStatus: .measurementOngoing, deviceAndSensorStatus: .signalAnalysisOngoing,
                                             pulseAmplitudeIndex: try MedFloat16(mantissa: 30, exponent: -1))
        try expectBytes(continuous.codec, every, bytes("1F 60 00 46 00 5F 00 48 00 61 00 44 00 20 00 00 02 00 1E F0"))
        try expectBytes(continuous.codec, PLXContinuousMeasurement(normal: try pair(96, 70), slow: try pair(97, 68)),
                        bytes("02 60 00 46 00 61 00 44 00"))
        try expectBytes(continuous.codec, PLXContinuousMeasurement(normal: try pair(96, 70), pulseAmplitudeIndex: try MedFloat16(mantissa: 30, exponent: -1)),
                        bytes("10 60 00 46 00 1E F0"))
        try expectBytes(continuous.codec, PLXContinuousMeasurement(normal: try pair(96, 70), deviceAndSensorStatus: .sensorDisconnected),
                        bytes("08 60 00 46 00 00 80 00"))
        #expect(try continuous.decode(bytes("E0 60 00 46 00")) == PLXContinuousMeasurement(normal: try pair(96, 70)))
    }

    // "PLX Features": Supported Features 0x008B = Measurement Status support present (bit 0),
    // Device and Sensor Status support present (bit 1), Timestamp for spot checks (bit 3),
    // Multiple Bonds (bit 7); Measurement Status Support 0xFFE0; Device and Sensor Status
    // Support uint24 0x00FFFF.
    @Test("PLX Features: the support fields follow bits 0 and 1")
    func features() throws {
        let codec = PulseOximeterService.features.codec
        let every = PLXFeatures(supported: [.timestampForSpotCheck, .multipleBonds], measurementStatusSupport: .all,
                                deviceAndSensorStatusSupport: .all)
        try expectBytes(codec, every, bytes("8B 00 E0 FF FF FF 00"))
        try expectBytes(codec, PLXFeatures(supported: .spo2PRFast), bytes("10 00"))
        try expectBytes(codec, PLXFeatures(deviceAndSensorStatusSupport: .sensorDisconnected), bytes("02 00 00 80 00"))
        #expect(try codec.decode(bytes("10 FF")) == PLXFeatures(supported: .spo2PRFast))   // bits 8–15 reserved
        #expect(try codec.encode(PLXFeatures(supported: .init(rawValue: 0xFFFF))) == bytes("FC 00"))
        let short = codecError { () throws(GATTCodecError) in try PulseOximeterService.features.decode(bytes("01 00 E0")) }
        #expect(short?.path == ["PLX Features", "Measurement Status Support"])
    }

    @Test("an oximeter on the emulator: features read, a spot check indicated, continuous readings notified")
    func endToEnd() async throws {
        let features = PLXFeatures(supported: [.spo2PRFast], measurementStatusSupport: [.measurementOngoing])
        let (fixture, oximeter) = try await GATTFixture.make { server in
            let oximeter = try await server.host(PulseOximeterService.self)
            try oximeter.setValue(features, for: PulseOximeterService.features)
            return oximeter
        }
        var events = fixture.peripheral.events()
        let remote = try await fixture.client.discover(PulseOximeterService.self)
        #expect(try await remote.read(PulseOximeterService.features) == features)
        let spots = try await remote.subscribeSeen(to: PulseOximeterService.spotCheckMeasurement, events: &events)
        let stream = try await remote.subscribeSeen(to: PulseOximeterService.continuousMeasurement, events: &events)

        let readings = try (0..<5).map { index in
            PLXContinuousMeasurement(normal: try pair(95 + index % 3, 60 + index), fast: try pair(94, 61),
                                     measurementStatus: index == 0 ? .measurementOngoing : nil)
        }
        let spot = PLXSpotCheckMeasurement(spotCheck: try pair(98, 64), timestamp: DateTime(year: 2026, month: 11, day: 29, hours: 9))
        let sending = Task {
            for reading in readings { try await oximeter.notify(PulseOximeterService.continuousMeasurement, reading) }
            try await oximeter.notify(PulseOximeterService.spotCheckMeasurement, spot)
        }
        let received = try await values(readings.count, of: stream)
        #expect(received == readings)
        var iterator = spots.makeAsyncIterator()
        #expect(try await iterator.next() == spot)
        try await sending.value
    }
}
