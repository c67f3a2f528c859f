import BleuCore
import Foundation
import Testing
@testable import BleuGATT

/// Running Speed and Cadence Service characteristics against bytes built by hand from the GATT
/// Specification Supplement's field tables ("RSC Measurement", "RSC Feature"); Sensor Location
/// and the SC Control Point are the Cycling Speed and Cadence tests'.
///
/// Checked against the SIG's GATT XML definitions (org.bluetooth.characteristic.*.xml as
/// published in the oesmith/gatt-xml collection):
/// - rsc_measurement.xml: Flags uint8 (bit 0 stride length, bit 1 total distance, bit 2 walking
///   0 / running 1); field order; Instantaneous Speed uint16 (1/256 m/s), Instantaneous Cadence
///   uint8 (1/min), Instantaneous Stride Length uint16 (1/100 m), Total Distance uint32 (1/10 m)
///   — the resolutions from the XML's informative text, which has no exponent elements here.
/// - rsc_feature.xml: 16 bits, bits 0–4 (stride length, total distance, walking or running
///   status, calibration procedure, multiple sensor locations).
///
/// Not checked there: nothing else is encoded by these two codecs.
@Suite("Catalogue: Running Speed and Cadence")
struct RunningSpeedAndCadenceTests {
    let measurement = RunningSpeedAndCadenceService.measurement

    // Flags 0x00 (walking, no stride length, no distance). Instantaneous Speed uint16 0x0300 =
    // 768/256 = 3 m/s; Instantaneous Cadence uint8 0xAA = 170 /min.
    @Test("speed and cadence only, walking")
    func minimal() throws {
        let value = RSCMeasurement(instantaneousSpeed: 768, instantaneousCadence: 170)
        try expectBytes(measurement.codec, value, bytes("00 00 03 AA"))
        #expect(value.metersPerSecond == 3)
    }

    // Flags 0x07: bit 0 stride length, bit 1 total distance, bit 2 running. Speed 0x0380 = 3.5 m/s,
    // cadence 0xB4 = 180 /min, Instantaneous Stride Length uint16 0x0085 = 133 cm, Total
    // Distance uint32 0x00002710 = 10000 × 0.1 m = 1 km.
    @Test("every field, running")
    func full() throws {
        let value = RSCMeasurement(instantaneousSpeed: 896, instantaneousCadence: 180, instantaneousStrideLength: 133,
                                   totalDistance: 10_000, motion: .running)
        try expectBytes(measurement.codec, value, bytes("07 80 03 B4 85 00 10 27 00 00"))
    }

    // Flags 0x02: total distance only (1000 × 0.1 m) after speed 0x0200 = 2 m/s and cadence 0x50 = 80.
    @Test("total distance without stride length")
    func distanceOnly() throws {
        try expectBytes(measurement.codec, RSCMeasurement(instantaneousSpeed: 512, instantaneousCadence: 80, totalDistance: 1000),
                        bytes("02 00 02 50 E8 03 00 00"))
    }

    // Flags 0xFC: bit 2 (running) and reserved bits 3–7, read as running only, written back as 0x04.
    @Test("reserved flag bits are ignored when read and written 0")
    func reservedFlags() throws {
        let value = try measurement.decode(bytes("FC 00 03 AA"))
        #expect(value == RSCMeasurement(instantaneousSpeed: 768, instantaneousCadence: 170, motion: .running))
        #expect(try measurement.encode(value) == bytes("04 00 03 AA"))
    }

