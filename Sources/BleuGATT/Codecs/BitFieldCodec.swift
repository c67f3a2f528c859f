/// An option set, as the SIG's bit fields: its raw value little-endian in its type's width.
///
/// Bits the set does not define (``defined``) are kept as they are by default, so a value
/// round-trips byte for byte and bits a later specification adds survive; with
/// ``UndefinedBits/reject`` they are ``GATTCodecError/Kind/valueNotAllowed`` both ways.
public struct BitFieldCodec<Options: OptionSet & Sendable>: GATTCodec
where Options.RawValue: FixedWidthInteger & Sendable {
    /// What to do with bits the option set does not define.
    public enum UndefinedBits: Sendable, Hashable {
        /// Keep them in the value.
        case keep
        /// Reject a value with any of them set.
        case reject
    }

    /// The bits the option set defines.
    public let defined: Options
    /// Whether bits outside ``defined`` are kept or rejected.
    public let undefinedBits: UndefinedBits

    /// A bit field whose set defines the bits in `defined`; others are kept unless `undefinedBits`
    /// is ``UndefinedBits/reject``.
    public init(defined: Options, undefinedBits: UndefinedBits = .keep) {
        self.defined = defined
        self.undefinedBits = undefinedBits
    }

    public func encode(_ value: Options, to writer: inout GATTWriter) throws(GATTCodecError) {
        try check(value.rawValue)
        writer.writeInteger(value.rawValue)
    }

    public func decode(from reader: inout GATTReader) throws(GATTCodecError) -> Options {
        let raw = try reader.readInteger(Options.RawValue.self)
        try check(raw)
        return Options(rawValue: raw)
    }

    private func check(_ raw: Options.RawValue) throws(GATTCodecError) {
        let undefined = raw & ~defined.rawValue
        guard undefinedBits == .keep || undefined == 0 else {
            throw .valueNotAllowed(expected: "only the bits 0x\(String(defined.rawValue, radix: 16, uppercase: true))",
                                   found: "0x\(String(raw, radix: 16, uppercase: true)) (reserved bits 0x\(String(undefined, radix: 16, uppercase: true)))")
        }
    }
}

extension GATTCodec {
    /// An option set's raw value; bits outside `defined` are kept, or rejected with `.reject`.
    public static func bitField<Options>(_ defined: Options,
                                         undefinedBits: BitFieldCodec<Options>.UndefinedBits = .keep) -> Self
    where Self == BitFieldCodec<Options> {
        BitFieldCodec(defined: defined, undefinedBits: undefinedBits)
    }
}
