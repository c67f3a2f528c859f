import BleuCore
import Foundation
import Testing
@testable import BleuGATT

/// Seeded property tests over every codec: random valid values round-trip, and input cut
/// short (below a variable-length codec's minimum too) or too long is an invalid length. The
/// seed is fixed, so every run checks the same values; it is printed, and
/// `BLEU_GATT_SEED=<seed> swift test --filter PropertyTests` runs with another one.
@Suite("Codec properties (seeded)")
struct PropertyTests {
    static let defaultSeed: UInt64 = 0x0B1E_0C0D_EC5E_ED06

    static let seed: UInt64 = {
        let seed = ProcessInfo.processInfo.environment["BLEU_GATT_SEED"].flatMap { UInt64($0) } ?? defaultSeed
        print("BleuGATT property tests: seed \(seed) (rerun with BLEU_GATT_SEED=\(seed))")
        return seed
    }()

    static let iterations = 300

    @Test("every codec round-trips random valid values and rejects short and long input", arguments: CodecProperty.all)
    func property(_ property: CodecProperty) {
        var random = SeededRandomNumberGenerator(seed: Self.seed ^ property.salt)
        property.check(&random, Self.iterations)
    }

    @Test("decoding random bytes never crashes, and what decodes re-encodes to the same value", arguments: CodecProperty.all)
    func arbitraryBytes(_ property: CodecProperty) {
        var random = SeededRandomNumberGenerator(seed: Self.seed ^ property.salt ^ 0xA5A5)
        property.fuzz(&random, Self.iterations)
    }
}

/// How a codec's length is checked.
enum LengthRule: Sendable {
    /// The layout fixes the length: every shorter prefix and every longer value is rejected.
    case exact
    /// A header whose length the value's own bytes say (its flags), then a list of `item`-byte
    /// entries to the end: every cut inside the header or inside an entry is rejected, and so
    /// is one byte more.
    case list(header: @Sendable (Data) -> Int, item: Int)
    /// The value takes the rest of the bytes up to a maximum; more than that is rejected.
    case upTo(Int)
    /// The value takes the rest of the bytes, a count within the range: every length below
    /// its lower bound and one past its upper bound are rejected.
    case within(ClosedRange<Int>)
}

/// One codec's properties, type-erased so the tests can take them as arguments.
struct CodecProperty: Sendable, CustomStringConvertible {
    let description: String
    let salt: UInt64
    let check: @Sendable (inout SeededRandomNumberGenerator, Int) -> Void
    let fuzz: @Sendable (inout SeededRandomNumberGenerator, Int) -> Void

