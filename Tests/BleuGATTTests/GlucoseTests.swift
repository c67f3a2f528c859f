import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuGATT

/// Glucose Service characteristics against bytes built by hand from the GATT Specification
/// Supplement's "Glucose Measurement", "Glucose Measurement Context", "Glucose Feature" and
/// "Record Access Control Point" tables, then a meter on the emulator answering Record Access
/// Control Point requests.
///
/// Checked against the SIG's GATT XML definitions (org.bluetooth.characteristic.*.xml as
/// published in the oesmith/gatt-xml collection):
/// - glucose_measurement.xml: Flags uint8, bits 0–4 (bit 2 set = mol/L); field order; Sequence
///   Number uint16; Time Offset sint16 (minutes); concentration SFLOAT; Type values 1–10 and
///   Sample Location values 1–4 and 15; Sensor Status Annunciation 16 bits, bits 0–11.
/// - glucose_measurement_context.xml: Flags uint8, bits 0–7 (bit 5 set = litres); field order,
///   Extended Flags right after the Sequence Number; Carbohydrate ID values 1–7; Meal 1–5;
///   Tester 1–3 and 15; Health 1–5 and 15; Exercise Duration uint16 (s, 0xFFFF overrun) and
///   Intensity uint8 (%); Medication ID 1–5; Carbohydrate, Medication and HbA1c SFLOAT.
/// - glucose_feature.xml: 16 bits, bits 0–10.
/// - record_access_control_point.xml: op codes 1–6; operators 0–6; Response Code Values 1–9.
/// - the nibble order: both measurement XML files note that nibble fields are listed least
///   significant nibble (bits 0–3) first, so Type and Tester are the low nibbles, Sample
///   Location and Health the high ones.
///
/// Not checked there: the filter type 0x01 (sequence number) and the Number of Stored Records
/// as a uint16 (the XML says "defined per service"); the XML's decimal exponents on the SFLOAT
/// carbohydrate (−3) and medication (−6, −3) fields, which BleuGATT, reading the SFLOAT's own
/// exponent, leaves as kilograms and litres.
@Suite("Catalogue: Glucose")
struct GlucoseTests {
    let measurement = GlucoseService.measurement
    let context = GlucoseService.measurementContext
    let racp = GlucoseService.recordAccessControlPoint
    let baseTime = DateTime(year: 2026, month: 11, day: 29, hours: 6, minutes: 30, seconds: 0)

    // Flags 0x00; Sequence Number 1 (01 00); Base Time 2026-11-29 06:30:00 (EA 07 0B 1D 06 1E 00).
    @Test("a measurement with only its sequence number and base time")
    func minimal() throws {
        try expectBytes(measurement.codec, GlucoseMeasurement(sequenceNumber: 1, baseTime: baseTime),
                        bytes("00 01 00 EA 07 0B 1D 06 1E 00"))
    }

    // Flags 0x1F: Time Offset (bit 0), Concentration and Type-Sample Location (bit 1), mol/L
    // (bit 2), Sensor Status Annunciation (bit 3), Context Information Follows (bit 4). Sequence
    // 0x0102; Time Offset −60 min = 0xFFC4; 5.6 mmol/L = 56e-4 mol/L = SFLOAT 0xC038; Type 2
    // (capillary plasma) in the low nibble, Sample Location 1 (finger) in the high = 0x12;
    // Sensor Status 0x0801: battery low (bit 0), time fault (bit 11).
    @Test("a measurement with every field, in mol/L")
    func everyField() throws {
        let value = GlucoseMeasurement(
            sequenceNumber: 0x0102, baseTime: baseTime, timeOffset: -60,
            concentration: .init(try MedFloat16(mantissa: 56, exponent: -4), unit: .molesPerLitre, type: .capillaryPlasma,
                                 sampleLocation: .finger),
            sensorStatus: [.batteryLow, .timeFault], contextInformationFollows: true)
        try expectBytes(measurement.codec, value, bytes("1F 02 01 EA 07 0B 1D 06 1E 00 C4 FF 38 C0 12 01 08"))
    }

    // Flags 0x02 (kg/L): 95 mg/dL = 95e-5 kg/L = SFLOAT 0xB05F; Type 1 (capillary whole blood),
    // Sample Location 15 (not available) = 0xF1.
    @Test("a concentration in kg/L, sample location not available")
    func kilogramsPerLitre() throws {
        let value = GlucoseMeasurement(sequenceNumber: 3, baseTime: baseTime,
                                       concentration: .init(try MedFloat16(mantissa: 95, exponent: -5), unit: .kilogramsPerLitre,
                                                            type: .capillaryWholeBlood, sampleLocation: .notAvailable))
        try expectBytes(measurement.codec, value, bytes("02 03 00 EA 07 0B 1D 06 1E 00 5F B0 F1"))
    }

