import BleuCore
import Foundation
import Testing
@testable import BleuGATT

/// Cycling Speed and Cadence Service characteristics against bytes built by hand from the GATT
/// Specification Supplement's field tables ("CSC Measurement", "CSC Feature", "Sensor
/// Location", "SC Control Point").
///
/// Checked against the SIG's GATT XML definitions (org.bluetooth.characteristic.*.xml as
/// published in the oesmith/gatt-xml collection):
/// - csc_measurement.xml: Flags uint8, bit 0 wheel and bit 1 crank revolution data; field order;
///   Cumulative Wheel Revolutions uint32, Last Wheel Event Time uint16 (binary exponent −10,
///   1/1024 s), Cumulative Crank Revolutions uint16, Last Crank Event Time uint16 (1/1024 s).
/// - csc_feature.xml: 16 bits, bits 0–2 (wheel, crank, multiple sensor locations).
/// - sensor_location.xml: uint8, values 0–16 (Other … Chain Ring) in this order.
/// - sc_control_point.xml: op codes 1–4 and 16 (Response Code); Sensor Location Value uint8;
///   Request Op Code and Response Value uint8; Response Values 1–4 (Success, Op Code Not
///   Supported, Invalid Parameter, Operation Failed); the sensor locations follow only a
///   successful response to op code 0x04.
///
/// Not checked there: the XML gives the Cumulative Value as "variable" (its size is per
/// service); the uint32 comes from memory of the CSC and RSC service specifications.
@Suite("Catalogue: Cycling Speed and Cadence")
struct CyclingSpeedAndCadenceTests {
    let measurement = CyclingSpeedAndCadenceService.measurement
    let controlPoint = CyclingSpeedAndCadenceService.controlPoint

    // Flags 0x03 (bit 0 wheel data, bit 1 crank data). Cumulative Wheel Revolutions uint32
    // 0x00012345 = 74565, Last Wheel Event Time uint16 0x0400 = 1024/1024 s; Cumulative Crank
    // Revolutions uint16 0x0102 = 258, Last Crank Event Time uint16 0x0800 = 2 s.
    @Test("wheel and crank revolution data")
    func full() throws {
        let value = CSCMeasurement(wheelRevolutions: WheelRevolutionData(cumulativeRevolutions: 74565, lastEventTime: 1024),
                                   crankRevolutions: CrankRevolutionData(cumulativeRevolutions: 258, lastEventTime: 2048))
        try expectBytes(measurement.codec, value, bytes("03 45 23 01 00 00 04 02 01 00 08"))
    }

    // Flags 0x01: wheel only, 10 revolutions at 0x1234. Flags 0x02: crank only, 5 revolutions at
    // 0xFFFF (the time wraps). Flags 0x00: neither.
    @Test("wheel only, crank only, neither")
    func partial() throws {
        try expectBytes(measurement.codec, CSCMeasurement(wheelRevolutions: WheelRevolutionData(cumulativeRevolutions: 10, lastEventTime: 0x1234)),
                        bytes("01 0A 00 00 00 34 12"))
        try expectBytes(measurement.codec, CSCMeasurement(crankRevolutions: CrankRevolutionData(cumulativeRevolutions: 5, lastEventTime: 0xFFFF)),
                        bytes("02 05 00 FF FF"))
        try expectBytes(measurement.codec, CSCMeasurement(), bytes("00"))
    }

    // Flags bits 2–7 are reserved: 0xFD is bit 0 (wheel) plus reserved bits, read as wheel data
    // only and written back as 0x01.
    @Test("reserved flag bits are ignored when read and written 0")
    func reservedFlags() throws {
        let value = try measurement.decode(bytes("FD 0A 00 00 00 34 12"))
        #expect(value == CSCMeasurement(wheelRevolutions: WheelRevolutionData(cumulativeRevolutions: 10, lastEventTime: 0x1234)))
        #expect(try measurement.encode(value) == bytes("01 0A 00 00 00 34 12"))
        #expect(try measurement.decode(bytes("FC")) == CSCMeasurement())
    }

    @Test("missing fields and trailing bytes are invalid lengths, naming the field")
    func malformed() {
        expectRejected(measurement.codec, bytes(""), .invalidLength)
        expectRejected(measurement.codec, bytes("01 0A 00 00 00 34"), .invalidLength)   // wheel event time cut short
        expectRejected(measurement.codec, bytes("02 05 00"), .invalidLength)            // crank event time missing
        expectRejected(measurement.codec, bytes("03 0A 00 00 00 34 12"), .invalidLength) // crank flagged, absent
        expectRejected(measurement.codec, bytes("00 00"), .invalidLength)               // trailing byte
        let error = codecError { () throws(GATTCodecError) in try measurement.decode(bytes("01 0A 00 00 00 34")) }
        #expect(error?.path == ["CSC Measurement", "Wheel Revolution Data", "Last Wheel Event Time"])
    }

