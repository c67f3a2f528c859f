import BleuCore
import Foundation
import Testing
@testable import BleuGATT

/// Cycling Power Service characteristics against bytes built by hand from the GATT Specification
/// Supplement's field tables ("Cycling Power Measurement", "Cycling Power Feature", "Cycling
/// Power Vector", "Cycling Power Control Point").
///
/// Checked against the SIG's GATT XML definitions (org.bluetooth.characteristic.*.xml as
/// published in the oesmith/gatt-xml collection):
/// - cycling_power_measurement.xml: Flags 16 bits, bits 0–12 (bit 1 balance reference 1 = left,
///   bit 3 torque source 1 = crank based, bit 12 offset compensation indicator); field order;
///   Instantaneous Power sint16 (W); Pedal Power Balance uint8 (binary exponent −1, 1/2 %);
///   Accumulated Torque uint16 (binary exponent −5, 1/32 N·m); wheel data uint32 + uint16
///   (binary exponent −11, 1/2048 s); crank data uint16 + uint16 (1/1024 s); extreme forces
///   sint16 (N); extreme torques sint16 (1/32 N·m); extreme angles two uint12 in a uint24,
///   maximum in the low 12 bits (the XML's example 0xABC / 0x123 → 0x123ABC is a test below);
///   dead spot angles uint16 (degrees); Accumulated Energy uint16 (decimal exponent 3, kJ).
/// - cycling_power_feature.xml: 32 bits, bits 0–19 and the 2-bit Distribute System Support at
///   bits 20–21 (0 unspecified, 1 not for use in a distributed system, 2 can be used, 3 RFU).
/// - cycling_power_vector.xml: Flags uint8, bits 0–3 and the 2-bit direction at bits 4–5
///   (0 unknown, 1 tangential, 2 radial, 3 lateral); field order and formats; the force and
///   torque arrays are mutually exclusive.
/// - cycling_power_control_point.xml: op codes 1–4 (and 5–16, not typed) and 32 (Response Code);
///   Response Values 1–4.
///
/// Not checked there: the XML gives the control point parameters as "variable"; the Set
/// Cumulative Value uint32 and the Set Crank Length uint16 in 1/2 mm come from memory of the
/// Cycling Power Service specification.
@Suite("Catalogue: Cycling Power")
struct CyclingPowerTests {
    let measurement = CyclingPowerService.measurement

    // Flags 0x0000, Instantaneous Power sint16 −5 W (0xFFFB).
    @Test("power only")
    func minimal() throws {
        try expectBytes(measurement.codec, CyclingPowerMeasurement(instantaneousPower: -5), bytes("00 00 FB FF"))
    }

    // Flags 0x1FFF: bits 0–12, every field, balance reference left (bit 1), torque crank based (bit 3),
    // offset compensation indicator (bit 12). Then, in order:
    // Instantaneous Power 0x00FA = 250 W; Pedal Power Balance 0x64 = 100 × 1/2 % = 50 %;
    // Accumulated Torque 0x0320 = 800/32 = 25 N·m; Cumulative Wheel Revolutions 0x00000102 = 258,
    // Last Wheel Event Time 0x0800 = 2048/2048 s; Cumulative Crank Revolutions 0x0010 = 16,
    // Last Crank Event Time 0x0400 = 1 s; Maximum/Minimum Force Magnitude 500 N (0x01F4) and −20 N
    // (0xFFEC); Maximum/Minimum Torque Magnitude 1600/32 N·m (0x0640) and −32/32 N·m (0xFFE0);
    // Extreme Angles, maximum 90° (0x05A) in the low 12 bits and minimum 270° (0x10E) in the
    // high 12: 0x10E05A; Top Dead Spot Angle 12°; Bottom Dead Spot Angle 192°; Accumulated
    // Energy 258 kJ.
    @Test("every field, every flag")
    func full() throws {
        let value = CyclingPowerMeasurement(
            instantaneousPower: 250,
            pedalPowerBalance: .init(value: 100, reference: .left),
            accumulatedTorque: .init(value: 800, source: .crank),
            wheelRevolutions: WheelRevolutionData(cumulativeRevolutions: 258, lastEventTime: 2048),
            crankRevolutions: CrankRevolutionData(cumulativeRevolutions: 16, lastEventTime: 1024),
            extremeForceMagnitudes: .init(maximum: 500, minimum: -20),
            extremeTorqueMagnitudes: .init(maximum: 1600, minimum: -32),
            extremeAngles: ExtremeAngles(maximum: 90, minimum: 270),
            topDeadSpotAngle: 12, bottomDeadSpotAngle: 192, accumulatedEnergy: 258,
            offsetCompensationIndicator: true)
        try expectBytes(measurement.codec, value,
                        bytes("FF 1F FA 00 64 20 03 02 01 00 00 00 08 10 00 00 04 F4 01 EC FF 40 06 E0 FF 5A E0 10 0C 00 C0 00 02 01"))
        #expect(value.pedalPowerBalance?.percent == 50)
    }

