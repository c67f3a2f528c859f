/// CRC-32 with the IEEE 802.3 polynomial, reflected, initial value and final XOR `0xFFFFFFFF` —
/// the checksum of zlib's `crc32`, Ethernet, PNG and gzip. Check value: `"123456789"` →
/// `0xCBF43926`.
///
/// Computed by slicing-by-16 over 64-bit little-endian loads, in portable Swift, so no platform
/// needs zlib. (Measured here: about 2.2 GB/s, against 1.7 GB/s for slicing-by-8 and 3.7 GB/s for
/// zlib 1.2.13's braided `crc32`; `bleu-bench wire` reports both.) Feed bytes incrementally with ``update(_:)-(UnsafeRawBufferPointer)`` and
/// read ``value`` at any point, or use ``checksum(_:)-(Bytes)`` for one buffer.
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

    private static func advance(_ start: UInt32, _ buffer: UnsafeRawBufferPointer) -> UInt32 {
        guard var p = buffer.baseAddress, !buffer.isEmpty else { return start }
        var crc = start
        var remaining = buffer.count
        CRC32Tables.slices.withUnsafeBufferPointer { tables in
            let t = tables.baseAddress!
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
}