    @Test("reserved bits are ignored when read and written 0; reserved nibbles and short fields are refused naming the field")
    func reservedAndMalformed() throws {
        // Flags 0xE4: bits 5–7 reserved, and the unit bit without a concentration.
        let plain = try measurement.decode(bytes("E4 01 00 EA 07 0B 1D 06 1E 00"))
        #expect(plain == GlucoseMeasurement(sequenceNumber: 1, baseTime: baseTime))
        #expect(try measurement.encode(plain) == bytes("00 01 00 EA 07 0B 1D 06 1E 00"))
        // Sensor Status 0xF801: bits 12–15 reserved.
        let status = try measurement.decode(bytes("08 01 00 EA 07 0B 1D 06 1E 00 01 F8"))
        #expect(status.sensorStatus == [.batteryLow, .timeFault])
        #expect(try measurement.encode(status) == bytes("08 01 00 EA 07 0B 1D 06 1E 00 01 08"))

        let type = codecError { () throws(GATTCodecError) in try measurement.decode(bytes("02 03 00 EA 07 0B 1D 06 1E 00 5F B0 10")) }
        #expect(type?.path == ["Glucose Measurement", "Type-Sample Location", "Type"])
        #expect(type?.kind == .valueNotAllowed)
        let location = codecError { () throws(GATTCodecError) in try measurement.decode(bytes("02 03 00 EA 07 0B 1D 06 1E 00 5F B0 51")) }
        #expect(location?.path == ["Glucose Measurement", "Type-Sample Location", "Sample Location"])
        let offset = codecError { () throws(GATTCodecError) in try measurement.decode(bytes("01 03 00 EA 07 0B 1D 06 1E 00 C4")) }
        #expect(offset?.path == ["Glucose Measurement", "Time Offset"])
        #expect(offset?.kind == .invalidLength)
        expectRejected(measurement.codec, bytes("00 01 00 EA 07 0B 1D 06 1E"), .invalidLength)
    }

    // Flags 0x7F: Carbohydrate (bit 0), Meal (bit 1), Tester-Health (bit 2), Exercise (bit 3),
    // Medication (bit 4) in litres (bit 5), HbA1c (bit 6). Sequence 0x0102; Carbohydrate ID 2
    // (lunch), 60 g = 60e-3 kg = 0xD03C; Meal 2 (postprandial); Tester 1 (self) low nibble,
    // Health 5 (no health issues) high = 0x51; Exercise 1800 s = 0x0708, intensity 50 %;
    // Medication ID 1 (rapid-acting insulin), 0.1 mL = 1e-4 L = 0xC001; HbA1c 6.5 % = 0xF041.
    @Test("a context with every field")
    func contextEveryField() throws {
        let value = GlucoseMeasurementContext(
            sequenceNumber: 0x0102, carbohydrate: .init(.lunch, kilograms: try MedFloat16(mantissa: 60, exponent: -3)),
            meal: .postprandial, testerHealth: .init(tester: .selfTest, health: .noHealthIssues),
            exercise: .init(duration: 1800, intensity: 50),
            medication: .init(.rapidActingInsulin, amount: try MedFloat16(mantissa: 1, exponent: -4), unit: .litres),
            hbA1c: try MedFloat16(mantissa: 65, exponent: -1))
        try expectBytes(context.codec, value, bytes("7F 02 01 02 3C D0 02 51 08 07 32 01 01 C0 41 F0"))
    }

