import BleuCore
import Foundation

/// Reads the fields of a characteristic or descriptor value in order, little-endian as GATT
/// sends them. Every read checks the length first: too few bytes throw
/// ``GATTCodecError/Kind/invalidLength``; ``expectEnd()`` rejects bytes left over.
///
/// Codecs for structured values read their fields with ``decode(_:field:)``, which names the
/// field in any error.
public struct GATTReader: Sendable {
    /// The bounds-checked little-endian reader underneath; its errors become GATT's.
    private var reader: ByteReader

    /// A reader over these bytes.
    public init(_ data: Data) {
        reader = ByteReader(Array(data), packet: "GATT value")
    }

    /// A reader over these bytes.
    public init(_ bytes: [UInt8]) {
        reader = ByteReader(bytes, packet: "GATT value")
    }

    /// How many bytes have been read.
    public var offset: Int { reader.offset }

    /// The number of bytes not read yet.
    public var remainingCount: Int { reader.remaining }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { reader.isAtEnd }

    /// Reads one byte. Throws ``GATTCodecError/Kind/invalidLength`` at the end.
    public mutating func readByte() throws(GATTCodecError) -> UInt8 {
        try read("1 byte (uint8)") { reader throws(PacketDecodingError) in try reader.u8() }
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
        try read("\(bytesText(byteCount)) (\(Integer.isSigned ? "sint" : "uint")\(byteCount * 8))") { reader throws(PacketDecodingError) in
            try reader.integer(byteCount: byteCount, as: type)
        }
    }

    /// Reads exactly `count` bytes. Throws ``GATTCodecError/Kind/invalidLength`` when fewer remain.
    public mutating func readBytes(_ count: Int) throws(GATTCodecError) -> Data {
        Data(try read(bytesText(count)) { reader throws(PacketDecodingError) in try reader.take(count) })
    }

    /// Reads every byte left (possibly none).
    public mutating func readRemainingBytes() -> Data {
        Data(reader.rest())
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
            throw .invalidLength(expected: bytesText(offset), found: "\(bytesText(reader.end)) (\(remainingCount) extra)")
        }
    }

    /// Runs a read of `what`; too few bytes become ``GATTCodecError/Kind/invalidLength``,
    /// saying what was read where and what was left.
    private mutating func read<T>(_ what: @autoclosure () -> String,
                                  _ body: (inout ByteReader) throws(PacketDecodingError) -> T) throws(GATTCodecError) -> T {
        let start = offset
        let available = remainingCount
        do {
            return try body(&reader)
        } catch {
            throw .invalidLength(expected: "\(what()) at offset \(start)",
                                 found: available == 0 ? "the end of the value" : "only \(bytesText(available))")
        }
    }
}
