/// The SIG's unsigned 24-bit integer (`uint24`), three bytes little-endian, as a `UInt32` in
/// 0...0xFFFFFF. Encoding a larger value throws ``GATTCodecError/Kind/valueNotAllowed``.
public struct UInt24Codec: GATTCodec {
    /// The values a `uint24` holds.
    public static let range: ClosedRange<UInt32> = 0...0xFF_FFFF

    public init() {}

    public func encode(_ value: UInt32, to writer: inout GATTWriter) throws(GATTCodecError) {
        guard Self.range.contains(value) else {
            throw .valueNotAllowed(expected: "a uint24 (0–16777215)", found: "\(value)")
        }
        writer.writeInteger(value, byteCount: 3)
    }

    public func decode(from reader: inout GATTReader) throws(GATTCodecError) -> UInt32 {
        try reader.readInteger(byteCount: 3, as: UInt32.self)
    }
}

/// The SIG's signed 24-bit integer (`sint24`), three bytes little-endian in two's complement,
/// as an `Int32` in -0x800000...0x7FFFFF. Encoding a value outside throws
/// ``GATTCodecError/Kind/valueNotAllowed``.
public struct Int24Codec: GATTCodec {
    /// The values a `sint24` holds.
    public static let range: ClosedRange<Int32> = -0x80_0000...0x7F_FFFF

    public init() {}

    public func encode(_ value: Int32, to writer: inout GATTWriter) throws(GATTCodecError) {
        guard Self.range.contains(value) else {
            throw .valueNotAllowed(expected: "a sint24 (-8388608–8388607)", found: "\(value)")
        }
        writer.writeInteger(value, byteCount: 3)
    }

    public func decode(from reader: inout GATTReader) throws(GATTCodecError) -> Int32 {
        try reader.readInteger(byteCount: 3, as: Int32.self)
    }
}

extension GATTCodec where Self == UInt24Codec {
    /// `uint24`: three bytes little-endian, as a `UInt32`.
    public static var uint24: Self { Self() }
}

extension GATTCodec where Self == Int24Codec {
    /// `sint24`: three bytes little-endian, two's complement, as an `Int32`.
    public static var sint24: Self { Self() }
}
