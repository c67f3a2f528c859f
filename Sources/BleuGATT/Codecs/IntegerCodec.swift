/// A fixed-width integer, little-endian, as GATT's `uint8`…`uint64` and `sint8`…`sint64`
/// formats. Every value of the type is allowed; restrict the range with
/// ``GATTCodec/restricted(to:answering:)``.
public struct IntegerCodec<Integer: FixedWidthInteger & Sendable>: GATTCodec {
    /// The codec of `Integer`; also ``GATTCodec/uint8``, ``GATTCodec/sint16`` and the others.
    public init() {}

    public func encode(_ value: Integer, to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeInteger(value)
    }

    public func decode(from reader: inout GATTReader) throws(GATTCodecError) -> Integer {
        try reader.readInteger(Integer.self)
    }
}

extension GATTCodec where Self == IntegerCodec<UInt8> {
    /// `uint8`.
    public static var uint8: Self { Self() }
}

extension GATTCodec where Self == IntegerCodec<UInt16> {
    /// `uint16`, little-endian.
    public static var uint16: Self { Self() }
}

extension GATTCodec where Self == IntegerCodec<UInt32> {
    /// `uint32`, little-endian.
    public static var uint32: Self { Self() }
}

extension GATTCodec where Self == IntegerCodec<UInt64> {
    /// `uint64`, little-endian.
    public static var uint64: Self { Self() }
}

extension GATTCodec where Self == IntegerCodec<Int8> {
    /// `sint8`.
    public static var sint8: Self { Self() }
}

extension GATTCodec where Self == IntegerCodec<Int16> {
    /// `sint16`, little-endian.
    public static var sint16: Self { Self() }
}

extension GATTCodec where Self == IntegerCodec<Int32> {
    /// `sint32`, little-endian.
    public static var sint32: Self { Self() }
}

extension GATTCodec where Self == IntegerCodec<Int64> {
    /// `sint64`, little-endian.
    public static var sint64: Self { Self() }
}
