/// The SIG's 24-bit integers, three bytes little-endian: ``UInt24Codec`` (`uint24`, as a
/// `UInt32` in 0...0xFFFFFF) and ``Int24Codec`` (`sint24`, two's complement, as an `Int32` in
/// −0x800000...0x7FFFFF). Encoding a value outside the range throws
/// ``GATTCodecError/Kind/valueNotAllowed``.
public struct Integer24Codec<Integer: FixedWidthInteger & Sendable>: GATTCodec {
    /// The values 24 bits hold.
    public static var range: ClosedRange<Integer> {
        Integer.isSigned ? Integer(-0x80_0000)...Integer(0x7F_FFFF) : 0...Integer(0xFF_FFFF)
    }

    /// The codec; also ``GATTCodec/uint24`` and ``GATTCodec/sint24``.
    public init() {}

    public func encode(_ value: Integer, to writer: inout GATTWriter) throws(GATTCodecError) {
        guard Self.range.contains(value) else {
            throw .valueNotAllowed(expected: "a \(Integer.isSigned ? "sint" : "uint")24 (\(Self.range.lowerBound)–\(Self.range.upperBound))",
                                   found: "\(value)")
        }
        writer.writeInteger(value, byteCount: 3)
    }

    public func decode(from reader: inout GATTReader) throws(GATTCodecError) -> Integer {
        try reader.readInteger(byteCount: 3, as: Integer.self)
    }
}

/// `uint24`: three bytes little-endian, as a `UInt32`.
public typealias UInt24Codec = Integer24Codec<UInt32>
/// `sint24`: three bytes little-endian, two's complement, as an `Int32`.
public typealias Int24Codec = Integer24Codec<Int32>

extension GATTCodec where Self == UInt24Codec {
    /// `uint24`: three bytes little-endian, as a `UInt32`.
    public static var uint24: Self { Self() }
}

extension GATTCodec where Self == Int24Codec {
    /// `sint24`: three bytes little-endian, two's complement, as an `Int32`.
    public static var sint24: Self { Self() }
}
