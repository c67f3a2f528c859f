import BleuCore
import Foundation
import Testing

@testable import BleuWire

@Suite("CBOR: hostile input")
struct CBORHostileInputTests {
    func parseError(_ bytes: [UInt8], limits: CBORDecodingLimits = .init()) -> CBORError? {
        do {
            _ = try CBORValue(decoding: bytes, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test("nesting deeper than the limit is refused, at any depth setting")
    func depth() {
        let deepArrays = [UInt8](repeating: 0x81, count: 100_000) + [0x00]
        #expect(parseError(deepArrays) == .depthLimitExceeded(limit: 64, offset: 64))
        let deepTags = [UInt8](repeating: 0xC1, count: 1_000) + [0x00]
        #expect(parseError(deepTags) == .depthLimitExceeded(limit: 64, offset: 64))
        let deepIndefinite = [UInt8](repeating: 0x9F, count: 1_000)
        #expect(parseError(deepIndefinite) == .depthLimitExceeded(limit: 64, offset: 64))
        let deepMaps = Array([[UInt8]](repeating: [0xA1, 0x00], count: 200).joined()) + [0x00]
        #expect(parseError(deepMaps, limits: .init(maximumDepth: 10)) == .depthLimitExceeded(limit: 10, offset: 20))
        // Exactly at the limit is fine.
        #expect(parseError([UInt8](repeating: 0x81, count: 64) + [0x00]) == nil)
        #expect(throws: CBORError.self) { try CBORDecoder().decode([Int].self, from: deepArrays) }
    }

    @Test("declared lengths larger than the input fail before any allocation")
    func lengthsBeyondInput() {
        // A byte string, text string, array and map each claiming 2^64-1 (or 2^32-1) elements.
        #expect(parseError(hexBytes("5bffffffffffffffff")) == .lengthLimitExceeded(length: .max, limit: 16 << 20, offset: 0))
        #expect(parseError(hexBytes("7a7fffffff00")) == .lengthLimitExceeded(length: 0x7FFF_FFFF, limit: 16 << 20, offset: 0))
        #expect(parseError(hexBytes("9b000000000000ffff00")) == .truncated(offset: 9))
        #expect(parseError(hexBytes("ba0000ffff0000")) == .truncated(offset: 5))
        #expect(parseError(hexBytes("4502")) == .truncated(offset: 1))
        let limits = CBORDecodingLimits(maximumStringLength: 4, maximumCollectionCount: 3)
        #expect(parseError(hexBytes("450102030405"), limits: limits) == .lengthLimitExceeded(length: 5, limit: 4, offset: 0))
        #expect(parseError(hexBytes("8401020304"), limits: limits) == .lengthLimitExceeded(length: 4, limit: 3, offset: 0))
        #expect(parseError(hexBytes("9f01020304ff"), limits: limits) == .lengthLimitExceeded(length: 4, limit: 3, offset: 0))
        #expect(parseError(hexBytes("5f430102034201 02ff"), limits: limits) == .lengthLimitExceeded(length: 2, limit: 1, offset: 5))
    }

    @Test("malformed items are typed errors saying why")
    func malformed() {
        #expect(parseError([]) == .truncated(offset: 0))
        #expect(parseError([0x18]) == .truncated(offset: 1))
        #expect(parseError([0x1C]) == .malformed("reserved additional information 28", offset: 0))
        #expect(parseError([0x1F]) == .malformed("indefinite length on major type 0", offset: 0))
        #expect(parseError([0xDF]) == .malformed("indefinite length on major type 6", offset: 0))
        #expect(parseError([0xFF]) == .malformed("\"break\" outside an indefinite-length item", offset: 0))
        #expect(parseError([0x82, 0x01, 0xFF]) == .malformed("\"break\" outside an indefinite-length item", offset: 2))
        #expect(parseError([0xF8, 0x10]) == .malformed("two-byte simple value 16 below 32", offset: 0))
        #expect(parseError([0x62, 0xC3, 0x28]) == .invalidUTF8(offset: 0))
        #expect(parseError([0x7F, 0x61, 0xC3, 0x61, 0xBC, 0xFF]) == .invalidUTF8(offset: 1))  // split code point
        #expect(parseError([0x5F, 0x61, 0x61, 0xFF]) == .malformed("chunk of an indefinite-length string is not a definite string of the same type", offset: 1))
        #expect(parseError([0x5F, 0x5F, 0xFF, 0xFF]) == .malformed("chunk of an indefinite-length string is not a definite string of the same type", offset: 1))
        #expect(parseError([0x9F, 0x01]) == .truncated(offset: 2))
        #expect(parseError([0xBF, 0x01, 0xFF]) == .malformed("\"break\" outside an indefinite-length item", offset: 2))
        #expect(parseError([0x01, 0x02]) == .trailingBytes(offset: 1))
        #expect(parseError([0xFB, 0x00]) == .truncated(offset: 1))
    }

    @Test("random bytes never crash the parser or the Codable decoder")
    func randomBytes() {
        var rng = SeededRandomNumberGenerator(seed: 0xBAD_C0DE)
        print("CBORHostileInputTests.randomBytes seed \(rng.seed)")
        struct Target: Decodable { var a: Int?; var b: [String]?; var c: Data?; var d: [String: Double]? }
        var parsed = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...24, using: &rng)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if let value = try? CBORValue(decoding: bytes) {
                parsed += 1
                // Whatever parses re-encodes to an item that parses to the same encoding.
                let again = try? CBORValue(decoding: value.encoded())
                #expect(again?.encoded() == value.encoded())
            }
            _ = try? CBORDecoder().decode(Target.self, from: bytes)
            _ = try? CBORDecoder().decode([Int8].self, from: bytes)
        }
        #expect(parsed > 200)
    }
}
