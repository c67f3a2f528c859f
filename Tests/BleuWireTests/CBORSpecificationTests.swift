import BleuCore
import Foundation
import Testing

@testable import BleuWire

/// The examples of RFC 8949 Appendix A: each decodes to the value the RFC gives, and those in
/// preferred serialization encode back to the same bytes.
@Suite("CBOR: RFC 8949 Appendix A")
struct CBORSpecificationTests {
    struct Example: CustomStringConvertible, Sendable {
        let hex: String
        let value: CBORValue
        /// Whether our encoder (preferred serialization) writes exactly these bytes back.
        let preferred: Bool
        var description: String { hex }
    }

    static func e(_ hex: String, _ value: CBORValue, preferred: Bool = true) -> Example {
        Example(hex: hex, value: value, preferred: preferred)
    }

    static func text(_ s: String) -> CBORValue { .textString(s) }
    static func u(_ n: UInt64) -> CBORValue { .unsignedInteger(n) }

    static let examples: [Example] = [
        e("00", u(0)), e("01", u(1)), e("0a", u(10)), e("17", u(23)), e("1818", u(24)), e("1819", u(25)),
        e("1864", u(100)), e("1903e8", u(1000)), e("1a000f4240", u(1_000_000)),
        e("1b000000e8d4a51000", u(1_000_000_000_000)), e("1bffffffffffffffff", u(.max)),
        e("c249010000000000000000", .tagged(2, .byteString([1, 0, 0, 0, 0, 0, 0, 0, 0]))),
        e("3bffffffffffffffff", .negativeInteger(.max)),
        e("c349010000000000000000", .tagged(3, .byteString([1, 0, 0, 0, 0, 0, 0, 0, 0]))),
        e("20", CBORValue(-1)), e("29", CBORValue(-10)), e("3863", CBORValue(-100)), e("3903e7", CBORValue(-1000)),
        e("f90000", .float(0.0)), e("f98000", .float(-0.0)), e("f93c00", .float(1.0)),
        e("fb3ff199999999999a", .float(1.1)), e("f93e00", .float(1.5)), e("f97bff", .float(65504.0)),
        e("fa47c35000", .float(100000.0)), e("fa7f7fffff", .float(3.4028234663852886e+38)),
        e("fb7e37e43c8800759c", .float(1.0e+300)), e("f90001", .float(5.960464477539063e-8)),
        e("f90400", .float(0.00006103515625)), e("f9c400", .float(-4.0)), e("fbc010666666666666", .float(-4.1)),
        e("f97c00", .float(.infinity)), e("f9fc00", .float(-.infinity)),
        e("fa7f800000", .float(.infinity), preferred: false), e("faff800000", .float(-.infinity), preferred: false),
        e("fb7ff0000000000000", .float(.infinity), preferred: false),
        e("fbfff0000000000000", .float(-.infinity), preferred: false),
        e("f4", .boolean(false)), e("f5", .boolean(true)), e("f6", .null), e("f7", .undefined),
        e("f0", .simple(16)), e("f8ff", .simple(255)),
        e("c074323031332d30332d32315432303a30343a30305a", .tagged(0, text("2013-03-21T20:04:00Z"))),
        e("c11a514b67b0", .tagged(1, u(1_363_896_240))),
        e("c1fb41d452d9ec200000", .tagged(1, .float(1_363_896_240.5))),
        e("d74401020304", .tagged(23, .byteString([1, 2, 3, 4]))),
        e("d818456449455446", .tagged(24, .byteString(hexBytes("6449455446")))),
        e("d82076687474703a2f2f7777772e6578616d706c652e636f6d", .tagged(32, text("http://www.example.com"))),
        e("40", .byteString([])), e("4401020304", .byteString([1, 2, 3, 4])),
        e("60", text("")), e("6161", text("a")), e("6449455446", text("IETF")), e("62225c", text("\"\\")),
        e("62c3bc", text("\u{00fc}")), e("63e6b0b4", text("\u{6c34}")), e("64f0908591", text("\u{10151}")),
        e("80", .array([])), e("83010203", .array([u(1), u(2), u(3)])),
        e("8301820203820405", .array([u(1), .array([u(2), u(3)]), .array([u(4), u(5)])])),
        e("98190102030405060708090a0b0c0d0e0f101112131415161718181819", .array((1...25).map { u($0) })),
        e("a0", .map([])), e("a201020304", .map([CBORMapEntry(u(1), u(2)), CBORMapEntry(u(3), u(4))])),
        e("a26161016162820203", .map([CBORMapEntry(text("a"), u(1)), CBORMapEntry(text("b"), .array([u(2), u(3)]))])),
        e("826161a161626163", .array([text("a"), .map([CBORMapEntry(text("b"), text("c"))])])),
        e("a56161614161626142616361436164614461656145",
          .map(["a", "b", "c", "d", "e"].map { CBORMapEntry(text($0), text($0.uppercased())) })),
        e("5f42010243030405ff", .byteString([1, 2, 3, 4, 5]), preferred: false),
        e("7f657374726561646d696e67ff", text("streaming"), preferred: false),
        e("9fff", .array([]), preferred: false),
        e("9f018202039f0405ffff", .array([u(1), .array([u(2), u(3)]), .array([u(4), u(5)])]), preferred: false),
        e("9f01820203820405ff", .array([u(1), .array([u(2), u(3)]), .array([u(4), u(5)])]), preferred: false),
        e("83018202039f0405ff", .array([u(1), .array([u(2), u(3)]), .array([u(4), u(5)])]), preferred: false),
        e("83019f0203ff820405", .array([u(1), .array([u(2), u(3)]), .array([u(4), u(5)])]), preferred: false),
        e("9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff", .array((1...25).map { u($0) }), preferred: false),
        e("bf61610161629f0203ffff", .map([CBORMapEntry(text("a"), u(1)), CBORMapEntry(text("b"), .array([u(2), u(3)]))]), preferred: false),
        e("826161bf61626163ff", .array([text("a"), .map([CBORMapEntry(text("b"), text("c"))])]), preferred: false),
        e("bf6346756ef563416d7421ff", .map([CBORMapEntry(text("Fun"), .boolean(true)), CBORMapEntry(text("Amt"), CBORValue(-2))]), preferred: false),
    ]