    // GSS "CSC Feature": uint16, bit 0 Wheel Revolution Data Supported, bit 1 Crank Revolution
    // Data Supported, bit 2 Multiple Sensor Locations Supported; bits 3–15 reserved.
    @Test("CSC Feature bits; reserved bits dropped when read and written 0")
    func feature() throws {
        let codec = CyclingSpeedAndCadenceService.feature.codec
        try expectBytes(codec, [.wheelRevolutionData, .crankRevolutionData, .multipleSensorLocations], bytes("07 00"))
        try expectBytes(codec, .crankRevolutionData, bytes("02 00"))
        #expect(try codec.decode(bytes("0B 80")) == [.wheelRevolutionData, .crankRevolutionData])
        #expect(try codec.encode(CSCFeature(rawValue: 0xFFFF)) == bytes("07 00"))
        expectRejected(codec, bytes("07"), .invalidLength)
    }

    // GSS "Sensor Location": uint8, 0 Other, 1 Top of shoe, 2 In shoe, 3 Hip, 4 Front Wheel,
    // 5 Left Crank, 6 Right Crank, 7 Left Pedal, 8 Right Pedal, 9 Front Hub, 10 Rear Dropout,
    // 11 Chainstay, 12 Rear Wheel, 13 Rear Hub, 14 Chest, 15 Spider, 16 Chain Ring; 17–255 reserved.
    @Test("Sensor Location values, reserved values rejected")
    func sensorLocation() throws {
        let codec = CyclingSpeedAndCadenceService.sensorLocation.codec
        let expected: [SensorLocation] = [.other, .topOfShoe, .inShoe, .hip, .frontWheel, .leftCrank, .rightCrank, .leftPedal,
                                          .rightPedal, .frontHub, .rearDropout, .chainstay, .rearWheel, .rearHub, .chest,
                                          .spider, .chainRing]
        for (raw, location) in expected.enumerated() {
            try expectBytes(codec, location, Data([UInt8(raw)]))
        }
        expectRejected(codec, bytes("11"), .valueNotAllowed)
        expectRejected(codec, bytes("FF"), .valueNotAllowed)
        expectRejected(codec, bytes("0A 00"), .invalidLength)
    }

    // GSS "SC Control Point": Op Code uint8 — 0x01 Set Cumulative Value (uint32 parameter),
    // 0x02 Start Sensor Calibration, 0x03 Update Sensor Location (uint8 Sensor Location),
    // 0x04 Request Supported Sensor Locations, 0x10 Response Code (Request Op Code uint8,
    // Response Value uint8: 1 Success, 2 Op Code Not Supported, 3 Invalid Parameter,
    // 4 Operation Failed; Response Parameter: the supported locations, one uint8 each).
    @Test("SC Control Point requests")
    func controlPointRequests() throws {
        try expectBytes(controlPoint.codec, .setCumulativeValue(123_456), bytes("01 40 E2 01 00"))
        try expectBytes(controlPoint.codec, .setCumulativeValue(0), bytes("01 00 00 00 00"))
        try expectBytes(controlPoint.codec, .startSensorCalibration, bytes("02"))
        try expectBytes(controlPoint.codec, .updateSensorLocation(.rearDropout), bytes("03 0A"))
        try expectBytes(controlPoint.codec, .requestSupportedSensorLocations, bytes("04"))
    }

    @Test("SC Control Point responses, with the supported locations only after a successful request for them")
    func controlPointResponses() throws {
        try expectBytes(controlPoint.codec, .response(SensorControlPointResponse(requestOpCode: 0x01, result: .success)),
                        bytes("10 01 01"))
        try expectBytes(controlPoint.codec,
                        .response(SensorControlPointResponse(requestOpCode: 0x04, result: .success,
                                                             supportedSensorLocations: [.frontWheel, .rearWheel, .rearHub])),
                        bytes("10 04 01 04 0C 0D"))
        try expectBytes(controlPoint.codec, .response(SensorControlPointResponse(requestOpCode: 0x07, result: .opCodeNotSupported)),
                        bytes("10 07 02"))
        try expectBytes(controlPoint.codec, .response(SensorControlPointResponse(requestOpCode: 0x04, result: .operationFailed)),
                        bytes("10 04 04"))
        let misplaced = SCControlPoint.response(SensorControlPointResponse(requestOpCode: 0x01, result: .success,
                                                                           supportedSensorLocations: [.hip]))
        let error = codecError { () throws(GATTCodecError) in try controlPoint.encode(misplaced) }
        #expect(error?.kind == .valueNotAllowed)
        #expect(error?.path == ["SC Control Point", "Response Parameter"])
    }