    @Test("context: medication in kilograms, the extended flags byte skipped, reserved values refused")
    func contextDetails() throws {
        // Flags 0x10: Medication ID 4 (long-acting), 2 mg = 2e-6 kg = 0xA002.
        try expectBytes(context.codec,
                        GlucoseMeasurementContext(sequenceNumber: 5, medication: .init(.longActingInsulin, amount: try MedFloat16(mantissa: 2, exponent: -6), unit: .kilograms)),
                        bytes("10 05 00 04 02 A0"))
        // Flags 0x82: Extended Flags present (bit 7, one reserved byte) and Meal 3 (fasting).
        let extended = try context.decode(bytes("82 05 00 00 03"))
        #expect(extended == GlucoseMeasurementContext(sequenceNumber: 5, meal: .fasting))
        #expect(try context.encode(extended) == bytes("02 05 00 03"))
        // Flags 0x20: the litres bit without a medication is ignored.
        #expect(try context.decode(bytes("20 05 00")) == GlucoseMeasurementContext(sequenceNumber: 5))
        let tester = codecError { () throws(GATTCodecError) in try context.decode(bytes("04 05 00 50")) }
        #expect(tester?.path == ["Glucose Measurement Context", "Tester-Health", "Tester"])
        let health = codecError { () throws(GATTCodecError) in try context.decode(bytes("04 05 00 61")) }
        #expect(health?.path == ["Glucose Measurement Context", "Tester-Health", "Health"])
        let carbohydrate = codecError { () throws(GATTCodecError) in try context.decode(bytes("01 05 00 08 3C D0")) }
        #expect(carbohydrate?.path == ["Glucose Measurement Context", "Carbohydrate ID"])
        let meal = codecError { () throws(GATTCodecError) in try context.decode(bytes("02 05 00 06")) }
        #expect(meal?.path == ["Glucose Measurement Context", "Meal"])
        let intensity = codecError { () throws(GATTCodecError) in try context.decode(bytes("08 05 00 08 07")) }
        #expect(intensity?.path == ["Glucose Measurement Context", "Exercise Intensity"])
        #expect(intensity?.kind == .invalidLength)
    }

    // "Glucose Feature": uint16, bits 0–10 defined (0x07FF), 11–15 reserved.
    @Test("Glucose Feature bits; reserved bits cleared both ways")
    func feature() throws {
        let codec = GlucoseService.feature.codec
        try expectBytes(codec, .all, bytes("FF 07"))
        try expectBytes(codec, [.lowBatteryDetection, .multipleBonds], bytes("01 04"))
        #expect(try codec.decode(bytes("FF FF")) == .all)
        #expect(try codec.encode(GlucoseFeature(rawValue: 0xFFFF)) == bytes("FF 07"))
    }

    // "Record Access Control Point": Op Code, Operator, Operand. Operators 0x01 All, 0x02 ≤,
    // 0x03 ≥, 0x04 within range, 0x05 first, 0x06 last; Filter Type 0x01 = sequence number
    // (uint16); responses with the Null operator 0x00.
    @Test("Record Access Control Point requests and responses, byte for byte")
    func recordAccessControlPoint() throws {
        let codec = racp.codec
        try expectBytes(codec, .reportStoredRecords(.all), bytes("01 01"))
        try expectBytes(codec, .reportStoredRecords(.lessThanOrEqual(0x0010)), bytes("01 02 01 10 00"))
        try expectBytes(codec, .deleteStoredRecords(.greaterThanOrEqual(5)), bytes("02 03 01 05 00"))
        try expectBytes(codec, .reportNumberOfStoredRecords(.within(3...7)), bytes("04 04 01 03 00 07 00"))
        try expectBytes(codec, .reportStoredRecords(.first), bytes("01 05"))
        try expectBytes(codec, .reportStoredRecords(.last), bytes("01 06"))
        try expectBytes(codec, .abortOperation, bytes("03 00"))
        try expectBytes(codec, .numberOfStoredRecords(17), bytes("05 00 11 00"))
        try expectBytes(codec, .responseCode(request: 0x01, response: .success), bytes("06 00 01 01"))
        try expectBytes(codec, .responseCode(request: 0x07, response: .opCodeNotSupported), bytes("06 00 07 02"))
        #expect(RecordAccessControlPoint.numberOfStoredRecords(1).opCode.rawValue == 0x05)
        #expect(RecordSelection.within(1...2).operator.rawValue == 0x04)
    }

    @Test("Record Access Control Point: unknown op codes, operators, filter types, and bad operands are refused naming the field")
    func recordAccessControlPointRefused() {
        func path(_ hex: String) -> [String]? {
            codecError { () throws(GATTCodecError) in try racp.decode(bytes(hex)) }?.path
        }
        #expect(path("07 00") == ["Record Access Control Point", "Op Code"])
        #expect(path("00 00") == ["Record Access Control Point", "Op Code"])
        #expect(path("01 00") == ["Record Access Control Point", "Operator"])
        #expect(path("01 07") == ["Record Access Control Point", "Operator"])
        #expect(path("03 01") == ["Record Access Control Point", "Operator"])      // Abort takes Null
        #expect(path("05 01 11 00") == ["Record Access Control Point", "Operator"])
        #expect(path("01 02 02 10 00") == ["Record Access Control Point", "Filter Type"])   // user facing time: not typed
        #expect(path("01 04 01 07 00 03 00") == ["Record Access Control Point", "Minimum"])  // 7...3
        #expect(path("06 00 01 0A") == ["Record Access Control Point", "Response Code Value"])
        #expect(path("01 02 01 10") == ["Record Access Control Point", "Maximum"])
        expectRejected(racp.codec, bytes("01 01 00"), .invalidLength)   // All takes no operand
        expectRejected(racp.codec, bytes("03"), .invalidLength)
    }

