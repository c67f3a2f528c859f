import Foundation

/// Bytes as they are: the rest of the value, with a length in ``lengths``; anything else is
/// an invalid length. Use it for opaque structures and for characteristics the catalogue does
/// not know.
public struct DataCodec: GATTCodec {
    /// The lengths allowed, in bytes.
    public let lengths: ClosedRange<Int>

    /// Bytes whose count lies in `lengths` (clamped to 0...512).
    public init(lengths: ClosedRange<Int> = 0...GATTWriter.maximumValueLength) {
        let upper = min(max(lengths.upperBound, 0), GATTWriter.maximumValueLength)
        self.lengths = min(max(lengths.lowerBound, 0), upper)...upper
    }

    public func encode(_ value: Data, to writer: inout GATTWriter) throws(GATTCodecError) {
        try check(value.count)
        writer.writeBytes(value)
    }

    public func decode(from reader: inout GATTReader) throws(GATTCodecError) -> Data {
        try check(reader.remainingCount)
        return reader.readRemainingBytes()
    }

    private func check(_ count: Int) throws(GATTCodecError) {
        guard lengths.contains(count) else {
            let expected = lengths.lowerBound == lengths.upperBound
                ? bytesText(lengths.lowerBound) : "\(lengths.lowerBound)–\(lengths.upperBound) bytes"
            throw .invalidLength(expected: expected, found: bytesText(count))
        }
    }
}

extension GATTCodec where Self == DataCodec {
    /// The rest of the value as bytes, up to 512.
    public static var data: Self { Self() }

    /// Exactly `count` bytes.
    public static func data(count: Int) -> Self { Self(lengths: count...count) }

    /// A number of bytes in `lengths`.
    public static func data(lengths: ClosedRange<Int>) -> Self { Self(lengths: lengths) }
}
