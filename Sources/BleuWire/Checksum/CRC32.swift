#if canImport(CBleuWireCRC)
internal import CBleuWireCRC
#endif

/// CRC-32 with the IEEE 802.3 polynomial, reflected, initial value and final XOR `0xFFFFFFFF` —
/// the checksum of zlib's `crc32`, Ethernet, PNG and gzip. Check value: `"123456789"` →
/// `0xCBF43926`.
///
/// Computed with the processor's own instructions where it has them — carry-less multiplication
/// (PCLMULQDQ) folding on x86-64, the ARMv8 CRC32 instructions on AArch64, chosen when the
/// process first needs a checksum — and otherwise in portable Swift, so no platform needs zlib.
/// The portable code runs buffers of 128 bytes or more as four independent streams of
/// slicing-by-8 over consecutive blocks, joined by a table-driven "shift by a block" (the register
/// is linear in its input), so the processor overlaps four table-lookup chains instead of waiting
/// on one; the rest runs slicing-by-16. `bleu-bench wire` reports both paths beside zlib's
/// (measured here on 16 KiB: the PCLMULQDQ path several times zlib 1.2.13's braided `crc32`, the
/// portable one about as fast as zlib).
/// Feed bytes incrementally with ``update(_:)-(UnsafeRawBufferPointer)`` and read ``value`` at
/// any point, or use ``checksum(_:)-(Bytes)`` for one buffer.
public struct CRC32: Sendable, Hashable {
    /// The running register (the checksum before its final XOR).
    private var register: UInt32 = 0xFFFF_FFFF

    /// A checksum of no bytes yet.
    public init() {}

    /// The CRC-32 of every byte fed so far.
    public var value: UInt32 { ~register }