    @Test("a glucose meter on the emulator: the number of records, then the records and their context, reported through the RACP")
    func endToEnd() async throws {
        let requests = Received<RecordAccessControlPoint>()
        let busy = Locked(false)
        let (fixture, meter) = try await GATTFixture.make { server in
            let meter = try await server.host(GlucoseService.self) { handlers in
                handlers.onWrite(GlucoseService.recordAccessControlPoint) { request, _ in
                    if busy.withLock({ $0 }) { throw GlucoseService.procedureAlreadyInProgress }
                    requests.append(request)
                }
            }
            try meter.setValue([.lowBatteryDetection, .timeFault], for: GlucoseService.feature)
            return meter
        }
        var events = fixture.peripheral.events()
        let remote = try await fixture.client.discover(GlucoseService.self)
        #expect(try await remote.read(GlucoseService.feature) == [.lowBatteryDetection, .timeFault])
        let measurements = try await remote.subscribeSeen(to: GlucoseService.measurement, events: &events)
        let contexts = try await remote.subscribeSeen(to: GlucoseService.measurementContext, events: &events)
        let answers = try await remote.subscribeSeen(to: GlucoseService.recordAccessControlPoint, events: &events)
        var answerIterator = answers.makeAsyncIterator()

        try await remote.write(.reportNumberOfStoredRecords(.all), to: GlucoseService.recordAccessControlPoint)
        await requests.wait(for: 1)
        try await meter.notify(GlucoseService.recordAccessControlPoint, .numberOfStoredRecords(2))
        #expect(try await answerIterator.next() == .numberOfStoredRecords(2))

        try await remote.write(.reportStoredRecords(.greaterThanOrEqual(1)), to: GlucoseService.recordAccessControlPoint)
        await requests.wait(for: 2)
        #expect(requests.values == [.reportNumberOfStoredRecords(.all), .reportStoredRecords(.greaterThanOrEqual(1))])
        let records = [
            GlucoseMeasurement(sequenceNumber: 1, baseTime: baseTime,
                               concentration: .init(try MedFloat16(mantissa: 95, exponent: -5), unit: .kilogramsPerLitre,
                                                    type: .capillaryWholeBlood, sampleLocation: .finger),
                               contextInformationFollows: true),
            GlucoseMeasurement(sequenceNumber: 2, baseTime: baseTime, timeOffset: 90, sensorStatus: .resultTooHigh),
        ]
        let recordContext = GlucoseMeasurementContext(sequenceNumber: 1, meal: .preprandial)
        busy.withLock { $0 = true }
        let sending = Task {
            try await meter.notify(GlucoseService.measurement, records[0])
            try await meter.notify(GlucoseService.measurementContext, recordContext)
            try await meter.notify(GlucoseService.measurement, records[1])
        }
        // A request while the report is under way is answered with the service's 0x80.
        let refused = await thrown { try await remote.write(.abortOperation, to: GlucoseService.recordAccessControlPoint) }
        #expect(attError(refused) == GlucoseService.procedureAlreadyInProgress)

        let received = try await values(records.count, of: measurements)
        #expect(received == records)
        var contextIterator = contexts.makeAsyncIterator()
        #expect(try await contextIterator.next() == recordContext)
        try await sending.value
        busy.withLock { $0 = false }
        try await meter.notify(GlucoseService.recordAccessControlPoint, .responseCode(request: 0x01, response: .success))
        #expect(try await answerIterator.next() == .responseCode(request: 0x01, response: .success))

        // Bytes the codec refuses never reach the handler: ATT error 0x13.
        let malformed = await thrown { try await remote.write(bytes("01 00"), to: GlucoseService.recordAccessControlPoint.uuid) }
        #expect(attError(malformed) == .valueNotAllowed)
        #expect(requests.values.count == 2)
    }
}