    // Flags 0x0001: balance with an unknown reference (bit 1 clear). Flags 0x0004: torque, wheel
    // based (bit 3 clear). Flags 0x0100: extreme angles both 4095° (0xFFFFFF).
    @Test("references, sources and the 12-bit angles at their limits")
    func references() throws {
        try expectBytes(measurement.codec, CyclingPowerMeasurement(instantaneousPower: 250, pedalPowerBalance: .init(value: 100)),
                        bytes("01 00 FA 00 64"))
        try expectBytes(measurement.codec, CyclingPowerMeasurement(instantaneousPower: 250, accumulatedTorque: .init(value: 800)),
                        bytes("04 00 FA 00 20 03"))
        try expectBytes(measurement.codec, CyclingPowerMeasurement(instantaneousPower: 250, extremeAngles: ExtremeAngles(maximum: 4095, minimum: 4095)),
                        bytes("00 01 FA 00 FF FF FF"))
        try expectBytes(measurement.codec, CyclingPowerMeasurement(instantaneousPower: 0, extremeAngles: ExtremeAngles(maximum: 1, minimum: 0)),
                        bytes("00 01 00 00 01 00 00"))
        try expectBytes(measurement.codec, CyclingPowerMeasurement(instantaneousPower: 0, extremeAngles: ExtremeAngles(maximum: 0, minimum: 1)),
                        bytes("00 01 00 00 00 10 00"))
    }

    // The example in org.bluetooth.characteristic.cycling_power_measurement.xml, "Extreme Angles -
    // Maximum Angle": Maximum Angle 0xABC and Minimum Angle 0x123 are sent as the uint24 0x123ABC,
    // little-endian BC 3A 12. Flags 0x0100 (bit 8, Extreme Angles Present), Instantaneous Power 0.
    @Test("the Extreme Angles packing example of the SIG's XML definition")
    func extremeAnglesXMLExample() throws {
        try expectBytes(measurement.codec,
                        CyclingPowerMeasurement(instantaneousPower: 0, extremeAngles: ExtremeAngles(maximum: 0xABC, minimum: 0x123)),
                        bytes("00 01 00 00 BC 3A 12"))
    }

    // Flags 0xE000 are reserved bits 13–15; 0x000A sets the balance reference and torque source
    // bits without their fields. Both read as power only and are written back as flags 0x0000.
    @Test("reserved flag bits, and reference bits without their field, are ignored when read and written 0")
    func reservedFlags() throws {
        for flags in ["00 E0", "0A 00"] {
            let value = try measurement.decode(bytes(flags + " FA 00"))
            #expect(value == CyclingPowerMeasurement(instantaneousPower: 250))
            #expect(try measurement.encode(value) == bytes("00 00 FA 00"))
        }
    }