    /// Feeds the bytes in `buffer`.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        register = Self.advance(register, buffer)
    }

    /// Feeds `bytes` (contiguous collections such as `[UInt8]` and `Data` take the fast path).
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil {
            let copy = Array(bytes)
            copy.withUnsafeBytes { update($0) }
        }
    }

    /// The CRC-32 of `bytes`.
    public static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// The CRC-32 of the bytes in `buffer`.
    public static func checksum(_ buffer: UnsafeRawBufferPointer) -> UInt32 {
        ~advance(0xFFFF_FFFF, buffer)
    }

    /// The implementations of the register's update.
    package enum Implementation: String, Sendable, CaseIterable {
        /// Portable Swift (four-stream slicing-by-8 and slicing-by-16): every platform.
        case portable
        /// x86-64 carry-less multiplication folding (PCLMULQDQ and SSE4.1).
        case pclmul
        /// The ARMv8 CRC32 instructions.
        case armv8
    }

    /// The hardware implementation this processor runs, if any (`nil` when BleuWire is built
    /// without its C target, as the fuzz targets are, or on a processor without the instructions).
    package static let hardware: Implementation? = {
        #if canImport(CBleuWireCRC)
        switch bleuwire_crc32_hardware() {
        case BLEUWIRE_CRC32_HARDWARE_PCLMUL: return .pclmul
        case BLEUWIRE_CRC32_HARDWARE_ARMV8: return .armv8
        default: return nil
        }
        #else
        return nil
        #endif
    }()

    /// The implementation ``checksum(_:)-(Bytes)`` and ``update(_:)-(UnsafeRawBufferPointer)`` use.
    package static var implementation: Implementation { hardware ?? .portable }

    /// The CRC-32 of `buffer` computed by `implementation`, for tests and benchmarks that check
    /// one path against another. Asking for a hardware implementation this processor lacks is a
    /// programming error and traps.
    package static func checksum(_ buffer: UnsafeRawBufferPointer, using implementation: Implementation) -> UInt32 {
        ~advance(0xFFFF_FFFF, buffer, using: implementation)
    }

    /// The register after `buffer`, from `start`, computed by `implementation` (see
    /// ``checksum(_:using:)``).
    package static func advance(_ start: UInt32, _ buffer: UnsafeRawBufferPointer, using implementation: Implementation) -> UInt32 {
        switch implementation {
        case .portable:
            return portableAdvance(start, buffer)
        case .pclmul, .armv8:
            precondition(implementation == hardware, "CRC-32: this processor has no \(implementation) path")
            #if canImport(CBleuWireCRC)
            return bleuwire_crc32_hardware_update(start, buffer.baseAddress, buffer.count)
            #else
            return portableAdvance(start, buffer)  // unreachable: `hardware` is nil here
            #endif
        }
    }

    private static func advance(_ start: UInt32, _ buffer: UnsafeRawBufferPointer) -> UInt32 {
        #if canImport(CBleuWireCRC)
        if hardware != nil {
            return bleuwire_crc32_hardware_update(start, buffer.baseAddress, buffer.count)
        }
        #endif
        return portableAdvance(start, buffer)
    }

    private static func portableAdvance(_ start: UInt32, _ buffer: UnsafeRawBufferPointer) -> UInt32 {
        guard var p = buffer.baseAddress, !buffer.isEmpty else { return start }
        var crc = start
        var remaining = buffer.count
        CRC32Tables.slices.withUnsafeBufferPointer { tables in
            let t = tables.baseAddress!
            CRC32Tables.shifts.withUnsafeBufferPointer { shiftTables in
                for (level, block) in CRC32Tables.blockSizes.enumerated() where remaining >= 4 * block {
                    let shift = shiftTables.baseAddress! + level * 1024
                    while remaining >= 4 * block {
                        crc = fourStreams(crc, p, block: block, t, shift)
                        p += 4 * block
                        remaining -= 4 * block
                    }
                }
            }
            @inline(__always) func slice(_ k: Int, _ byte: UInt32) -> UInt32 { t[k &* 256 &+ Int(byte & 0xFF)] }
            while remaining >= 16 {
                let a = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))
                let b = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                let w0 = UInt32(truncatingIfNeeded: a) ^ crc
                let w1 = UInt32(truncatingIfNeeded: a >> 32)
                let w2 = UInt32(truncatingIfNeeded: b)
                let w3 = UInt32(truncatingIfNeeded: b >> 32)
                var x = slice(15, w0) ^ slice(14, w0 >> 8) ^ slice(13, w0 >> 16) ^ slice(12, w0 >> 24)
                x ^= slice(11, w1) ^ slice(10, w1 >> 8) ^ slice(9, w1 >> 16) ^ slice(8, w1 >> 24)
                x ^= slice(7, w2) ^ slice(6, w2 >> 8) ^ slice(5, w2 >> 16) ^ slice(4, w2 >> 24)
                x ^= slice(3, w3) ^ slice(2, w3 >> 8) ^ slice(1, w3 >> 16) ^ slice(0, w3 >> 24)
                crc = x
                p += 16
                remaining -= 16
            }
            while remaining > 0 {
                crc = slice(0, crc ^ UInt32(p.load(as: UInt8.self))) ^ (crc >> 8)
                p += 1
                remaining -= 1
            }
        }
        return crc
    }

    /// The register after `4 × block` bytes at `p`, starting from `crc`: four slicing-by-8 chains,
    /// one per block (the first from `crc`, the others from 0), interleaved so that they overlap,
    /// then joined. For registers, `crc(r, A‖B) = shift_|B|(crc(r, A)) ⊕ crc(0, B)`, where
    /// `shift_n` (feeding n zero bytes) is linear, so `shift` applies it by table, a byte at a time.
    @inline(__always)
    private static func fourStreams(_ crc: UInt32, _ p: UnsafeRawPointer, block: Int, _ t: UnsafePointer<UInt32>,
                                    _ shift: UnsafePointer<UInt32>) -> UInt32 {
        @inline(__always) func eight(_ w: UInt64) -> UInt32 {
            let lo = UInt32(truncatingIfNeeded: w)
            let hi = UInt32(truncatingIfNeeded: w >> 32)
            return t[1792 &+ Int(lo & 0xFF)] ^ t[1536 &+ Int((lo >> 8) & 0xFF)] ^ t[1280 &+ Int((lo >> 16) & 0xFF)] ^ t[1024 &+ Int(lo >> 24)]
                ^ t[768 &+ Int(hi & 0xFF)] ^ t[512 &+ Int((hi >> 8) & 0xFF)] ^ t[256 &+ Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
        }
        @inline(__always) func shifted(_ r: UInt32) -> UInt32 {
            shift[Int(r & 0xFF)] ^ shift[256 &+ Int((r >> 8) & 0xFF)] ^ shift[512 &+ Int((r >> 16) & 0xFF)] ^ shift[768 &+ Int(r >> 24)]
        }
        @inline(__always) func word(_ offset: Int) -> UInt64 {
            UInt64(littleEndian: p.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        var c0 = crc, c1: UInt32 = 0, c2: UInt32 = 0, c3: UInt32 = 0
        var i = 0
        while i < block {
            let w0 = word(i) ^ UInt64(c0)
            let w1 = word(block &+ i) ^ UInt64(c1)
            let w2 = word(2 &* block &+ i) ^ UInt64(c2)
            let w3 = word(3 &* block &+ i) ^ UInt64(c3)
            c0 = eight(w0)
            c1 = eight(w1)
            c2 = eight(w2)
            c3 = eight(w3)
            i &+= 8
        }
        return shifted(shifted(shifted(c0) ^ c1) ^ c2) ^ c3
    }
}

/// The sixteen 256-entry tables of slicing-by-16: table 0 is the classic byte-at-a-time table,
/// table k advances a byte through k further zero bytes. Computed once, immutable.
enum CRC32Tables {
    static let polynomial: UInt32 = 0xEDB8_8320

    static let slices: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 16 * 256)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 {
                c = (c & 1) != 0 ? polynomial ^ (c >> 1) : c >> 1
            }
            tables[n] = c
        }
        for k in 1..<16 {
            for n in 0..<256 {
                let previous = tables[(k - 1) * 256 + n]
                tables[k * 256 + n] = tables[Int(previous & 0xFF)] ^ (previous >> 8)
            }
        }
        return tables
    }()

    /// The block lengths of the four-stream loop, largest first (multiples of 8).
    static let blockSizes = [256, 32]

    /// Per block length, four 256-entry tables: entry `k × 256 + n` is the register `n << 8k`
    /// after `block` zero bytes.
    static let shifts: [UInt32] = {
        var tables: [UInt32] = []
        for block in blockSizes {
            for k in 0..<4 {
                for n in 0..<256 {
                    var register = UInt32(n) << (8 * k)
                    for _ in 0..<block {
                        register = slices[Int(register & 0xFF)] ^ (register >> 8)
                    }
                    tables.append(register)
                }
            }
        }
        return tables
    }()
}