    init<Codec: GATTCodec>(_ name: String, _ codec: Codec, _ rule: LengthRule,
                           _ generate: @escaping @Sendable (inout SeededRandomNumberGenerator) -> Codec.Value)
    where Codec.Value: Equatable {
        description = name
        salt = name.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
        check = { random, iterations in
            for _ in 0..<iterations {
                let value = generate(&random)
                let data: Data
                do {
                    data = try codec.encode(value)
                } catch {
                    Issue.record("\(name): a valid value did not encode: \(value): \(error)")
                    return
                }
                guard (try? codec.decode(data)) == value else {
                    Issue.record("\(name): \(value) did not round-trip through \(data.hex)")
                    return
                }
                for bad in Self.malformed(data, rule, &random) {
                    let failure = codecError { () throws(GATTCodecError) in try codec.decode(bad) }
                    guard failure?.kind == .invalidLength, failure?.attError == .invalidAttributeValueLength else {
                        Issue.record("\(name): \(bad.hex) (from \(data.hex)) gave \(String(describing: failure)), not an invalid length")
                        return
                    }
                }
            }
        }
        fuzz = { random, iterations in
            for _ in 0..<iterations {
                let data = Data((0..<Int.random(in: 0...24, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
                guard let value = try? codec.decode(data) else { continue }
                let again = try? codec.encode(value)
                guard again.flatMap({ try? codec.decode($0) }) == value else {
                    Issue.record("\(name): \(data.hex) decoded but did not re-encode")
                    return
                }
            }
        }
    }

    /// Inputs that must be rejected as an invalid length.
    private static func malformed(_ data: Data, _ rule: LengthRule, _ random: inout SeededRandomNumberGenerator) -> [Data] {
        let extra = Data((0..<Int.random(in: 1...4, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        switch rule {
        case .exact:
            return (0..<data.count).map { data.prefix($0) } + [data + extra]
        case .list(let header, let item):
            let fixed = header(data)
            let insideEntries = stride(from: fixed, to: data.count, by: item).flatMap { start in (start + 1)..<min(start + item, data.count) }
            return ((0..<min(fixed, data.count)) + insideEntries).map { data.prefix($0) } + [data + extra.prefix(1)]
        case .upTo(let maximum):
            return [data + Data(repeating: 0x41, count: maximum + 1 - data.count)]
        case .within(let lengths):
            return (0..<lengths.lowerBound).map { data.prefix($0) }
                + [data + Data(repeating: 0x41, count: lengths.upperBound + 1 - data.count)]
        }
    }
}

extension Data {
    var hex: String { map { String(format: "%02X", $0) }.joined(separator: " ") }
}

extension CodecProperty {
    static let all: [CodecProperty] = fitness + [
        CodecProperty("uint8", .uint8, .exact) { .random(in: .min ... .max, using: &$0) },
        CodecProperty("uint16", .uint16, .exact) { .random(in: .min ... .max, using: &$0) },
        CodecProperty("uint32", .uint32, .exact) { .random(in: .min ... .max, using: &$0) },
        CodecProperty("uint64", .uint64, .exact) { .random(in: .min ... .max, using: &$0) },
        CodecProperty("sint8", .sint8, .exact) { .random(in: .min ... .max, using: &$0) },
        CodecProperty("sint16", .sint16, .exact) { .random(in: .min ... .max, using: &$0) },
        CodecProperty("sint32", .sint32, .exact) { .random(in: .min ... .max, using: &$0) },
        CodecProperty("sint64", .sint64, .exact) { .random(in: .min ... .max, using: &$0) },
        CodecProperty("uint24", .uint24, .exact) { .random(in: UInt24Codec.range, using: &$0) },
        CodecProperty("sint24", .sint24, .exact) { .random(in: Int24Codec.range, using: &$0) },
        CodecProperty("bool", .bool, .exact) { .random(using: &$0) },
        CodecProperty("utf8String", .utf8String, .upTo(512)) { randomString(&$0) },
        CodecProperty("utf8String(max 20)", .utf8String(maximumLength: 20), .upTo(20)) { randomString(&$0, maxBytes: 20) },
        CodecProperty("data", .data, .upTo(512)) { randomBytes(&$0, 0...64) },
        CodecProperty("data(count: 6)", .data(count: 6), .exact) { randomBytes(&$0, 6...6) },
        CodecProperty("data(lengths: 3...10)", .data(lengths: 3...10), .within(3...10)) { randomBytes(&$0, 3...10) },
        CodecProperty("data(lengths: 1...2)", .data(lengths: 1...2), .within(1...2)) { randomBytes(&$0, 1...2) },
        CodecProperty("medfloat16", .medfloat16, .exact) { random in
            randomFloat(&random, MedFloat16.self)
        },
        CodecProperty("medfloat32", .medfloat32, .exact) { random in
            randomFloat(&random, MedFloat32.self)
        },
        CodecProperty("medfloat16(allowsReserved)", MedicalFloatCodec(MedFloat16.self, allowsReserved: true), .exact) { random in
            randomFloat(&random, MedFloat16.self, reserved: true)
        },
        CodecProperty("medfloat32(allowsReserved)", MedicalFloatCodec(MedFloat32.self, allowsReserved: true), .exact) { random in
            randomFloat(&random, MedFloat32.self, reserved: true)
        },
        CodecProperty("percentage", .percentage, .exact) { UInt8.random(in: 0...100, using: &$0) },
        CodecProperty("enumeration(BodySensorLocation)", .enumeration(BodySensorLocation.self), .exact) {
            BodySensorLocation.allCases.randomElement(using: &$0)!
        },
        CodecProperty("enumeration(TemperatureType)", .enumeration(TemperatureType.self), .exact) {
            TemperatureType.allCases.randomElement(using: &$0)!
        },
        CodecProperty("bitField(AdjustReason)", AdjustReason.codec, .exact) { AdjustReason(rawValue: .random(in: 0...255, using: &$0)) },
        CodecProperty("Battery Level", BatteryService.level.codec, .exact) { UInt8.random(in: 0...100, using: &$0) },
        CodecProperty("System ID", SystemID.codec, .exact) { random in
            SystemID(manufacturerIdentifier: .random(in: 0...0xFF_FFFF_FFFF, using: &random),
                     organizationallyUniqueIdentifier: .random(in: UInt24Codec.range, using: &random))
        },
        CodecProperty("PnP ID", PnPID.codec, .exact) { random in
            PnPID(vendorIDSource: PnPID.VendorIDSource.allCases.randomElement(using: &random)!,
                  vendorID: .random(in: .min ... .max, using: &random), productID: .random(in: .min ... .max, using: &random),
                  productVersion: .random(in: .min ... .max, using: &random))
        },
        CodecProperty("Heart Rate Measurement", HeartRateMeasurement.codec, .list(header: heartRateHeaderLength, item: 2)) {
            randomHeartRate(&$0)
        },
        CodecProperty("Heart Rate Control Point", HeartRateService.controlPoint.codec, .exact) { _ in .resetEnergyExpended },
        CodecProperty("Temperature Measurement", TemperatureMeasurement.codec, .exact) { random in
            TemperatureMeasurement(temperature: randomFloat(&random, MedFloat32.self), unit: Bool.random(using: &random) ? .celsius : .fahrenheit,
                                   timestamp: Bool.random(using: &random) ? randomDateTime(&random) : nil,
                                   type: Bool.random(using: &random) ? TemperatureType.allCases.randomElement(using: &random) : nil)
        },
        CodecProperty("Date Time", DateTime.codec, .exact) { randomDateTime(&$0) },
        CodecProperty("Current Time", CurrentTime.codec, .exact) { random in
            CurrentTime(exactTime256: ExactTime256(
                dayDateTime: DayDateTime(dateTime: randomDateTime(&random), dayOfWeek: DayOfWeek.allCases.randomElement(using: &random)!),
                fractions256: .random(in: 0...255, using: &random)),
                adjustReason: AdjustReason(rawValue: .random(in: 0...255, using: &random)))
        },
        CodecProperty("ESS Temperature", Temperature.codec, .exact) { random in
            Bool.random(using: &random) && Bool.random(using: &random)
                ? .unknown : Temperature(hundredths: .random(in: Temperature.field.range, using: &random))
        },
        CodecProperty("ESS Humidity", Humidity.codec, .exact) { random in
            Bool.random(using: &random) && Bool.random(using: &random)
                ? .unknown : Humidity(hundredths: .random(in: Humidity.field.range, using: &random))
        },
        CodecProperty("ESS Pressure", Pressure.codec, .exact) { Pressure(tenthsOfPascal: .random(in: .min ... .max, using: &$0)) },
        CodecProperty("bitField(AdjustReason, reject)", BitFieldCodec(defined: AdjustReason.defined, undefinedBits: .reject), .exact) {
            AdjustReason(rawValue: .random(in: 0...255, using: &$0) & AdjustReason.defined.rawValue)
        },
        CodecProperty("bitField(16-bit options)", .bitField(WideOptions.all), .exact) { WideOptions(rawValue: .random(in: .min ... .max, using: &$0)) },
        CodecProperty("uint16 restricted 1–3600 (0xFF)", IntegerCodec<UInt16>().restricted(to: 1...3600, answering: .outOfRange), .exact) {
            .random(in: 1...3600, using: &$0)
        },
        CodecProperty("sint24 restricted", Int24Codec().restricted(to: -1000...1000), .exact) { .random(in: -1000...1000, using: &$0) },
        CodecProperty("enumeration(HeartRateControlPoint, 0x80)", HeartRateService.controlPoint.codec, .exact) { _ in .resetEnergyExpended },
        CodecProperty("Day Date Time", DayDateTime.codec, .exact) { random in
            DayDateTime(dateTime: randomDateTime(&random), dayOfWeek: DayOfWeek.allCases.randomElement(using: &random)!)
        },
        CodecProperty("Exact Time 256", ExactTime256.codec, .exact) { random in
            ExactTime256(dayDateTime: DayDateTime(dateTime: randomDateTime(&random), dayOfWeek: DayOfWeek.allCases.randomElement(using: &random)!),
                         fractions256: .random(in: 0...255, using: &random))
        },
        CodecProperty("Intermediate Temperature", HealthThermometerService.intermediateTemperature.codec, .exact) { random in
            TemperatureMeasurement(temperature: randomFloat(&random, MedFloat32.self), unit: .celsius, timestamp: nil, type: nil)
        },
        CodecProperty("Body Sensor Location (declared)", HeartRateService.bodySensorLocation.codec, .exact) {
            BodySensorLocation.allCases.randomElement(using: &$0)!
        },
        CodecProperty("Presentation Format", PresentationFormat.codec, .exact) { random in
            PresentationFormat(format: .init(rawValue: .random(in: 0...255, using: &random)), exponent: .random(in: .min ... .max, using: &random),
                               unit: .random(in: .min ... .max, using: &random), namespace: .random(in: 0...255, using: &random),
                               description: .random(in: .min ... .max, using: &random))
        },
    ]
}

private func randomBytes(_ random: inout SeededRandomNumberGenerator, _ counts: ClosedRange<Int>) -> Data {
    Data((0..<Int.random(in: counts, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
}

/// Text mixing 1- to 4-byte UTF-8 scalars, within `maxBytes`.
private func randomString(_ random: inout SeededRandomNumberGenerator, maxBytes: Int = 512) -> String {
    let ranges: [ClosedRange<UInt32>] = [0x20...0x7E, 0xA0...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFD, 0x1_0000...0x10_FFFF]
    var scalars = String.UnicodeScalarView()
    var length = 0
    for _ in 0..<Int.random(in: 0...40, using: &random) {
        let range = ranges.randomElement(using: &random)!
        let scalar = Unicode.Scalar(UInt32.random(in: range, using: &random))!
        guard length + String(scalar).utf8.count <= maxBytes else { break }
        length += String(scalar).utf8.count
        scalars.append(scalar)
    }
    return String(scalars)
}

/// Any bit pattern but the reserved one: numbers and the four usable special values. With
/// `reserved`, the reserved value too, one time in eight (a random pattern almost never is).
private func randomFloat<Float: MedicalFloat>(_ random: inout SeededRandomNumberGenerator, _ type: Float.Type,
                                              reserved: Bool = false) -> Float {
    if reserved, Int.random(in: 0..<8, using: &random) == 0 { return Float(.reserved) }
    while true {
        let value = Float(bitPattern: .random(in: .min ... .max, using: &random))
        if value.special != .reserved { return value }
    }
}

/// The fixed part of a Heart Rate Measurement, from its flags (GSS "Heart Rate Measurement"):
/// Flags, the value (2 bytes when bit 0 is set, else 1), Energy Expended (2 bytes, bit 3).
/// The RR intervals, 2 bytes each, follow.
@Sendable private func heartRateHeaderLength(_ data: Data) -> Int {
    guard let flags = data.first else { return 1 }
    return 1 + (flags & 0x01 != 0 ? 2 : 1) + (flags & 0x08 != 0 ? 2 : 0)
}

private func randomDateTime(_ random: inout SeededRandomNumberGenerator) -> DateTime {
    DateTime(year: Bool.random(using: &random) ? 0 : .random(in: 1582...9999, using: &random),
             month: .random(in: 0...12, using: &random), day: .random(in: 0...31, using: &random),
             hours: .random(in: 0...23, using: &random), minutes: .random(in: 0...59, using: &random),
             seconds: .random(in: 0...59, using: &random))
}

private func randomHeartRate(_ random: inout SeededRandomNumberGenerator) -> HeartRateMeasurement {
    let wide = Bool.random(using: &random)
    let contacts: [HeartRateMeasurement.SensorContact] = [.notSupported, .notDetected, .detected]
    return HeartRateMeasurement(
        heartRate: wide ? .random(in: .min ... .max, using: &random) : .random(in: 0...255, using: &random),
        valueFormat: wide ? .uint16 : .uint8, sensorContact: contacts.randomElement(using: &random)!,
        energyExpended: Bool.random(using: &random) ? .random(in: .min ... .max, using: &random) : nil,
        rrIntervals: (0..<Int.random(in: 0...9, using: &random)).map { _ in .random(in: .min ... .max, using: &random) })
}

/// A 16-bit option set, to check bit fields wider than a byte.
struct WideOptions: OptionSet, Sendable, Hashable {
    let rawValue: UInt16
    static let all = WideOptions(rawValue: 0xFFFF)
}
