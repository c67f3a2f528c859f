import BleuCore
import Foundation
import ProcessSupport
import Testing
@testable import BleuGATT

/// The Python to run the reference with, from the environment.
let referencePython = ProcessInfo.processInfo.environment["BLEU_PYTHON"]

/// Cross-checks the catalogue against an independent implementation, the PyPI package
/// bluetooth-sig (scripts/gatt-reference.py): seeded random values encoded here must decode
/// there to the same fields, and its re-encoding must decode here to the same value.
///
/// Runs when `BLEU_PYTHON` names a Python with bluetooth-sig installed (`scripts/test.sh`
/// sets it up with `scripts/python-env.sh`, from `scripts/requirements-test.txt`). SFLOAT/FLOAT
/// values (Temperature Measurement) are left out: bluetooth-sig 0.6.0 reads their exponent as
/// biased (0xF014 as 2e8, where the Personal Health Devices white paper and the HL7 PHD guide
/// say 2.0), so our ``MedicalFloatTests`` check those against the published examples instead.
@Suite("Cross-check with bluetooth-sig", .enabled(if: referencePython != nil, "set BLEU_PYTHON (scripts/test.sh does)"))
struct ReferenceCrossCheckTests {
    static let iterations = 100

    @Test("catalogue values encoded here decode there to the same fields, and back")
    func crossCheck() async throws {
        let seed = PropertyTests.seed ^ 0x5EED
        print("BleuGATT cross-check: seed \(seed), derived from BLEU_GATT_SEED=\(PropertyTests.seed) (set that to rerun)")
        var random = SeededRandomNumberGenerator(seed: seed)
        var vectors: [ReferenceVector] = []
        for kind in ReferenceVector.kinds {
            for _ in 0..<Self.iterations { vectors.append(try kind(&random)) }
        }
        let answers = try await runReference(vectors.map { ["kind": $0.kind, "hex": $0.data.hex.replacingOccurrences(of: " ", with: "")] })
        try #require(answers.count == vectors.count)
        var failures = 0
        for (vector, answer) in zip(vectors, answers) where failures < 10 {
            guard let value = answer["value"] as? [Int], let rebuilt = answer["rebuilt"] as? String else {
                failures += 1
                Issue.record("\(vector.kind) \(vector.data.hex): bluetooth-sig failed: \(answer["error"] ?? answer)")
                continue
            }
            if value != vector.fields {
                failures += 1
                Issue.record("\(vector.kind) \(vector.data.hex): bluetooth-sig read \(value), we wrote \(vector.fields)")
            }
            if vector.checksRebuilt && !vector.decodesToSame(bytes(rebuilt)) {
                failures += 1
                Issue.record("\(vector.kind): bluetooth-sig's encoding \(rebuilt) of \(vector.data.hex) decodes here to another value")
            }
        }
    }

    /// Runs the reference script over the requests; one JSON object per request comes back.
    private func runReference(_ requests: [[String: String]]) async throws -> [[String: Any]] {
        let lines = try requests.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/gatt-reference.py")
        // Bounded: a reference that hangs is stopped after a minute.
        let outcome = try await ChildProcess.run(try #require(referencePython), arguments: [script.path],
                                                 input: Data((lines.joined(separator: "\n") + "\n").utf8), limit: .seconds(60))
        try #require(outcome.status == 0, "the reference script failed: \(outcome)")
        return try outcome.outputText.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }
}

/// One value encoded here, the fields the reference should read from it, and a check that
/// bytes decode here to the same value.
struct ReferenceVector {
    let kind: String
    let data: Data
    let fields: [Int]
    /// Whether the reference's re-encoding is checked too. Not for the scaled ESS values: the
    /// reference re-encodes them from a binary float and truncates (2150 × 0.01 may come back
    /// as 2149).
    let checksRebuilt: Bool
    let decodesToSame: (Data) -> Bool

    init<Value: Equatable>(_ kind: String, _ characteristic: Characteristic<Value>, _ value: Value, _ fields: [Int],
                           checksRebuilt: Bool = true) throws {
        self.kind = kind
        self.data = try characteristic.encode(value)
        self.fields = fields
        self.checksRebuilt = checksRebuilt
        self.decodesToSame = { (try? characteristic.decode($0)) == value }
    }

    typealias Make = @Sendable (inout SeededRandomNumberGenerator) throws -> ReferenceVector

