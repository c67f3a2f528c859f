import BleuCore

/// Another codec, restricted to a range of values both ways: a value outside is
/// ``GATTCodecError/Kind/valueNotAllowed``, answered with ``/BleuCore/ATTError/valueNotAllowed`` unless
/// a service names another error (such as ``/BleuCore/ATTError/outOfRange``). Build one with
/// ``GATTCodec/restricted(to:answering:)``; ``GATTCodec/percentage`` is one.
public struct RangeCheckedCodec<Base: GATTCodec>: GATTCodec where Base.Value: Comparable {
    /// The codec that reads and writes the bytes.
    public let base: Base
    /// The values allowed.
    public let range: ClosedRange<Base.Value>
    /// The ATT error a value out of range is answered with.
    public let attError: ATTError

    /// `base` allowing only `range`; also ``GATTCodec/restricted(to:answering:)``.
    public init(_ base: Base, range: ClosedRange<Base.Value>, answering attError: ATTError = .valueNotAllowed) {
        self.base = base
        self.range = range
        self.attError = attError
    }

    public func encode(_ value: Base.Value, to writer: inout GATTWriter) throws(GATTCodecError) {
        try check(value)
        try base.encode(value, to: &writer)
    }

    public func decode(from reader: inout GATTReader) throws(GATTCodecError) -> Base.Value {
        let value = try base.decode(from: &reader)
        try check(value)
        return value
    }

    private func check(_ value: Base.Value) throws(GATTCodecError) {
        guard range.contains(value) else {
            throw GATTCodecError(kind: .valueNotAllowed, expected: "\(range.lowerBound)–\(range.upperBound)",
                                 found: "\(value)", attError: attError)
        }
    }
}

extension GATTCodec where Value: Comparable {
    /// This codec, allowing only values in `range`; others are rejected both ways and
    /// answered with `attError` (``/BleuCore/ATTError/valueNotAllowed`` by default).
    public func restricted(to range: ClosedRange<Value>, answering attError: ATTError = .valueNotAllowed)
        -> RangeCheckedCodec<Self>
    {
        RangeCheckedCodec(self, range: range, answering: attError)
    }
}

extension GATTCodec where Self == RangeCheckedCodec<IntegerCodec<UInt8>> {
    /// A percentage in whole percent: a `uint8` in 0...100 (as Battery Level); 101–255 are
    /// rejected both ways.
    public static var percentage: Self { IntegerCodec<UInt8>().restricted(to: 0...100) }
}