    @Test("missing fields and trailing bytes are invalid lengths; angles over 12 bits are not allowed")
    func malformed() {
        expectRejected(measurement.codec, bytes("00"), .invalidLength)
        expectRejected(measurement.codec, bytes("00 00 FA"), .invalidLength)
        expectRejected(measurement.codec, bytes("00 01 FA 00 5A E0"), .invalidLength)
        expectRejected(measurement.codec, bytes("10 00 FA 00 02 01 00 00 00"), .invalidLength)
        expectRejected(measurement.codec, bytes("00 08 FA 00 02"), .invalidLength)     // accumulated energy cut short
        expectRejected(measurement.codec, bytes("00 00 FA 00 00"), .invalidLength)
        #expect(codecError { () throws(GATTCodecError) in try measurement.decode(bytes("10 00 FA 00 02 01 00 00 00")) }?.path
                == ["Cycling Power Measurement", "Wheel Revolution Data", "Last Wheel Event Time"])
        #expect(codecError { () throws(GATTCodecError) in try measurement.decode(bytes("40 00 FA 00 F4 01")) }?.path
                == ["Cycling Power Measurement", "Minimum Force Magnitude"])
        #expect(codecError { () throws(GATTCodecError) in try measurement.decode(bytes("00 01 FA 00 5A E0")) }?.path
                == ["Cycling Power Measurement", "Extreme Angles"])
        let wide = CyclingPowerMeasurement(instantaneousPower: 0, extremeAngles: ExtremeAngles(maximum: 10, minimum: 4096))
        let error = codecError { () throws(GATTCodecError) in try measurement.encode(wide) }
        #expect(error?.kind == .valueNotAllowed)
        #expect(error?.path == ["Cycling Power Measurement", "Extreme Angles", "Minimum Angle"])
    }

    // GSS "Cycling Power Feature": uint32, bits 0–19 one feature each (bit 2 Wheel Revolution
    // Data, bit 3 Crank Revolution Data, bit 16 Sensor Measurement Context: torque based),
    // bits 20–21 Distribute System Support (0 unspecified, 1 not for use in a distributed
    // system, 2 can be used in one, 3 reserved), bits 22–31 reserved.
    @Test("Cycling Power Feature bits, distributed system support; reserved bits dropped when read and written 0")
    func feature() throws {
        let codec = CyclingPowerService.feature.codec
        try expectBytes(codec, [.wheelRevolutionData, .crankRevolutionData], bytes("0C 00 00 00"))
        try expectBytes(codec, .torqueBasedMeasurementContext, bytes("00 00 01 00"))
        try expectBytes(codec, [.pedalPowerBalance, .enhancedOffsetCompensation, .distributedSystemSupported], bytes("01 00 28 00"))
        #expect(try codec.decode(bytes("FF FF FF FF")) == CyclingPowerFeature.defined)
        #expect(try codec.encode(CyclingPowerFeature(rawValue: 0xFFFF_FFFF)) == bytes("FF FF 3F 00"))
        #expect(try codec.decode(bytes("00 00 00 00")).distributedSystemSupport == .unspecified)
        #expect(try codec.decode(bytes("00 00 10 00")).distributedSystemSupport == .notSupported)
        #expect(try codec.decode(bytes("00 00 20 00")).distributedSystemSupport == .supported)
        #expect(try codec.decode(bytes("00 00 30 00")).distributedSystemSupport == nil)
        expectRejected(codec, bytes("0C 00 00"), .invalidLength)
    }

    // GSS "Cycling Power Vector": Flags uint8 (bit 0 crank data, bit 1 first crank measurement
    // angle, bit 2 force array, bit 3 torque array, bits 4–5 measurement direction, bits 6–7
    // reserved). Flags 0x17: crank data, angle, force array, direction 1 (tangential). Crank
    // revolutions 5, event time 0x0200; First Crank Measurement Angle 45°; forces 100, −50, 300 N.
    // Flags 0x38: torque array, direction 3 (lateral): 64/32 and −128/32 N·m.
    @Test("Cycling Power Vector: force and torque arrays, direction")
    func vector() throws {
        let codec = CyclingPowerService.vector.codec
        try expectBytes(codec, CyclingPowerVector(crankRevolutions: CrankRevolutionData(cumulativeRevolutions: 5, lastEventTime: 0x0200),
                                                  firstCrankMeasurementAngle: 45, magnitudes: .force([100, -50, 300]), direction: .tangential),
                        bytes("17 05 00 00 02 2D 00 64 00 CE FF 2C 01"))
        try expectBytes(codec, CyclingPowerVector(magnitudes: .torque([64, -128]), direction: .lateral), bytes("38 40 00 80 FF"))
        try expectBytes(codec, CyclingPowerVector(direction: .radial), bytes("20"))
        #expect(try codec.decode(bytes("C0")) == CyclingPowerVector())
        #expect(try codec.encode(CyclingPowerVector()) == bytes("00"))
        expectRejected(codec, bytes("0C 01 00"), .valueNotAllowed)     // both arrays
        expectRejected(codec, bytes("04"), .invalidLength)             // force array flagged, empty
        expectRejected(codec, bytes("04 01 00 02"), .invalidLength)    // odd byte
        expectRejected(codec, bytes("01 05 00 00"), .invalidLength)    // crank event time cut short
        expectRejected(codec, bytes("00 00"), .invalidLength)          // trailing byte
        #expect(codecError { () throws(GATTCodecError) in try CyclingPowerService.vector.decode(bytes("0C 01 00")) }?.path
                == ["Cycling Power Vector", "Flags"])
        #expect(codecError { () throws(GATTCodecError) in try CyclingPowerService.vector.decode(bytes("08 01")) }?.path
                == ["Cycling Power Vector", "Instantaneous Torque Magnitude Array"])
        #expect(codecError { () throws(GATTCodecError) in try CyclingPowerService.vector.encode(CyclingPowerVector(magnitudes: .force([]))) }?.kind
                == .valueNotAllowed)
    }

    // Cycling Power Control Point: Op Code uint8 — 0x01 Set Cumulative Value (uint32), 0x02 Update
    // Sensor Location (uint8), 0x03 Request Supported Sensor Locations, 0x04 Set Crank Length
    // (uint16, 1/2 mm: 0x0159 = 345 = 172.5 mm), 0x20 Response Code (Request Op Code, Response
    // Value 1–4, the supported locations after a successful 0x03).
    @Test("Cycling Power Control Point: the typed requests and responses; the others refused")
    func controlPoint() throws {
        let codec = CyclingPowerService.controlPoint.codec
        try expectBytes(codec, .setCumulativeValue(10_000), bytes("01 10 27 00 00"))
        try expectBytes(codec, .updateSensorLocation(.leftCrank), bytes("02 05"))
        try expectBytes(codec, .requestSupportedSensorLocations, bytes("03"))
        try expectBytes(codec, .setCrankLength(345), bytes("04 59 01"))
        try expectBytes(codec, .response(SensorControlPointResponse(requestOpCode: 0x03, result: .success,
                                                                    supportedSensorLocations: [.leftCrank, .rightCrank])),
                        bytes("20 03 01 05 06"))
        try expectBytes(codec, .response(SensorControlPointResponse(requestOpCode: 0x04, result: .invalidParameter)), bytes("20 04 03"))
        for refused in ["00", "05", "0C", "10", "21", "FF"] {
            expectRejected(codec, bytes(refused), .valueNotAllowed)
        }
        expectRejected(codec, bytes("20 04 01 05"), .invalidLength)    // locations after Set Crank Length
        expectRejected(codec, bytes("04 59"), .invalidLength)
        #expect(codecError { () throws(GATTCodecError) in try CyclingPowerService.controlPoint.decode(bytes("04 59")) }?.path
                == ["Cycling Power Control Point", "Crank Length Value"])
    }

    @Test("the service declares its characteristics with the specification's properties")
    func declaration() throws {
        let definition = try CyclingPowerService.declaration.definition()
        #expect(definition.uuid == BluetoothUUID(0x1818))
        #expect(definition.characteristics.map(\.uuid)
                == [BluetoothUUID(0x2A63), BluetoothUUID(0x2A65), BluetoothUUID(0x2A5D), BluetoothUUID(0x2A64), BluetoothUUID(0x2A66)])
        #expect(definition.characteristics.map(\.properties) == [[.notify], [.read], [.read], [.notify], [.write, .indicate]])
        #expect(BluetoothUUID(0x1818).name == "Cycling Power")
        #expect(definition.characteristics.map { $0.uuid.name }
                == ["Cycling Power Measurement", "Cycling Power Feature", "Sensor Location", "Cycling Power Vector", "Cycling Power Control Point"])
    }

    @Test("end to end: a typed power meter notifies measurements and vectors, serves its feature and location, and sets its crank length")
    func endToEnd() async throws {
        let requests = Received<CyclingPowerControlPoint>()
        let features: CyclingPowerFeature = [.pedalPowerBalance, .crankRevolutionData, .extremeMagnitudes, .extremeAngles,
                                             .crankLengthAdjustment, .distributedSystemSupported]
        let (fixture, meter) = try await GATTFixture.make { server in
            try await server.host(CyclingPowerService.self) { handlers in
                handlers.onRead(CyclingPowerService.feature) { _ in features }
                handlers.onWrite(CyclingPowerService.controlPoint) { request, _ in requests.append(request) }
            }
        }
        try meter.setValue(.leftCrank, for: CyclingPowerService.sensorLocation)
        var peripheralEvents = fixture.peripheral.events()
        let remote = try await fixture.client.discover(CyclingPowerService.self)
        #expect(try await remote.read(CyclingPowerService.feature) == features)
        #expect(try await remote.read(CyclingPowerService.sensorLocation) == .leftCrank)
        let measurements = try await remote.subscribe(to: CyclingPowerService.measurement)
        let vectors = try await remote.subscribe(to: CyclingPowerService.vector)
        let responses = try await remote.subscribe(to: CyclingPowerService.controlPoint)
        await peripheralEvents.waitForSubscriptions(3)

        var sent: [CyclingPowerMeasurement] = []
        for index in 0..<12 {
            let step = Int16(index)
            let even = index.isMultiple(of: 2)
            let force: CyclingPowerMeasurement.ExtremeMagnitudes? = even ? .init(maximum: 400 + step, minimum: -10) : nil
            let angles: ExtremeAngles? = even ? ExtremeAngles(maximum: 80 + UInt16(index), minimum: 260) : nil
            sent.append(CyclingPowerMeasurement(instantaneousPower: 180 + 5 * step,
                                                pedalPowerBalance: .init(value: 95 + UInt8(index % 10), reference: .left),
                                                crankRevolutions: CrankRevolutionData(cumulativeRevolutions: UInt16(index), lastEventTime: 700 * UInt16(index)),
                                                extremeForceMagnitudes: force, extremeAngles: angles))
        }
        let received = try await roundTrip(sent, send: { try await meter.notify(CyclingPowerService.measurement, $0) }, through: measurements)
        #expect(received == sent)

        let vector = CyclingPowerVector(crankRevolutions: CrankRevolutionData(cumulativeRevolutions: 12, lastEventTime: 8000),
                                        firstCrankMeasurementAngle: 0, magnitudes: .force([10, 120, 240, 90]), direction: .tangential)
        try await meter.notify(CyclingPowerService.vector, vector)
        var vectorIterator = vectors.makeAsyncIterator()
        #expect(try await vectorIterator.next() == vector)

        try await remote.write(.setCrankLength(345), to: CyclingPowerService.controlPoint)
        await requests.wait(for: 1)
        #expect(requests.values == [.setCrankLength(345)])
        let answer = CyclingPowerControlPoint.response(SensorControlPointResponse(requestOpCode: CyclingPowerControlPoint.OpCode.setCrankLength.rawValue,
                                                                                  result: .success))
        try await meter.notify(CyclingPowerService.controlPoint, answer)
        var responseIterator = responses.makeAsyncIterator()
        #expect(try await responseIterator.next() == answer)
    }
}
