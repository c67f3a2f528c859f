import BleuCore
import CZlib
import Foundation
import Testing

@testable import BleuWire

/// Every implementation of the CRC-32 — the portable Swift one, and the processor's (PCLMULQDQ
/// folding on x86-64, the ARMv8 CRC32 instructions on AArch64) where this machine has one —
/// against zlib's `crc32`.
@Suite("CRC-32 implementations")
struct CRC32ImplementationTests {
    /// The portable path always; the hardware path when this processor has one.
    static var implementations: [CRC32.Implementation] {
        [.portable] + (CRC32.hardware.map { [$0] } ?? [])
    }

    @Test("the default path is the hardware one when there is one")
    func defaultPath() {
        print("CRC-32 implementation on this machine: \(CRC32.implementation)")
        #expect(CRC32.implementation == (CRC32.hardware ?? .portable))
        let bytes = Array("123456789".utf8)
        #expect(CRC32.checksum(bytes) == 0xCBF4_3926)
    }

    @Test("check value \"123456789\" → 0xCBF43926", arguments: CRC32ImplementationTests.implementations)
    func checkValue(implementation: CRC32.Implementation) {
        let bytes = Array("123456789".utf8)
        #expect(bytes.withUnsafeBytes { CRC32.checksum($0, using: implementation) } == 0xCBF4_3926)
        #expect([UInt8]().withUnsafeBytes { CRC32.checksum($0, using: implementation) } == 0)
        #expect([UInt8](repeating: 0xFF, count: 32).withUnsafeBytes { CRC32.checksum($0, using: implementation) } == 0xFF6C_AB0B)
    }

    @Test("equal to zlib on every length 0…600 at every start alignment 0…15", arguments: CRC32ImplementationTests.implementations)
    func everyLengthAndAlignment(implementation: CRC32.Implementation) {
        var rng = SeededRandomNumberGenerator(seed: 0xC3C3_0600)
        print("CRC32ImplementationTests.everyLengthAndAlignment seed \(rng.seed)")
        // A 64-byte-aligned allocation, so that each start offset is a known alignment.
        let capacity = 600 + 16
        let storage = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 64)
        defer { storage.deallocate() }
        var failures = 0
        for length in 0...600 {
            for start in 0..<16 {
                for k in 0..<(start + length) { storage.storeBytes(of: UInt8.random(in: 0...255, using: &rng), toByteOffset: k, as: UInt8.self) }
                let buffer = UnsafeRawBufferPointer(start: storage + start, count: length)
                let ours = CRC32.checksum(buffer, using: implementation)
                let theirs = zlib(buffer)
                if ours != theirs {
                    failures += 1
                    if failures <= 5 { Issue.record("\(implementation): length \(length) at alignment \(start): \(ours) ≠ zlib \(theirs)") }
                }
            }
        }
        #expect(failures == 0)
    }

    @Test("equal to zlib on long buffers and around the four-stream block boundaries", arguments: CRC32ImplementationTests.implementations)
    func longBuffers(implementation: CRC32.Implementation) {
        var rng = SeededRandomNumberGenerator(seed: 0x10_4B1D)
        print("CRC32ImplementationTests.longBuffers seed \(rng.seed)")
        var lengths: [Int] = [1 << 20, 65_536 + 7, 16_384]
        for block in CRC32Tables.blockSizes {
            for multiple in [4, 8] { lengths += (4 * block * multiple - 5)...(4 * block * multiple + 5) }
        }
        lengths += (0..<20).map { _ in Int.random(in: 601...70_000, using: &rng) }
        for length in lengths {
            let bytes = (0..<(length + 3)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            for start in [0, 3] {
                bytes.withUnsafeBytes { all in
                    let buffer = UnsafeRawBufferPointer(rebasing: all[start..<(start + length)])
                    #expect(CRC32.checksum(buffer, using: implementation) == zlib(buffer), "\(implementation): length \(length) from \(start)")
                }
            }
        }
    }

    @Test("incremental updates split at random points equal one pass", arguments: CRC32ImplementationTests.implementations)
    func incremental(implementation: CRC32.Implementation) {
        var rng = SeededRandomNumberGenerator(seed: 0x1_2C12)
        print("CRC32ImplementationTests.incremental seed \(rng.seed)")
        for _ in 0..<300 {
            let length = Int.random(in: 0...3_000, using: &rng)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            bytes.withUnsafeBytes { all in
                let whole = zlib(all)
                // Cut points at random, many of them short pieces (under one 16-byte block).
                var cuts = (0..<Int.random(in: 0...8, using: &rng)).map { _ in Int.random(in: 0...length, using: &rng) }
                cuts += (0..<3).map { _ in Swift.min(length, Int.random(in: 0...20, using: &rng)) }
                cuts = ([0, length] + cuts).sorted()
                var register: UInt32 = 0xFFFF_FFFF
                for (from, to) in zip(cuts, cuts.dropFirst()) {
                    register = CRC32.advance(register, UnsafeRawBufferPointer(rebasing: all[from..<to]), using: implementation)
                }
                #expect(~register == whole, "\(implementation): \(length) bytes cut at \(cuts)")
            }
        }
    }

    @Test("registers carry from one implementation to another")
    func mixedImplementations() {
        var rng = SeededRandomNumberGenerator(seed: 0x3141)
        print("CRC32ImplementationTests.mixedImplementations seed \(rng.seed)")
        let bytes = (0..<5_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let implementations = Self.implementations
        bytes.withUnsafeBytes { all in
            for _ in 0..<100 {
                var register: UInt32 = 0xFFFF_FFFF
                var position = 0
                while position < all.count {
                    let next = Swift.min(all.count, position + Int.random(in: 0...700, using: &rng))
                    let implementation = implementations.randomElement(using: &rng)!
                    register = CRC32.advance(register, UnsafeRawBufferPointer(rebasing: all[position..<next]), using: implementation)
                    position = next
                }
                #expect(~register == zlib(all))
            }
        }
    }

    private func zlib(_ buffer: UnsafeRawBufferPointer) -> UInt32 {
        UInt32(crc32(0, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(buffer.count)))
    }
}
