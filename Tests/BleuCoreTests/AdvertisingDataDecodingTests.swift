import Foundation
import Testing
@testable import BleuCore

@Suite("AdvertisingData decoding of malformed input")
struct AdvertisingDataDecodingTests {
    private func malformed(_ bytes: [UInt8]) -> AdvertisingDataError? {
        do {
            _ = try AdvertisingData(decoding: bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test("a length running past the end says where")
    func truncatedLength() {
        #expect(malformed([0x02, 0x01, 0x06, 0x05, 0x09, 0x41]) ==
            .malformed(offset: 3, adType: 0x09, reason: "the length 5 runs past the end of the 6 bytes"))
        #expect(malformed([0x03]) == .malformed(offset: 0, adType: nil, reason: "the length 3 runs past the end of the 1 bytes"))
    }

    @Test("zero-length structures: zero padding is accepted, data after it is not")
    func zeroLength() throws {
        let padded: [UInt8] = [0x02, 0x01, 0x06] + Array(repeating: 0, count: 28)
        #expect(try AdvertisingData(decoding: padded).structures == [.flags(.leGeneralDiscoverable)])
        #expect(try AdvertisingData(decoding: [UInt8]()).structures.isEmpty)
        let error = malformed([0x00, 0x02, 0x01, 0x06])
        guard case .malformed(let offset, nil, let reason)? = error else {
            Issue.record("expected a malformed error, got \(String(describing: error))")
            return
        }
        #expect(offset == 0)
        #expect(reason.contains("zero-length"))
    }

    @Test("fields of the wrong size name the field", arguments: [
        ([0x03, 0x01, 0x06, 0x00], UInt8(0x01), "flags must be 1 byte, found 2"),
        ([0x01, 0x01], 0x01, "flags must be 1 byte, found 0"),
        ([0x03, 0x0A, 0x00, 0x00], 0x0A, "the TX power level must be 1 byte, found 2"),
        ([0x04, 0x03, 0x0F, 0x18, 0x0D], 0x03, "3 bytes is not a whole number of 2-byte UUIDs"),
        ([0x04, 0x05, 0x01, 0x02, 0x03], 0x05, "3 bytes is not a whole number of 4-byte UUIDs"),
        ([0x03, 0x07, 0x01, 0x02], 0x07, "2 bytes is not a whole number of 16-byte UUIDs"),
        ([0x02, 0x19, 0x41], 0x19, "the appearance must be 2 bytes, found 1"),
        ([0x04, 0x12, 0x06, 0x00, 0x80], 0x12, "the connection interval range must be 4 bytes, found 3"),
        ([0x02, 0x16, 0x0F], 0x16, "service data needs a 2-byte UUID, found 1 bytes"),
        ([0x02, 0xFF, 0x4C], 0xFF, "manufacturer data needs a 2-byte company identifier, found 1 bytes"),
        ([0x03, 0x09, 0xC3, 0x28], 0x09, "the local name is not valid UTF-8"),
    ] as [([UInt8], UInt8, String)])
    func wrongSizes(bytes: [UInt8], type: UInt8, reason: String) {
        #expect(malformed(bytes) == .malformed(offset: 0, adType: type, reason: reason))
    }

    @Test("the error description names the field and the offset")
    func description() {
        let error = AdvertisingDataError.malformed(offset: 3, adType: 0x0A, reason: "the TX power level must be 1 byte, found 2")
        #expect(error.description == "Malformed advertising data at byte 3 (TX power level): the TX power level must be 1 byte, found 2.")
    }

    /// 100,000 seeded random byte strings: decoding either succeeds — and then encoding gives
    /// the same bytes, less zero padding — or throws a typed error. Never a crash.
    @Test("random bytes never crash the decoder")
    func randomBytes() throws {
        let seed = UInt64(0xB1E0)
        print("AdvertisingData random decode seed: \(seed)")
        var rng = SeededRandomNumberGenerator(seed: seed)
        var decoded = 0
        for _ in 0..<100_000 {
            let count = Int.random(in: 0...40, using: &rng)
            var bytes = (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &rng) }
            // Bias towards plausible lengths so that many inputs get past the framing.
            var offset = 0
            while offset < bytes.count, Bool.random(using: &rng) {
                let remaining = bytes.count - offset - 1
                guard remaining > 0 else { break }
                bytes[offset] = UInt8(Int.random(in: 1...remaining, using: &rng))
                if Bool.random(using: &rng) {
                    bytes[offset + 1] = [0x01, 0x03, 0x05, 0x07, 0x09, 0x0A, 0x16, 0x19, 0xFF].randomElement(using: &rng)!
                }
                offset += Int(bytes[offset]) + 1
            }
            do {
                let data = try AdvertisingData(decoding: bytes)
                decoded += 1
                var significant = bytes
                if let zero = significantEnd(bytes) { significant = Array(bytes[..<zero]) }
                #expect(Array(try data.encoded(maximumLength: 255)) == significant, "input \(bytes)")
            } catch {
                // A typed AdvertisingDataError is the only other outcome (typed throws).
                _ = error.description
            }
        }
        #expect(decoded > 1_000, "too few random inputs decoded to exercise the round trip")
    }

    /// The offset of the zero length byte that starts padding, walking the structures.
    private func significantEnd(_ bytes: [UInt8]) -> Int? {
        var offset = 0
        while offset < bytes.count {
            if bytes[offset] == 0 { return offset }
            offset += Int(bytes[offset]) + 1
        }
        return nil
    }
}
