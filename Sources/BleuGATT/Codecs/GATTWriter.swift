import Foundation

/// Collects the bytes of a characteristic or descriptor value, field by field, little-endian
/// as GATT sends them. Codecs for structured values write their fields with
/// ``encode(_:with:field:)``, which names the field in any error.
public struct GATTWriter: Sendable {
    /// The longest attribute value GATT allows (Core Spec Vol 3 Part F §3.2.9).
    public static let maximumValueLength = 512

    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty writer.
    public init() {}

    /// The bytes written so far.
    public var data: Data { Data(bytes) }

    /// Appends one byte.
    public mutating func writeByte(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends a little-endian integer of the type's width.
    public mutating func writeInteger<Integer: FixedWidthInteger>(_ value: Integer) {
        writeInteger(value, byteCount: Integer.bitWidth / 8)
    }

    /// Appends the low `byteCount` bytes of a little-endian integer (such as the SIG's 24- and
    /// 40-bit fields). The caller checks that the value fits first, as ``Integer24Codec`` does.
    public mutating func writeInteger<Integer: FixedWidthInteger>(_ value: Integer, byteCount: Int) {
        precondition(byteCount >= 1 && byteCount * 8 <= Integer.bitWidth, "byteCount outside 1...\(Integer.bitWidth / 8)")
        let raw = UInt64(truncatingIfNeeded: value)
        for index in 0..<byteCount {
            bytes.append(UInt8(truncatingIfNeeded: raw >> (8 * index)))
        }
    }

    /// Appends bytes as they are.
    public mutating func writeBytes(_ data: some Sequence<UInt8>) {
        bytes.append(contentsOf: data)
    }

    /// Encodes a field with a codec, naming the field in any error it throws.
    public mutating func encode<Codec: GATTCodec>(_ value: Codec.Value, with codec: Codec, field: String? = nil)
        throws(GATTCodecError)
    {
        do {
            try codec.encode(value, to: &self)
        } catch {
            throw field.map(error.within) ?? error
        }
    }
}
