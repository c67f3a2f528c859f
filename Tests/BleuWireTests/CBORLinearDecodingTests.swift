import BleuCore
import Foundation
import Testing

@testable import BleuWire

/// The decoder's single-pass path (reading in place) against the tree path it shares its rules
/// with: same values for every shape, same refusals for every bad input.
@Suite("CBOR decoder: single-pass path")
struct CBORLinearDecodingTests {
    /// The tree path's result: parse everything, then decode the tree.
    func treeDecode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8], _ decoder: CBORDecoder = CBORDecoder()) throws -> T {
        try decoder.decodeItem(type, from: CBORValue(decoding: bytes, limits: decoder.limits), codingPath: [])
    }

    /// An error as both paths must agree on it: its kind, coding path (as key strings and
    /// integers) and description; a ``CBORError`` as itself.
    func describe(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { "\($0.stringValue)/\($0.intValue.map(String.init) ?? "-")" }.joined(separator: ".")
                + ": " + context.debugDescription
        }
        switch error {
        case let error as CBORError: return "CBORError \(error)"
        case DecodingError.typeMismatch(let type, let context): return "typeMismatch \(type) \(path(context))"
        case DecodingError.valueNotFound(let type, let context): return "valueNotFound \(type) \(path(context))"
        case DecodingError.keyNotFound(let key, let context): return "keyNotFound \(key.stringValue) \(path(context))"
        case DecodingError.dataCorrupted(let context): return "dataCorrupted \(path(context))"
        default: return "\(type(of: error)) \(error)"
        }
    }

    /// Decodes `bytes` both ways and expects the same value, or the same error.
    func expectSame<T: Decodable & Equatable>(_ type: T.Type, _ bytes: [UInt8], _ decoder: CBORDecoder = CBORDecoder(),
                                               sourceLocation: SourceLocation = #_sourceLocation) {
        let linear = Result { try decoder.decode(type, from: bytes) }
        let tree = Result { try treeDecode(type, bytes, decoder) }
        switch (linear, tree) {
        case (.success(let a), .success(let b)):
            // NaN is not equal to itself: values holding one compare by description, which shows
            // the NaN's payload.
            #expect(a == b || String(reflecting: a) == String(reflecting: b), "\(T.self) from \(hexString(bytes))",
                    sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)):
            #expect(describe(a) == describe(b), "\(T.self) from \(hexString(bytes))", sourceLocation: sourceLocation)
        default:
            Issue.record("\(T.self) from \(hexString(bytes)): single-pass \(linear), tree \(tree)", sourceLocation: sourceLocation)
        }
    }

    struct Reading: Codable, Equatable { var celsius: Double; var sensor: UInt16; var valid: Bool }
    struct Envelope: Codable, Equatable {
        var call: UInt64
        var method: String
        var arguments: [Reading]
        var note: String?
        enum CodingKeys: Int, CodingKey { case call = 1, method, arguments, note }
    }
    struct Widths: Codable, Equatable {
        var i: Int, i8: Int8, i16: Int16, i32: Int32, i64: Int64, i128: Int128
        var u: UInt, u8: UInt8, u16: UInt16, u32: UInt32, u64: UInt64, u128: UInt128
    }
    struct Floats: Codable, Equatable { var half: Double; var single: Float; var double: Double; var fromInteger: Double }
    struct Foundationish: Codable, Equatable {
        var data: Data
        var bytes: [UInt8]
        var id: UUID
        var when: Date
        var link: URL
        var raw: CBORValue
        var table: [String: [Int]]
        var numbered: [Int: String]
    }
    struct Deep: Codable, Equatable {
        var name: String
        var children: [Deep]
        var matrix: [[Int?]]
    }
    enum Command: Codable, Equatable { case stop, move(x: Int, y: Int), batch([Command]) }

    static let envelope = Envelope(call: 48_213, method: "read", arguments: [
        Reading(celsius: 21.5, sensor: 7, valid: true), Reading(celsius: -0.1, sensor: 65_535, valid: false),
    ], note: nil)
    static let widths = [
        Widths(i: .min, i8: .min, i16: .min, i32: .min, i64: .min, i128: .min, u: .min, u8: .min, u16: .min, u32: .min, u64: .min, u128: .min),
        Widths(i: .max, i8: .max, i16: .max, i32: .max, i64: .max, i128: .max, u: .max, u8: .max, u16: .max, u32: .max, u64: .max, u128: .max),
        Widths(i: -24, i8: -25, i16: 255, i32: 256, i64: 65_536, i128: -1, u: 23, u8: 24, u16: 65_535, u32: 1 << 31, u64: 1 << 40, u128: 0),
    ]
    static let floats = Floats(half: 1.5, single: 100_000, double: 0.1, fromInteger: 1000)
    static let foundationish = Foundationish(
        data: Data([0xDE, 0xAD]), bytes: [1, 2, 3], id: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
        when: Date(timeIntervalSince1970: 1_700_000_000), link: URL(string: "https://example.com/a?b=c")!,
        raw: .tagged(99, .array([.simple(7), .undefined, .float(2.5), .byteString([1])])),
        table: Dictionary(uniqueKeysWithValues: (0..<20).map { ("k\($0)", [$0]) }), numbered: [1: "a", -5: "b"])
    static let deep = Deep(name: "root", children: [
        Deep(name: "a", children: [], matrix: [[1, nil], []]),
        Deep(name: "b", children: [Deep(name: "c", children: [], matrix: [[nil]])], matrix: []),
    ], matrix: [[1, 2, 3], [nil]])

    /// Every value in both key encodings, and the bytes it encodes to.
    func corpus<T: Encodable>(_ value: T) throws -> [[UInt8]] {
        try [CBOREncoder(), CBOREncoder(keyEncoding: .integersWhenAvailable)].map { try $0.encodeBytes(value) }
    }

    @Test("same values as the tree path for every shape, read in place")
    func sameValues() throws {
        for bytes in try corpus(Self.envelope) {
            #expect(bytes.withUnsafeBytes { LinearDecoding.accepts($0, limits: .init()) })
            #expect(try CBORDecoder().decode(Envelope.self, from: bytes) == Self.envelope)
            expectSame(Envelope.self, bytes)
            expectSame(Reading.self, Array(try CBOREncoder().encodeBytes(Self.envelope.arguments[1])))
        }
        for value in Self.widths {
            for bytes in try corpus(value) { expectSame(Widths.self, bytes) }
        }
        for bytes in try corpus(Self.floats) { expectSame(Floats.self, bytes) }
        for bytes in try corpus(Self.foundationish) { expectSame(Foundationish.self, bytes) }
        for bytes in try corpus(Self.deep) { expectSame(Deep.self, bytes) }
        for bytes in try corpus(Command.batch([.stop, .move(x: -1, y: 2), .batch([])])) { expectSame(Command.self, bytes) }
        for bytes in try corpus([Int?.none, 3, nil]) { expectSame([Int?].self, bytes) }
        expectSame(Int?.self, [0xF6])
        expectSame(String.self, try CBOREncoder().encodeBytes("tëxt"))
        // Explicit widths of floats: half, single and double bits of the same kind of value.
        expectSame(Double.self, hexBytes("f93e00"))
        expectSame(Float.self, hexBytes("fa47c35000"))
        expectSame(Double.self, hexBytes("fb3fb999999999999a"))
        expectSame(Float.self, hexBytes("f97c00"))
        // Non-shortest integer heads are accepted alike.
        expectSame(UInt8.self, hexBytes("1b0000000000000007"))
        expectSame(Int.self, hexBytes("3a00000000"))
    }

    @Test("keys: duplicates (last wins), text before integer, canonically equivalent text, large maps")
    func keys() throws {
        struct Point: Codable, Equatable { var x: Int; var y: Int }
        expectSame(Point.self, hexBytes("a3617801617902617803"))  // {"x": 1, "y": 2, "x": 3}
        struct Numbered: Codable, Equatable {
            var a: Int
            enum CodingKeys: Int, CodingKey { case a = 1 }
        }
        expectSame(Numbered.self, hexBytes("a26161010102"))  // {"a": 1, 1: 2}: the text key wins
        expectSame(Numbered.self, hexBytes("a2010561610a"))  // {1: 5, "a": 10}: still the text key
        struct Accented: Codable, Equatable {
            var value: Int
            enum CodingKeys: String, CodingKey { case value = "caf\u{E9}" }
        }
        // "cafe\u{301}" (decomposed) equals "caf\u{E9}" as a String; KELVIN SIGN equals "K".
        let decomposed = CBORValue.map([CBORMapEntry(.textString("cafe\u{301}"), .unsignedInteger(4))]).encoded()
        #expect(try CBORDecoder().decode(Accented.self, from: decomposed) == Accented(value: 4))
        expectSame(Accented.self, decomposed)
        struct Kelvin: Codable, Equatable { var K: Int }
        expectSame(Kelvin.self, CBORValue.map([CBORMapEntry(.textString("\u{212A}"), .unsignedInteger(1))]).encoded())
        // More pairs than the scanned limit: the tree path's indexed container, same answers.
        struct Wide: Codable, Equatable { var k0, k5, k12, k13: Int }
        let wide = CBORValue.map((0..<14).map { CBORMapEntry(.textString("k\($0)"), .unsignedInteger(UInt64($0))) }).encoded()
        expectSame(Wide.self, wide)
        expectSame([String: Int].self, wide)
        expectSame(Wide.self, CBORValue.map((0..<12).map { CBORMapEntry(.textString("k\($0 + 2)"), .unsignedInteger(UInt64($0))) }).encoded())
    }

    @Test("refusals: every bad input is refused with the tree path's error")
    func refusals() throws {
        struct Point: Codable, Equatable { var x: Int; var y: Int }
        let malformed = ["", "18", "1c", "1f", "ff", "8201ff", "f810", "6261c3", "62c328", "4502", "a1617801ff",
                         "9b000000000000ffff00", "ba0000ffff0000", "0102", "a2617801", "a16178f6", "a1617a01",
                         "a2617801617962c328", "a2617801617981f810", "a2617801617918", "8201"]
        for hex in malformed {
            expectSame(Point.self, hexBytes(hex))
            expectSame([Int].self, hexBytes(hex))
        }
        // Limits bind both paths alike, for values the type would not even read.
        let limits = CBORDecoder(limits: .init(maximumDepth: 2, maximumStringLength: 3, maximumCollectionCount: 3))
        for hex in ["a36178016179026178636f6f6f", "a261780161798181818101", "a2617801617984010203", "a26178016179d8208101"] {
            expectSame(Point.self, hexBytes(hex), limits)
        }
        // Shape errors, with the same coding paths.
        for hex in ["a261780161796179", "a1617801", "a2617801617938ff", "a26178016179fb3ff8000000000000", "8101", "a0"] {
            expectSame(Point.self, hexBytes(hex))
        }
        for hex in ["83010203", "8301f603", "830102", "a0", "4401020304", "8261616162"] {
            expectSame([UInt8].self, hexBytes(hex))
            expectSame([Int8?].self, hexBytes(hex))
        }
        expectSame(Envelope.self, hexBytes("a4011830026472656164038aa0f6"))
    }

    @Test("random mutations of valid input: the same value or the same error on both paths")
    func mutations() throws {
        var rng = seededGenerator("CBORLinearDecodingTests.mutations")
        let seeds = try corpus(Self.envelope) + corpus(Self.deep) + corpus(Self.widths[2])
        for _ in 0..<3_000 {
            var bytes = seeds[Int.random(in: 0..<seeds.count, using: &rng)]
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                case 1: bytes.removeLast(Int.random(in: 0...Swift.min(3, bytes.count - 1), using: &rng))
                default: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: Int.random(in: 0...bytes.count, using: &rng))
                }
            }
            expectSame(Envelope.self, bytes)
            expectSame(Deep.self, bytes)
            expectSame(Widths.self, bytes)
        }
    }

    @Test("the check accepts only what the tree parser accepts, and leaves indefinite lengths to it")
    func checkIsSound() throws {
        var rng = seededGenerator("CBORLinearDecodingTests.checkIsSound")
        var accepted = 0
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...16, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let limits = CBORDecodingLimits(maximumDepth: 3, maximumStringLength: 8, maximumCollectionCount: 4)
            let parses = (try? CBORValue(decoding: bytes, limits: limits)) != nil
            if bytes.withUnsafeBytes({ LinearDecoding.accepts($0, limits: limits) }) {
                accepted += 1
                #expect(parses, "accepted \(hexString(bytes)), which the tree parser refuses")
            } else if parses {
                #expect(bytes.contains { $0 & 0x1F == 31 }, "refused \(hexString(bytes)), which the tree parser accepts")
            }
        }
        #expect(accepted > 200)
        // Indefinite lengths go to the tree path, which decodes them.
        #expect(!hexBytes("9f0102ff").withUnsafeBytes { LinearDecoding.accepts($0, limits: .init()) })
        #expect(try CBORDecoder().decode([Int].self, from: hexBytes("9f0102ff")) == [1, 2])
    }

    /// Keeps a container beyond `init(from:)` and reads from it afterwards.
    final class Kept: Decodable {
        let container: any UnkeyedDecodingContainer
        init(from decoder: any Decoder) throws { container = try decoder.unkeyedContainer() }
    }

    @Test("a container kept after decoding still reads its own copy of the input")
    func keptContainer() throws {
        let kept = try CBORDecoder().decode(Kept.self, from: Data(hexBytes("8301026161")))
        var container = kept.container
        #expect(try container.decode(Int.self) == 1)
        #expect(try container.decode(Int.self) == 2)
        #expect(try container.decode(String.self) == "a")
        #expect(container.isAtEnd)
        #expect(throws: DecodingError.self) { try container.decode(Int.self) }
    }
}
