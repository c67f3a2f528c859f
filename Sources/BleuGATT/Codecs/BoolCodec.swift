/// GATT's `boolean`: one byte, 0 for false and 1 for true. Any other byte is not allowed
/// (``GATTCodecError/Kind/valueNotAllowed``).
public struct BoolCodec: GATTCodec {
    /// The `boolean` codec; also ``GATTCodec/bool``.
    public init() {}

    public func encode(_ value: Bool, to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeByte(value ? 1 : 0)
    }

    public func decode(from reader: inout GATTReader) throws(GATTCodecError) -> Bool {
        switch try reader.readByte() {
        case 0: return false
        case 1: return true
        case let other: throw .valueNotAllowed(expected: "0 (false) or 1 (true)", found: "\(other)")
        }
    }
}

extension GATTCodec where Self == BoolCodec {
    /// `boolean`: one byte, 0 or 1.
    public static var bool: Self { Self() }
}
