/// Reads little-endian fields from a byte buffer, throwing ``PacketDecodingError`` rather than
/// reading past the end. The one byte reader of the package: every parser of HCI, L2CAP, ATT
/// and SMP packets uses it.
package struct ByteReader {
    package let bytes: [UInt8]
    package private(set) var offset: Int
    package let end: Int
    package let packet: String

    package init(_ bytes: [UInt8], packet: String) {
        self.bytes = bytes
        self.offset = 0
        self.end = bytes.count
        self.packet = packet
    }

    package init<C: Collection>(_ bytes: C, packet: String) where C.Element == UInt8 {
        self.init(Array(bytes), packet: packet)
    }

    package var remaining: Int { end - offset }
    package var isAtEnd: Bool { offset == end }

    package func error(_ kind: PacketDecodingError.Kind) -> PacketDecodingError {
        PacketDecodingError(packet, kind)
    }

    package mutating func need(_ count: Int) throws(PacketDecodingError) {
        guard count <= remaining else {
            throw error(.truncated(offset: offset, needed: count, available: remaining))
        }
    }

    package mutating func u8() throws(PacketDecodingError) -> UInt8 {
        try need(1)
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func i8() throws(PacketDecodingError) -> Int8 {
        Int8(bitPattern: try u8())
    }

    package mutating func u16() throws(PacketDecodingError) -> UInt16 {
        try integer(byteCount: 2)
    }

    package mutating func u24() throws(PacketDecodingError) -> UInt32 {
        try integer(byteCount: 3)
    }

    package mutating func u32() throws(PacketDecodingError) -> UInt32 {
        try integer(byteCount: 4)
    }

    package mutating func u64() throws(PacketDecodingError) -> UInt64 {
        try integer(byteCount: 8)
    }

    /// A little-endian integer `byteCount` bytes wide (1 to the type's width, such as the
    /// SIG's 24- and 40-bit fields), sign-extended for signed types.
    package mutating func integer<Integer: FixedWidthInteger>(byteCount: Int, as type: Integer.Type = Integer.self)
        throws(PacketDecodingError) -> Integer
    {
        precondition(byteCount >= 1 && byteCount * 8 <= Integer.bitWidth, "byteCount outside 1...\(Integer.bitWidth / 8)")
        try need(byteCount)
        var raw: UInt64 = 0
        for index in 0..<byteCount {
            raw |= UInt64(bytes[offset + index]) << (8 * index)
        }
        offset += byteCount
        if Integer.isSigned && byteCount < 8 {
            let shift = UInt64(64 - 8 * byteCount)
            return Integer(truncatingIfNeeded: Int64(bitPattern: raw << shift) >> shift)
        }
        return Integer(truncatingIfNeeded: raw)
    }

    package mutating func take(_ count: Int) throws(PacketDecodingError) -> [UInt8] {
        try need(count)
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    package mutating func rest() -> [UInt8] {
        defer { offset = end }
        return Array(bytes[offset..<end])
    }

    /// Throws when bytes remain.
    package func finish() throws(PacketDecodingError) {
        guard isAtEnd else { throw error(.trailingBytes(count: remaining)) }
    }
}

extension Array where Element == UInt8 {
    package mutating func appendLE(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    package mutating func appendLE24(_ value: UInt32) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0.prefix(3)) }
    }

    package mutating func appendLE(_ value: UInt32) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    package mutating func appendLE(_ value: UInt64) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
