import BleuCore
import CZlib
import Foundation
import Testing

@testable import BleuWire

@Suite("CRC-32")
struct CRC32Tests {
    @Test("check value and known vectors")
    func knownValues() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
        #expect(CRC32.checksum([0x00]) == 0xD202_EF8D)
        #expect(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
        #expect(CRC32.checksum([UInt8](repeating: 0xFF, count: 32)) == 0xFF6C_AB0B)
    }

    @Test("equal to zlib's crc32 on random data of every length up to 300, and long buffers")
    func equalsZlib() {
        var rng = SeededRandomNumberGenerator(seed: 0xC3C3_2024)
        print("CRC32Tests.equalsZlib seed \(rng.seed)")
        var lengths = Array(0...300)
        lengths += (0..<40).map { _ in Int.random(in: 301...70_000, using: &rng) }
        for length in lengths {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // Also at an unaligned start, to exercise the unaligned loads.
            let offset = length > 0 ? Int.random(in: 0..<min(length, 8), using: &rng) : 0
            let slice = bytes[offset...]
            #expect(CRC32.checksum(bytes) == zlibCRC(bytes), "length \(length)")
            #expect(CRC32.checksum(slice) == zlibCRC(Array(slice)), "length \(length) offset \(offset)")
        }
    }

    @Test("incremental updates equal one pass, split anywhere")
    func incremental() {
        var rng = SeededRandomNumberGenerator(seed: 77)
        print("CRC32Tests.incremental seed \(rng.seed)")
        let bytes = (0..<1_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let whole = CRC32.checksum(bytes)
        for _ in 0..<200 {
            let a = Int.random(in: 0...bytes.count, using: &rng)
            let b = Int.random(in: a...bytes.count, using: &rng)
            var crc = CRC32()
            crc.update(bytes[..<a])
            crc.update(bytes[a..<b])
            crc.update(bytes[b...])
            #expect(crc.value == whole)
        }
    }

    @Test("non-contiguous sequences take the copying path with the same result")
    func nonContiguous() {
        let bytes = Array("123456789".utf8)
        #expect(CRC32.checksum(bytes.lazy.map { $0 }) == 0xCBF4_3926)
        #expect(CRC32.checksum(Data(bytes)) == 0xCBF4_3926)
    }

    private func zlibCRC(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, UInt32($0.count))) }
    }
}
