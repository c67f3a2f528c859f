import BleuCore
import Foundation
import Testing

@testable import BleuWire

@Suite("CBOR: Codable shapes")
struct CBORCodableTests {
    let encoder = CBOREncoder()
    let decoder = CBORDecoder()

    func roundTrip<T: Codable & Equatable>(_ value: T, encoder: CBOREncoder = CBOREncoder(), decoder: CBORDecoder = CBORDecoder()) throws -> [UInt8] {
        let bytes = try encoder.encodeBytes(value)
        #expect(try decoder.decode(T.self, from: bytes) == value, "\(T.self) \(hexString(bytes))")
        #expect(try decoder.decode(T.self, from: Data(bytes)) == value)
        return bytes
    }

    struct Point: Codable, Equatable { var x: Int; var y: Int }
    struct Wrapper: Codable, Equatable {
        var value: Int
        init(_ value: Int) { self.value = value }
        init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Int.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }
    struct Nested: Codable, Equatable {
        var name: String
        var points: [Point]
        var table: [String: [Int]]
        var matrix: [[Double]]
        var wrapped: [Wrapper]
        var optionalPoint: Point?
    }

    @Test("keyed, unkeyed and single-value containers, nested")
    func containers() throws {
        #expect(hexString(try roundTrip(Point(x: 1, y: -2))) == "a2617801617921")
        #expect(hexString(try roundTrip(Wrapper(7))) == "07")
        #expect(hexString(try roundTrip([Wrapper(1), Wrapper(2)])) == "820102")
        let nested = Nested(name: "n", points: [Point(x: 0, y: 0), Point(x: 1000, y: -1000)],
                            table: ["a": [1, 2], "": []], matrix: [[1.5], [], [0.1, -0.0]],
                            wrapped: [Wrapper(-1)], optionalPoint: Point(x: 3, y: 4))
        _ = try roundTrip(nested)
        _ = try roundTrip([nested, nested])
        _ = try roundTrip(["k": nested])
    }

    struct Optionals: Codable, Equatable {
        var absent: Int?
        var present: Int?
        var explicitNull: String?

        enum CodingKeys: String, CodingKey { case absent, present, explicitNull }

        init(absent: Int?, present: Int?, explicitNull: String?) {
            self.absent = absent
            self.present = present
            self.explicitNull = explicitNull
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            absent = try c.decodeIfPresent(Int.self, forKey: .absent)
            present = try c.decodeIfPresent(Int.self, forKey: .present)
            explicitNull = try c.decodeIfPresent(String.self, forKey: .explicitNull)
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encodeIfPresent(absent, forKey: .absent)
            try c.encodeIfPresent(present, forKey: .present)
            try c.encode(explicitNull, forKey: .explicitNull)  // writes null when nil
        }
    }

