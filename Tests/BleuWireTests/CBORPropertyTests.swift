import BleuCore
import Foundation
import Testing

@testable import BleuWire

/// Random values, generated from a printed seed, survive encode → decode unchanged.
@Suite("CBOR: seeded property tests")
struct CBORPropertyTests {
    struct Inner: Codable, Equatable {
        var flag: Bool
        var label: String
        var scores: [Float]
    }

    enum Choice: Codable, Equatable {
        case none
        case number(Int64)
        case pair(String, Inner?)
    }

    struct Sample: Codable, Equatable {
        var int: Int
        var int8: Int8
        var uint16: UInt16
        var int32: Int32
        var uint64: UInt64
        var double: Double
        var text: String
        var data: Data
        var id: UUID
        var optional: Int?
        var list: [Inner]
        var table: [String: Choice]
        var nested: [[UInt8]]
        var choice: Choice
    }

    static func randomText(_ rng: inout SeededRandomNumberGenerator) -> String {
        let alphabet = Array("abcXYZ 0189-_é水𐅑\"\\\n")
        return String((0..<Int.random(in: 0...12, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
    }

    static func randomInner(_ rng: inout SeededRandomNumberGenerator) -> Inner {
        Inner(flag: Bool.random(using: &rng), label: randomText(&rng),
              scores: (0..<Int.random(in: 0...3, using: &rng)).map { _ in Float(bitPattern: UInt32.random(in: 0...0x7F7F_FFFF, using: &rng)) })
    }

    static func randomChoice(_ rng: inout SeededRandomNumberGenerator) -> Choice {
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: .none
        case 1: .number(Int64(bitPattern: rng.next()))
        default: .pair(randomText(&rng), Bool.random(using: &rng) ? randomInner(&rng) : nil)
        }
    }

    /// Integers spread over all magnitudes, so every head width appears.
    static func randomInteger<T: FixedWidthInteger>(_ type: T.Type, _ rng: inout SeededRandomNumberGenerator) -> T {
        let bits = Int.random(in: 0...T.bitWidth, using: &rng)
        let raw = T(truncatingIfNeeded: rng.next()) & (bits == T.bitWidth ? ~0 : (T(1) << bits) &- 1)
        return T.isSigned && Bool.random(using: &rng) ? ~raw : raw
    }

    static func randomSample(_ rng: inout SeededRandomNumberGenerator) -> Sample {
        Sample(
            int: randomInteger(Int.self, &rng), int8: randomInteger(Int8.self, &rng),
            uint16: randomInteger(UInt16.self, &rng), int32: randomInteger(Int32.self, &rng),
            uint64: randomInteger(UInt64.self, &rng),
            double: [0.5, -0.0, 1e300, .infinity, Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF)].randomElement(using: &rng)!,
            text: randomText(&rng),
            data: Data((0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }),
            id: UUID(uuid: withUnsafeBytes(of: (rng.next(), rng.next())) { $0.load(as: uuid_t.self) }),
            optional: Bool.random(using: &rng) ? randomInteger(Int.self, &rng) : nil,
            list: (0..<Int.random(in: 0...4, using: &rng)).map { _ in randomInner(&rng) },
            table: Dictionary((0..<Int.random(in: 0...20, using: &rng)).map { _ in (randomText(&rng), randomChoice(&rng)) }, uniquingKeysWith: { a, _ in a }),
            nested: (0..<Int.random(in: 0...3, using: &rng)).map { _ in (0..<Int.random(in: 0...30, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) } },
            choice: randomChoice(&rng))
    }

    @Test("random Codable values round trip, with text and with integer keys")
    func codableRoundTrip() throws {
        var rng = seededGenerator("CBORPropertyTests.codableRoundTrip")
        let encoders = [CBOREncoder(), CBOREncoder(keyEncoding: .integersWhenAvailable)]
        for _ in 0..<1_000 {
            let sample = Self.randomSample(&rng)
            for encoder in encoders {
                let bytes = try encoder.encodeBytes(sample)
                #expect(try CBORDecoder().decode(Sample.self, from: bytes) == sample, "seed \(rng.seed)")
            }
        }
    }

    /// A random tree of every item kind, nested up to `depth`.
    static func randomValue(_ rng: inout SeededRandomNumberGenerator, depth: Int) -> CBORValue {
        let kinds = depth > 0 ? 13 : 10
        switch Int.random(in: 0..<kinds, using: &rng) {
        case 0: return .unsignedInteger(randomInteger(UInt64.self, &rng))
        case 1: return .negativeInteger(randomInteger(UInt64.self, &rng))
        case 2: return .byteString((0..<Int.random(in: 0...30, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        case 3: return .textString(randomText(&rng))
        case 4: return .boolean(Bool.random(using: &rng))
        case 5: return [.null, .undefined].randomElement(using: &rng)!
        case 6: return .simple([0, 19, 32, 255].randomElement(using: &rng)!)
        case 7: return .float(Double(bitPattern: rng.next()))
        case 8: return .float(Double(Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))))
        case 9: return .float(HalfPrecision.double(UInt16(truncatingIfNeeded: rng.next())))
        case 10: return .array((0..<Int.random(in: 0...5, using: &rng)).map { _ in randomValue(&rng, depth: depth - 1) })
        case 11: return .map((0..<Int.random(in: 0...5, using: &rng)).map { _ in
            CBORMapEntry(randomValue(&rng, depth: depth - 1), randomValue(&rng, depth: depth - 1)) })
        default: return .tagged(randomInteger(UInt64.self, &rng), randomValue(&rng, depth: depth - 1))
        }
    }

    @Test("random item trees round trip byte for byte, floats in their shortest exact width")
    func treeRoundTrip() throws {
        var rng = seededGenerator("CBORPropertyTests.treeRoundTrip")
        for _ in 0..<2_000 {
            let value = Self.randomValue(&rng, depth: 4)
            let bytes = value.encoded()
            let decoded = try CBORValue(decoding: bytes)
            #expect(decoded.encoded() == bytes, "seed \(rng.seed)")
            // Through the Codable path too.
            #expect(try CBOREncoder().encodeBytes(CBORDecoder().decode(CBORValue.self, from: bytes)) == bytes)
        }
    }
}