    /// One maker per characteristic; the fields are flattened as gatt-reference.py does.
    static let kinds: [Make] = [
        { random in
            let level = UInt8.random(in: 0...100, using: &random)
            return try ReferenceVector("battery_level", BatteryService.level, level, [Int(level)])
        },
        { random in
            let location = BodySensorLocation.allCases.randomElement(using: &random)!
            return try ReferenceVector("body_sensor_location", HeartRateService.bodySensorLocation, location, [Int(location.rawValue)])
        },
        { _ in try ReferenceVector("heart_rate_control_point", HeartRateService.controlPoint, .resetEnergyExpended, [1]) },
        { random in
            let type = TemperatureType.allCases.randomElement(using: &random)!
            return try ReferenceVector("temperature_type", HealthThermometerService.temperatureType, type, [Int(type.rawValue)])
        },
        { random in
            let interval = UInt16.random(in: .min ... .max, using: &random)
            return try ReferenceVector("measurement_interval", HealthThermometerService.measurementInterval, interval, [Int(interval)])
        },
        { random in
            let wide = Bool.random(using: &random)
            let contacts: [(HeartRateMeasurement.SensorContact, Int)] = [(.notSupported, 0), (.notDetected, 1), (.detected, 2)]
            let (contact, contactField) = contacts.randomElement(using: &random)!
            let energy: UInt16? = Bool.random(using: &random) ? .random(in: .min ... .max, using: &random) : nil
            let rr = (0..<Int.random(in: 0...8, using: &random)).map { _ in UInt16.random(in: .min ... .max, using: &random) }
            let value = HeartRateMeasurement(heartRate: wide ? .random(in: .min ... .max, using: &random) : .random(in: 0...255, using: &random),
                                             valueFormat: wide ? .uint16 : .uint8, sensorContact: contact,
                                             energyExpended: energy, rrIntervals: rr)
            return try ReferenceVector("heart_rate_measurement", HeartRateService.measurement, value,
                                       [Int(value.heartRate), contactField, energy.map(Int.init) ?? -1] + rr.map(Int.init))
        },
        { random in
            let time = realDateTime(&random)
            let day = DayOfWeek.allCases.filter { $0 != .unknown }.randomElement(using: &random)!
            let fractions = UInt8.random(in: 0...255, using: &random)
            let reason = AdjustReason(rawValue: .random(in: 0...15, using: &random))
            let value = CurrentTime(exactTime256: ExactTime256(dayDateTime: DayDateTime(dateTime: time, dayOfWeek: day), fractions256: fractions),
                                    adjustReason: reason)
            return try ReferenceVector("current_time", CurrentTimeService.currentTime, value,
                                       dateFields(time) + [Int(day.rawValue), Int(fractions), Int(reason.rawValue)])
        },
        { random in
            let time = realDateTime(&random)
            let characteristic = Characteristic<DateTime>(BluetoothUUID(0x2A08), codec: DateTime.codec, properties: [.read])
            return try ReferenceVector("date_time", characteristic, time, dateFields(time))
        },
        { random in
            let id = SystemID(manufacturerIdentifier: .random(in: 0...0xFF_FFFF_FFFF, using: &random),
                              organizationallyUniqueIdentifier: .random(in: UInt24Codec.range, using: &random))
            return try ReferenceVector("system_id", DeviceInformationService.systemID, id,
                                       [Int(id.manufacturerIdentifier), Int(id.organizationallyUniqueIdentifier)])
        },
        { random in
            let id = PnPID(vendorIDSource: PnPID.VendorIDSource.allCases.randomElement(using: &random)!,
                           vendorID: .random(in: .min ... .max, using: &random), productID: .random(in: .min ... .max, using: &random),
                           productVersion: .random(in: .min ... .max, using: &random))
            return try ReferenceVector("pnp_id", DeviceInformationService.pnpID, id,
                                       [Int(id.vendorIDSource.rawValue), Int(id.vendorID), Int(id.productID), Int(id.productVersion)])
        },
        { random in
            let value = Temperature(hundredths: .random(in: Temperature.field.range, using: &random))
            return try ReferenceVector("temperature", EnvironmentalSensingService.temperature, value, [Int(value.hundredths)], checksRebuilt: false)
        },
        { random in
            let value = Humidity(hundredths: .random(in: Humidity.field.range, using: &random))
            return try ReferenceVector("humidity", EnvironmentalSensingService.humidity, value, [Int(value.hundredths)], checksRebuilt: false)
        },
        { random in
            let value = Pressure(tenthsOfPascal: .random(in: .min ... .max, using: &random))
            return try ReferenceVector("pressure", EnvironmentalSensingService.pressure, value, [Int(value.tenthsOfPascal)], checksRebuilt: false)
        },
    ]

    /// A date a calendar library accepts: known fields only.
    private static func realDateTime(_ random: inout SeededRandomNumberGenerator) -> DateTime {
        DateTime(year: .random(in: 1582...9999, using: &random), month: .random(in: 1...12, using: &random),
                 day: .random(in: 1...28, using: &random), hours: .random(in: 0...23, using: &random),
                 minutes: .random(in: 0...59, using: &random), seconds: .random(in: 0...59, using: &random))
    }

    private static func dateFields(_ time: DateTime) -> [Int] {
        [Int(time.year), Int(time.month), Int(time.day), Int(time.hours), Int(time.minutes), Int(time.seconds)]
    }
}