    @Test("missing fields and trailing bytes are invalid lengths, naming the field")
    func malformed() {
        expectRejected(measurement.codec, bytes("00 00 03"), .invalidLength)            // cadence missing
        expectRejected(measurement.codec, bytes("01 00 03 AA 85"), .invalidLength)      // stride length cut short
        expectRejected(measurement.codec, bytes("02 00 03 AA 10 27 00"), .invalidLength) // distance cut short
        expectRejected(measurement.codec, bytes("00 00 03 AA 00"), .invalidLength)      // trailing byte
        #expect(codecError { () throws(GATTCodecError) in try measurement.decode(bytes("00 00 03")) }?.path
                == ["RSC Measurement", "Instantaneous Cadence"])
        #expect(codecError { () throws(GATTCodecError) in try measurement.decode(bytes("02 00 03 AA 10 27 00")) }?.path
                == ["RSC Measurement", "Total Distance"])
    }

    // GSS "RSC Feature": uint16, bit 0 Instantaneous Stride Length Measurement Supported, bit 1
    // Total Distance Measurement Supported, bit 2 Walking or Running Status Supported, bit 3
    // Sensor Calibration Procedure Supported, bit 4 Multiple Sensor Locations Supported; bits
    // 5–15 reserved.
    @Test("RSC Feature bits; reserved bits dropped when read and written 0")
    func feature() throws {
        let codec = RunningSpeedAndCadenceService.feature.codec
        try expectBytes(codec, RSCFeature.defined, bytes("1F 00"))
        try expectBytes(codec, [.instantaneousStrideLength, .walkingOrRunningStatus], bytes("05 00"))
        #expect(try codec.decode(bytes("E8 FF")) == .sensorCalibrationProcedure)
        #expect(try codec.encode(RSCFeature(rawValue: 0xFFFF)) == bytes("1F 00"))
        expectRejected(codec, bytes("1F"), .invalidLength)
    }

    @Test("the service declares its characteristics with the specification's properties")
    func declaration() throws {
        let definition = try RunningSpeedAndCadenceService.declaration.definition()
        #expect(definition.uuid == BluetoothUUID(0x1814))
        #expect(definition.characteristics.map(\.uuid) == [BluetoothUUID(0x2A53), BluetoothUUID(0x2A54), BluetoothUUID(0x2A5D), BluetoothUUID(0x2A55)])
        #expect(definition.characteristics.map(\.properties) == [[.notify], [.read], [.read], [.write, .indicate]])
        #expect(BluetoothUUID(0x1814).name == "Running Speed and Cadence")
        #expect(definition.characteristics.map { $0.uuid.name } == ["RSC Measurement", "RSC Feature", "Sensor Location", "SC Control Point"])
    }

    @Test("end to end: a typed foot pod notifies measurements and resets its total distance through the SC Control Point")
    func endToEnd() async throws {
        let requests = Received<SCControlPoint>()
        let (fixture, pod) = try await GATTFixture.make { server in
            try await server.host(RunningSpeedAndCadenceService.self) { handlers in
                handlers.onRead(RunningSpeedAndCadenceService.feature) { _ in [.instantaneousStrideLength, .totalDistance, .walkingOrRunningStatus] }
                handlers.onWrite(RunningSpeedAndCadenceService.controlPoint) { request, _ in requests.append(request) }
            }
        }
        try pod.setValue(.inShoe, for: RunningSpeedAndCadenceService.sensorLocation)
        var peripheralEvents = fixture.peripheral.events()
        let remote = try await fixture.client.discover(RunningSpeedAndCadenceService.self)
        #expect(try await remote.read(RunningSpeedAndCadenceService.feature) == [.instantaneousStrideLength, .totalDistance, .walkingOrRunningStatus])
        #expect(try await remote.read(RunningSpeedAndCadenceService.sensorLocation) == .inShoe)
        let measurements = try await remote.subscribe(to: RunningSpeedAndCadenceService.measurement)
        let responses = try await remote.subscribe(to: RunningSpeedAndCadenceService.controlPoint)
        await peripheralEvents.waitForSubscriptions(2)

        var sent: [RSCMeasurement] = []
        for index in 0..<16 {
            let step = UInt16(index)
            let stride: UInt16? = index.isMultiple(of: 2) ? 110 + step : nil
            sent.append(RSCMeasurement(instantaneousSpeed: 600 + 10 * step, instantaneousCadence: 160 + UInt8(index),
                                       instantaneousStrideLength: stride, totalDistance: 25 * UInt32(index),
                                       motion: index < 8 ? .walking : .running))
        }
        let received = try await roundTrip(sent, send: { try await pod.notify(RunningSpeedAndCadenceService.measurement, $0) }, through: measurements)
        #expect(received == sent)

        try await remote.write(.setCumulativeValue(0), to: RunningSpeedAndCadenceService.controlPoint)
        await requests.wait(for: 1)
        #expect(requests.values == [.setCumulativeValue(0)])
        let answer = SCControlPoint.response(SensorControlPointResponse(requestOpCode: SCControlPoint.OpCode.setCumulativeValue.rawValue,
                                                                        result: .success))
        try await pod.notify(RunningSpeedAndCadenceService.controlPoint, answer)
        var iterator = responses.makeAsyncIterator()
        #expect(try await iterator.next() == answer)
    }
}