    @Test("reserved op codes, locations and response values are not allowed; short and long values are invalid lengths")
    func controlPointMalformed() {
        let codec = controlPoint.codec
        for reserved in ["00", "05", "0F", "11", "20", "FF"] {
            expectRejected(codec, bytes(reserved), .valueNotAllowed)
        }
        expectRejected(codec, bytes("03 11"), .valueNotAllowed)        // reserved sensor location
        expectRejected(codec, bytes("10 01 05"), .valueNotAllowed)     // reserved response value
        expectRejected(codec, bytes("10 04 01 04 11"), .valueNotAllowed) // reserved location listed
        expectRejected(codec, bytes(""), .invalidLength)
        expectRejected(codec, bytes("01 00 00 00"), .invalidLength)    // uint32 cut short
        expectRejected(codec, bytes("03"), .invalidLength)             // location missing
        expectRejected(codec, bytes("10 01"), .invalidLength)          // response value missing
        expectRejected(codec, bytes("04 00"), .invalidLength)          // no parameter for this op code
        expectRejected(codec, bytes("10 01 01 04"), .invalidLength)    // locations after another request's response
        expectRejected(codec, bytes("10 04 03 04"), .invalidLength)    // locations after a failure
        #expect(codecError { () throws(GATTCodecError) in try controlPoint.decode(bytes("05")) }?.path == ["SC Control Point", "Op Code"])
        #expect(codecError { () throws(GATTCodecError) in try controlPoint.decode(bytes("01 00 00")) }?.path
                == ["SC Control Point", "Cumulative Value"])
        #expect(codecError { () throws(GATTCodecError) in try controlPoint.decode(bytes("03 11")) }?.path
                == ["SC Control Point", "Sensor Location Value"])
    }

    @Test("the service declares its characteristics with the specification's properties")
    func declaration() throws {
        let definition = try CyclingSpeedAndCadenceService.declaration.definition()
        #expect(definition.uuid == BluetoothUUID(0x1816))
        #expect(definition.characteristics.map(\.uuid) == [BluetoothUUID(0x2A5B), BluetoothUUID(0x2A5C), BluetoothUUID(0x2A5D), BluetoothUUID(0x2A55)])
        #expect(definition.characteristics.map(\.properties) == [[.notify], [.read], [.read], [.write, .indicate]])
        #expect(BluetoothUUID(0x1816).name == "Cycling Speed and Cadence")
        #expect(definition.characteristics.map { $0.uuid.name } == ["CSC Measurement", "CSC Feature", "Sensor Location", "SC Control Point"])
    }

    @Test("end to end: a typed CSC sensor notifies measurements, serves its feature and location, and answers its control point")
    func endToEnd() async throws {
        let requests = Received<SCControlPoint>()
        let (fixture, sensor) = try await GATTFixture.make { server in
            try await server.host(CyclingSpeedAndCadenceService.self) { handlers in
                handlers.onRead(CyclingSpeedAndCadenceService.feature) { _ in [.wheelRevolutionData, .crankRevolutionData, .multipleSensorLocations] }
                handlers.onRead(CyclingSpeedAndCadenceService.sensorLocation) { _ in .rearDropout }
                handlers.onWrite(CyclingSpeedAndCadenceService.controlPoint) { request, _ in requests.append(request) }
            }
        }
        var peripheralEvents = fixture.peripheral.events()
        let remote = try await fixture.client.discover(CyclingSpeedAndCadenceService.self)
        #expect(try await remote.read(CyclingSpeedAndCadenceService.feature) == [.wheelRevolutionData, .crankRevolutionData, .multipleSensorLocations])
        #expect(try await remote.read(CyclingSpeedAndCadenceService.sensorLocation) == .rearDropout)
        let measurements = try await remote.subscribe(to: CyclingSpeedAndCadenceService.measurement)
        let responses = try await remote.subscribe(to: CyclingSpeedAndCadenceService.controlPoint)
        await peripheralEvents.waitForSubscriptions(2)

        var sent: [CSCMeasurement] = []
        for index in 0..<20 {
            let step = UInt16(index)
            let wheel = WheelRevolutionData(cumulativeRevolutions: 1000 + 3 * UInt32(index), lastEventTime: 2300 &* step)
            let crank: CrankRevolutionData? = index.isMultiple(of: 3) ? nil : CrankRevolutionData(cumulativeRevolutions: step, lastEventTime: 700 * step)
            sent.append(CSCMeasurement(wheelRevolutions: wheel, crankRevolutions: crank))
        }
        let received = try await roundTrip(sent, send: { try await sensor.notify(CyclingSpeedAndCadenceService.measurement, $0) }, through: measurements)
        #expect(received == sent)

        try await remote.write(.requestSupportedSensorLocations, to: CyclingSpeedAndCadenceService.controlPoint)
        await requests.wait(for: 1)
        let answer = SCControlPoint.response(SensorControlPointResponse(requestOpCode: SCControlPoint.OpCode.requestSupportedSensorLocations.rawValue,
                                                                        result: .success, supportedSensorLocations: [.rearDropout, .rearWheel]))
        try await sensor.notify(CyclingSpeedAndCadenceService.controlPoint, answer)
        var iterator = responses.makeAsyncIterator()
        #expect(try await iterator.next() == answer)

        let reserved = await thrown { try await remote.write(Data([0x05]), to: CyclingSpeedAndCadenceService.controlPoint.uuid) }
        #expect(attError(reserved) == .valueNotAllowed)
        #expect(requests.values == [.requestSupportedSensorLocations])
    }
}
