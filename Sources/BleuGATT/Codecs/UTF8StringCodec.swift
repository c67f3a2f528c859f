/// GATT's `utf8s`: the rest of the value as UTF-8, without a terminator (as the Device
/// Information strings). Invalid UTF-8 is not allowed
/// (``GATTCodecError/Kind/valueNotAllowed``); a string longer than ``maximumLength`` bytes is
/// an invalid length, both ways.
public struct UTF8StringCodec: GATTCodec {
    /// The longest string, in UTF-8 bytes.
    public let maximumLength: Int

    /// A codec for strings of at most `maximumLength` UTF-8 bytes (at most 512, an attribute
    /// value's limit).
    public init(maximumLength: Int = GATTWriter.maximumValueLength) {
        self.maximumLength = min(max(0, maximumLength), GATTWriter.maximumValueLength)
    }

    public func encode(_ value: String, to writer: inout GATTWriter) throws(GATTCodecError) {
        let utf8 = value.utf8
        guard utf8.count <= maximumLength else {
            throw .invalidLength(expected: "at most \(bytesText(maximumLength)) of UTF-8", found: bytesText(utf8.count))
        }
        writer.writeBytes(utf8)
    }

    public func decode(from reader: inout GATTReader) throws(GATTCodecError) -> String {
        guard reader.remainingCount <= maximumLength else {
            throw .invalidLength(expected: "at most \(bytesText(maximumLength)) of UTF-8", found: bytesText(reader.remainingCount))
        }
        let bytes = reader.readRemainingBytes()
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw .valueNotAllowed(expected: "UTF-8 text", found: "\(bytesText(bytes.count)) that are not valid UTF-8")
        }
        return string
    }
}

extension GATTCodec where Self == UTF8StringCodec {
    /// `utf8s`: the rest of the value as UTF-8 text.
    public static var utf8String: Self { Self() }

    /// `utf8s` of at most `maximumLength` bytes.
    public static func utf8String(maximumLength: Int) -> Self { Self(maximumLength: maximumLength) }
}
