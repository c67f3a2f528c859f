import Foundation

/// Reads the fields of a characteristic or descriptor value in order, little-endian as GATT
/// sends them. Every read checks the length first: too few bytes throw
/// ``GATTCodecError/Kind/invalidLength``; ``expectEnd()`` rejects bytes left over.
///
/// Codecs for structured values read their fields with ``decode(_:field:)``, which names the
/// field in any error.
public struct GATTReader: Sendable {
    private let bytes: [UInt8]
    /// How many bytes have been read.
    public private(set) var offset: Int = 0

    /// A reader over these bytes.
    public init(_ data: Data) {
        self.bytes = Array(data)
    }

    /// A reader over these bytes.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The number of bytes not read yet.
    public var remainingCount: Int { bytes.count - offset }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { offset == bytes.count }

    /// Reads one byte. Throws ``GATTCodecError/Kind/invalidLength`` at the end.
    public mutating func readByte() throws(GATTCodecError) -> UInt8 {
        try need(1, "1 byte (uint8)")
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Reads a little-endian integer of the type's width. Throws
    /// ``GATTCodecError/Kind/invalidLength`` when fewer bytes remain.
    public mutating func readInteger<Integer: FixedWidthInteger>(_ type: Integer.Type = Integer.self)
        throws(GATTCodecError) -> Integer
    {
        try readInteger(byteCount: Integer.bitWidth / 8, as: type)
    }

    /// Reads a little-endian integer `byteCount` bytes wide (such as the SIG's 24- and 40-bit
    /// fields), sign-extended for signed types. `byteCount` must be 1 to the type's width.
    /// Throws ``GATTCodecError/Kind/invalidLength`` when fewer bytes remain.
    public mutating func readInteger<Integer: FixedWidthInteger>(byteCount: Int, as type: Integer.Type = Integer.self)
        throws(GATTCodecError) -> Integer
    {
        precondition(byteCount >= 1 && byteCount * 8 <= Integer.bitWidth, "byteCount outside 1...\(Integer.bitWidth / 8)")
        try need(byteCount, "\(bytesText(byteCount)) (\(Integer.isSigned ? "sint" : "uint")\(byteCount * 8))")
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

    /// Reads exactly `count` bytes. Throws ``GATTCodecError/Kind/invalidLength`` when fewer remain.
    public mutating func readBytes(_ count: Int) throws(GATTCodecError) -> Data {
        try need(count, bytesText(count))
        defer { offset += count }
        return Data(bytes[offset..<offset + count])
    }

    /// Reads every byte left (possibly none).
    public mutating func readRemainingBytes() -> Data {
        defer { offset = bytes.count }
        return Data(bytes[offset...])
    }

    /// Decodes the next field with a codec, naming the field in any error it throws.
    public mutating func decode<Codec: GATTCodec>(_ codec: Codec, field: String? = nil)
        throws(GATTCodecError) -> Codec.Value
    {
        do {
            return try codec.decode(from: &self)
        } catch {
            throw field.map(error.within) ?? error
        }
    }

    /// Throws ``GATTCodecError/Kind/invalidLength`` if bytes are left over: a value longer
    /// than its layout is malformed, not padded.
    public func expectEnd() throws(GATTCodecError) {
        guard isAtEnd else {
            throw .invalidLength(expected: bytesText(offset), found: "\(bytesText(bytes.count)) (\(remainingCount) extra)")
        }
    }

    private func need(_ count: Int, _ what: @autoclosure () -> String) throws(GATTCodecError) {
        guard count <= remainingCount else {
            throw .invalidLength(expected: "\(what()) at offset \(offset)",
                                 found: remainingCount == 0 ? "the end of the value" : "only \(bytesText(remainingCount))")
        }
    }
}