    @Test("decodes to the RFC's value and re-encodes preferred forms byte for byte", arguments: examples)
    func example(_ example: Example) throws {
        let bytes = hexBytes(example.hex)
        let decoded = try CBORValue(decoding: bytes)
        #expect(decoded == example.value)
        if example.preferred {
            #expect(hexString(example.value.encoded()) == example.hex)
        }
    }

    @Test("NaN in every width decodes as NaN; half precision is the preferred form")
    func notANumber() throws {
        for hex in ["f97e00", "fa7fc00000", "fb7ff8000000000000"] {
            guard case .float(let d) = try CBORValue(decoding: hexBytes(hex)) else {
                Issue.record("\(hex) is not a float")
                continue
            }
            #expect(d.isNaN)
        }
        #expect(hexString(CBORValue.float(.nan).encoded()) == "f97e00")
    }

    @Test("Codable values match the RFC's bytes")
    func codableExamples() throws {
        let encoder = CBOREncoder()
        let decoder = CBORDecoder()
        #expect(hexString(try encoder.encodeBytes(UInt64.max)) == "1bffffffffffffffff")
        #expect(hexString(try encoder.encodeBytes(UInt128(1) << 64)) == "c249010000000000000000")
        #expect(hexString(try encoder.encodeBytes(-(Int128(1) << 64) - 1)) == "c349010000000000000000")
        #expect(try decoder.decode(UInt128.self, from: hexBytes("c249010000000000000000")) == UInt128(1) << 64)
        #expect(try decoder.decode(Int128.self, from: hexBytes("c349010000000000000000")) == -(Int128(1) << 64) - 1)
        #expect(try decoder.decode(Int128.self, from: hexBytes("3bffffffffffffffff")) == -(Int128(1) << 64))
        #expect(hexString(try encoder.encodeBytes([1, 2, 3])) == "83010203")
        #expect(hexString(try encoder.encodeBytes(["a": 1])) == "a1616101")
        #expect(try decoder.decode([Int].self, from: hexBytes("9f018202039f0405ffff").prefix(1) + [0xFF]) == [])
        #expect(try decoder.decode([String: Bool].self, from: hexBytes("bf6346756ef5ff")) == ["Fun": true])
        #expect(try decoder.decode(String.self, from: hexBytes("7f657374726561646d696e67ff")) == "streaming")
        #expect(try decoder.decode(Data.self, from: hexBytes("5f42010243030405ff")) == Data([1, 2, 3, 4, 5]))
        #expect(try decoder.decode(Date.self, from: hexBytes("c11a514b67b0")) == Date(timeIntervalSince1970: 1_363_896_240))
        #expect(try decoder.decode(Date.self, from: hexBytes("c1fb41d452d9ec200000")) == Date(timeIntervalSince1970: 1_363_896_240.5))
        #expect(try decoder.decode(Date.self, from: hexBytes("c074323031332d30332d32315432303a30343a30305a")) == Date(timeIntervalSince1970: 1_363_896_240))
        #expect(try decoder.decode(URL.self, from: hexBytes("d82076687474703a2f2f7777772e6578616d706c652e636f6d")) == URL(string: "http://www.example.com"))
        #expect(hexString(try encoder.encodeBytes(Date(timeIntervalSince1970: 1_363_896_240))) == "c11a514b67b0")
        #expect(hexString(try encoder.encodeBytes(Date(timeIntervalSince1970: 1_363_896_240.5))) == "c1fb41d452d9ec200000")
    }
}