    @Test("nil and absent keys are told apart")
    func nilVersusAbsent() throws {
        let bytes = try roundTrip(Optionals(absent: nil, present: 5, explicitNull: nil))
        let value = try CBORValue(decoding: bytes)
        #expect(value == .map([CBORMapEntry(.textString("present"), .unsignedInteger(5)),
                               CBORMapEntry(.textString("explicitNull"), .null)]))
        // The decoder sees the difference through `contains` and `decodeNil`.
        struct Probe: Decodable {
            var containsAbsent, containsNull, nullIsNil: Bool
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: Optionals.CodingKeys.self)
                containsAbsent = c.contains(.absent)
                containsNull = c.contains(.explicitNull)
                nullIsNil = try c.decodeNil(forKey: .explicitNull)
            }
        }
        let probe = try decoder.decode(Probe.self, from: bytes)
        #expect(!probe.containsAbsent && probe.containsNull && probe.nullIsNil)
        #expect(try roundTrip([1, nil, 3] as [Int?]) == hexBytes("8301f603"))
        #expect(try roundTrip(Optional<Int>.none) == [0xF6])
        // A null where a value is required is valueNotFound, not a crash.
        #expect(throws: DecodingError.self) { try decoder.decode(Point.self, from: hexBytes("a26178016179f6")) }
    }

    enum Command: Codable, Equatable {
        case stop
        case move(x: Int, y: Int)
        case say(String)
        case batch([Command])
        case tagged(id: UUID, payload: Data?)
    }

    @Test("enums with associated values")
    func enums() throws {
        _ = try roundTrip(Command.stop)
        _ = try roundTrip(Command.move(x: -1, y: 2))
        _ = try roundTrip(Command.say("hi"))
        _ = try roundTrip(Command.batch([.stop, .say("x"), .batch([])]))
        _ = try roundTrip(Command.tagged(id: UUID(), payload: Data([1, 2])))
        _ = try roundTrip(Command.tagged(id: UUID(), payload: nil))
        #expect(throws: DecodingError.self) { try decoder.decode(Command.self, from: hexBytes("a1636e6f70a0")) }  // {"nop": {}}
    }

    @Test("Data is a byte string, UUID is 16 bytes, URL is text")
    func foundationTypes() throws {
        #expect(try roundTrip(Data([0xDE, 0xAD])) == [0x42, 0xDE, 0xAD])
        #expect(try roundTrip(Data()) == [0x40])
        let id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        #expect(hexString(try roundTrip(id)) == "50e621e1f8c36c495a93fc0c247a3e6e5f")
        #expect(try decoder.decode(UUID.self, from: hexBytes("d82550e621e1f8c36c495a93fc0c247a3e6e5f")) == id)  // tag 37
        #expect(throws: DecodingError.self) { try decoder.decode(UUID.self, from: hexBytes("4401020304")) }
        #expect(try roundTrip(URL(string: "https://example.com/a?b=c")!) == [0x78, 0x19] + Array("https://example.com/a?b=c".utf8))
        // [UInt8] reads a byte string as well as an array of integers.
        #expect(try decoder.decode([UInt8].self, from: hexBytes("420102")) == [1, 2])
    }

    /// Reads its value through an unkeyed container, by hand, and notes how the container holds it.
    struct ManualBytes: Decodable {
        var bytes: [UInt8] = []
        var readsBytesDirectly = false
        var count: Int?

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            if case .bytes? = (container as? CBORUnkeyedDecodingContainer)?.elements { readsBytesDirectly = true }
            count = container.count
            #expect(try !container.decodeNil(), "a byte is never null")
            while !container.isAtEnd { bytes.append(try container.decode(UInt8.self)) }
            #expect(throws: DecodingError.self) { try container.decode(UInt8.self) }
        }
    }

    @Test("a byte string read as [UInt8] or through an unkeyed container is not expanded into an item per byte")
    func byteStringAsBytes() throws {
        var rng = SeededRandomNumberGenerator(seed: 14)
        let bytes = randomBytes(100_000, &rng)
        let encoded = try CBOREncoder().encodeBytes(Data(bytes))
        #expect(try decoder.decode([UInt8].self, from: encoded) == bytes)
        struct Blob: Codable, Equatable { var payload: [UInt8] }
        let blob = try CBOREncoder().encodeBytes(["payload": CBORValue.byteString(bytes)])
        #expect(try decoder.decode(Blob.self, from: blob) == Blob(payload: bytes), "as a field too")
        // Through an unkeyed container the bytes are read as they are.
        let manual = try decoder.decode(ManualBytes.self, from: encoded)
        #expect(manual.readsBytesDirectly)
        #expect(manual.count == 100_000)
        #expect(manual.bytes == bytes)
        // Other integer types still read the bytes as integers, with their range checks.
        #expect(try decoder.decode([Int].self, from: hexBytes("4301ff02")) == [1, 255, 2])
        #expect(throws: DecodingError.self) { try decoder.decode([Int8].self, from: hexBytes("4301ff02")) }
        #expect(try decoder.decode([UInt8].self, from: hexBytes("83010203")) == [1, 2, 3], "an array of integers still reads")
    }

    @Test("dates: tag 1 epoch time by default, bit-exact reference seconds on request")
    func dates() throws {
        let whole = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(hexString(try roundTrip(whole)) == "c11a6553f100")
        let now = Date(timeIntervalSinceReferenceDate: 786_000_000.123_456_7)
        let decoded = try decoder.decode(Date.self, from: try encoder.encodeBytes(now))
        #expect(abs(decoded.timeIntervalSince(now)) < 1e-6)
        let exact = CBOREncoder(dateEncoding: .secondsSinceReferenceDate)
        let exactDecoder = CBORDecoder(dateDecoding: .secondsSinceReferenceDate)
        for _ in 0..<100 {
            let date = Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9...1e9))
            _ = try roundTrip(date, encoder: exact, decoder: exactDecoder)
        }
    }

    struct Widths: Codable, Equatable {
        var i: Int, i8: Int8, i16: Int16, i32: Int32, i64: Int64, i128: Int128
        var u: UInt, u8: UInt8, u16: UInt16, u32: UInt32, u64: UInt64, u128: UInt128
    }

    @Test("every integer width at its limits")
    func integerWidths() throws {
        let low = Widths(i: .min, i8: .min, i16: .min, i32: .min, i64: .min, i128: .min, u: .min, u8: .min, u16: .min, u32: .min, u64: .min, u128: .min)
        let high = Widths(i: .max, i8: .max, i16: .max, i32: .max, i64: .max, i128: .max, u: .max, u8: .max, u16: .max, u32: .max, u64: .max, u128: .max)
        _ = try roundTrip(low)
        _ = try roundTrip(high)
        _ = try roundTrip([Int128.min, -1, 0, 1, Int128.max, Int128(Int64.min) - 1, Int128(UInt64.max) + 1])
        _ = try roundTrip([UInt128.max, 0, UInt128(UInt64.max), UInt128(UInt64.max) + 1])
        #expect(try roundTrip(Int8(-128)) == [0x38, 0x7F])
        #expect(try roundTrip(UInt16(500)) == [0x19, 0x01, 0xF4])
    }

    @Test("integers that do not fit the requested width are errors, not traps")
    func integerOverflow() throws {
        func fails<T: Decodable>(_ type: T.Type, _ hex: String) {
            #expect(throws: DecodingError.self, "\(T.self) from \(hex)") { try decoder.decode(type, from: hexBytes(hex)) }
        }
        fails(UInt8.self, "190100")  // 256
        fails(Int8.self, "1880")  // 128
        fails(Int8.self, "3880")  // -129
        fails(UInt.self, "20")  // -1
        fails(UInt64.self, "3bffffffffffffffff")
        fails(Int64.self, "1b8000000000000000")  // 2^63
        fails(Int64.self, "3b8000000000000000")  // -2^63 - 1
        fails(Int.self, "c249010000000000000000")  // 2^64 as a bignum
        fails(Int128.self, "c251" + "01" + String(repeating: "00", count: 16))  // 2^128
        fails(UInt128.self, "c349010000000000000000")  // negative bignum
        fails(Int.self, "f93e00")  // 1.5
        fails(Int.self, "6161")  // text
        fails([UInt8].self, "821901ff01")
        #expect(try decoder.decode(Int64.self, from: hexBytes("3b7fffffffffffffff")) == .min)
        #expect(try decoder.decode(Int.self, from: hexBytes("f94000")) == 2)  // 2.0 is an integer
        #expect(try decoder.decode(Double.self, from: hexBytes("1903e8")) == 1000)
    }

    @Test("Float and Double round trip bit for bit, in the shortest exact width")
    func floats() throws {
        #expect(try roundTrip(1.0) == hexBytes("f93c00"))
        #expect(try roundTrip(Float(100_000)) == hexBytes("fa47c35000"))
        #expect(try roundTrip(0.1) == hexBytes("fb3fb999999999999a"))
        var rng = SeededRandomNumberGenerator(seed: 0xF10A7)
        print("CBORCodableTests.floats seed \(rng.seed)")
        for _ in 0..<5_000 {
            let d = Double(bitPattern: rng.next())
            let f = Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))
            let dd = try decoder.decode(Double.self, from: try encoder.encodeBytes(d))
            let ff = try decoder.decode(Float.self, from: try encoder.encodeBytes(f))
            // Signaling NaNs come back quiet (the hardware conversions quiet them); all else is exact.
            let doubleExact = dd.bitPattern == d.bitPattern || (d.isSignalingNaN && dd.isNaN)
            let floatExact = ff.bitPattern == f.bitPattern || (f.isSignalingNaN && ff.isNaN)
            #expect(doubleExact, "double bits \(d.bitPattern)")
            #expect(floatExact, "float bits \(f.bitPattern)")
        }
        for special in [0.0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .ulpOfOne] {
            #expect(try decoder.decode(Double.self, from: try encoder.encodeBytes(special)).bitPattern == special.bitPattern)
        }
        #expect(throws: DecodingError.self) { try decoder.decode(Float.self, from: hexBytes("fb7e37e43c8800759c")) }  // 1e300
    }

    class Animal: Codable {
        var name: String
        init(name: String) { self.name = name }
    }

    final class Dog: Animal, Equatable {
        var bark: Int
        enum CodingKeys: String, CodingKey { case bark, base }
        init(name: String, bark: Int) {
            self.bark = bark
            super.init(name: name)
        }
        required init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            bark = try c.decode(Int.self, forKey: .bark)
            try super.init(from: c.superDecoder(forKey: .base))
        }
        override func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(bark, forKey: .bark)
            try super.encode(to: c.superEncoder(forKey: .base))
        }
        static func == (a: Dog, b: Dog) -> Bool { a.name == b.name && a.bark == b.bark }
    }

    final class Cat: Animal, Equatable {
        var lives: Int
        init(name: String, lives: Int) {
            self.lives = lives
            super.init(name: name)
        }
        required init(from decoder: any Decoder) throws {
            var c = try decoder.unkeyedContainer()
            lives = try c.decode(Int.self)
            try super.init(from: c.superDecoder())
        }
        override func encode(to encoder: any Encoder) throws {
            var c = encoder.unkeyedContainer()
            try c.encode(lives)
            try super.encode(to: c.superEncoder())
        }
        static func == (a: Cat, b: Cat) -> Bool { a.name == b.name && a.lives == b.lives }
    }

    final class Fox: Animal, Equatable {
        var tails: Int
        enum CodingKeys: String, CodingKey { case tails }
        init(name: String, tails: Int) {
            self.tails = tails
            super.init(name: name)
        }
        required init(from decoder: any Decoder) throws {
            tails = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .tails)
            try super.init(from: decoder.container(keyedBy: CodingKeys.self).superDecoder())
        }
        override func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(tails, forKey: .tails)
            try super.encode(to: c.superEncoder())
        }
        static func == (a: Fox, b: Fox) -> Bool { a.name == b.name && a.tails == b.tails }
    }

    @Test("superEncoder and superDecoder: keyed (named and default key) and unkeyed")
    func superCoders() throws {
        let dog = try roundTrip(Dog(name: "Rex", bark: 3))
        #expect(try CBORValue(decoding: dog) == .map([
            CBORMapEntry(.textString("bark"), .unsignedInteger(3)),
            CBORMapEntry(.textString("base"), .map([CBORMapEntry(.textString("name"), .textString("Rex"))])),
        ]))
        let cat = try roundTrip(Cat(name: "Tom", lives: 9))
        #expect(hexString(cat) == "8209a1646e616d6563546f6d")
        let fox = try roundTrip(Fox(name: "Kit", tails: 9))
        #expect(try CBORValue(decoding: fox) == .map([
            CBORMapEntry(.textString("tails"), .unsignedInteger(9)),
            CBORMapEntry(.textString("super"), .map([CBORMapEntry(.textString("name"), .textString("Kit"))])),
        ]))
    }

    struct Envelope: Codable, Equatable {
        var call: UInt64
        var method: String
        var arguments: [Int]
        enum CodingKeys: Int, CodingKey { case call = 1, method = 2, arguments = 3 }
    }

    @Test("integer keys where the key type has them, and either form decodes")
    func integerKeys() throws {
        let envelope = Envelope(call: 7, method: "ping", arguments: [1])
        let compact = CBOREncoder(keyEncoding: .integersWhenAvailable)
        let small = try roundTrip(envelope, encoder: compact)
        let large = try roundTrip(envelope)
        #expect(hexString(small) == "a30107026470696e67038101")
        #expect(small.count < large.count)
        // Numeric dictionary keys that would not survive as integers ("01") stay text.
        _ = try roundTrip(["01": 1, "1": 2, "-0": 3, "x": 4], encoder: compact)
        _ = try roundTrip([1: "a", -5: "b"], encoder: compact)
        // Types without integer keys keep text keys in the compact mode.
        #expect(try roundTrip(Point(x: 1, y: 2), encoder: compact) == hexBytes("a2617801617902"))
    }

    @Test("large maps (indexed lookup) and duplicate keys (the last wins on decode)")
    func largeMaps() throws {
        let table = Dictionary(uniqueKeysWithValues: (0..<500).map { ("key\($0)", $0) })
        _ = try roundTrip(table)
        let intTable = Dictionary(uniqueKeysWithValues: (0..<100).map { ($0 * 7, "v\($0)") })
        _ = try roundTrip(intTable)
        #expect(try decoder.decode([String: Int].self, from: hexBytes("a2616101616102")).count == 1)
        #expect(try decoder.decode(Point.self, from: hexBytes("a3617801617902617803")) == Point(x: 3, y: 2))
    }

    @Test("the top-level value may be any shape; a value that encodes nothing is an error")
    func topLevel() throws {
        _ = try roundTrip("text")
        _ = try roundTrip(true)
        _ = try roundTrip([[String]]())
        struct Nothing: Encodable { func encode(to encoder: any Encoder) throws {} }
        #expect(throws: EncodingError.self) { try encoder.encodeBytes(Nothing()) }
    }

    @Test("CBORValue passes through the Codable path untouched")
    func dynamicValues() throws {
        struct Holder: Codable, Equatable { var raw: CBORValue }
        let raw = CBORValue.tagged(99, .array([.simple(7), .undefined, .float(2.5), .byteString([1])]))
        _ = try roundTrip(Holder(raw: raw))
    }

    @Test("the encoder bounds nesting depth")
    func encoderDepth() throws {
        indirect enum Chain: Codable { case end, link(Chain) }
        var chain = Chain.end
        for _ in 0..<100 { chain = .link(chain) }
        #expect(throws: EncodingError.self) { try CBOREncoder().encodeBytes(chain) }
        #expect(throws: Never.self) { try CBOREncoder(maximumDepth: 500).encodeBytes(chain) }
    }
}
