/// An option set, as the SIG's bit fields: its raw value little-endian in its type's width.
///
/// Bits the set does not define (``defined``) are kept as they are by default, so a value
/// round-trips byte for byte and bits a later specification adds survive; with
/// ``UndefinedBits/reject`` they are ``GATTCodecError/Kind/valueNotAllowed`` both ways; with
/// ``UndefinedBits/ignore`` they are dropped, as the SIG asks of reserved bits (written 0,
/// ignored when read).
public struct BitFieldCodec<Options: OptionSet & Sendable>: GATTCodec
where Options.RawValue: FixedWidthInteger & Sendable {
    /// What to do with bits the option set does not define.
    public enum UndefinedBits: Sendable, Hashable {
        /// Keep them in the value.
        case keep
        /// Reject a value with any of them set.
        case reject
        /// Drop them: cleared when read, written 0 (the SIG's "reserved for future use").
        case ignore
    }

    /// The bits the option set defines.
    public let defined: Options
    /// Whether bits outside ``defined`` are kept or rejected.
    public let undefinedBits: UndefinedBits

    /// A bit field whose set defines the bits in `defined`; others are kept unless `undefinedBits`
    /// is ``UndefinedBits/reject`` or ``UndefinedBits/ignore``.
    public init(defined: Options, undefinedBits: UndefinedBits = .keep) {
        self.defined = defined
        self.undefinedBits = undefinedBits
    }

    public func encode(_ value: Options, to writer: inout GATTWriter) throws(GATTCodecError) {
        try check(value.rawValue)
        writer.writeInteger(undefinedBits == .ignore ? value.rawValue & defined.rawValue : value.rawValue)
    }

    public func decode(from reader: inout GATTReader) throws(GATTCodecError) -> Options {
        let raw = try reader.readInteger(Options.RawValue.self)
        try check(raw)
        return Options(rawValue: undefinedBits == .ignore ? raw & defined.rawValue : raw)
    }

    private func check(_ raw: Options.RawValue) throws(GATTCodecError) {
        let undefined = raw & ~defined.rawValue
        guard undefinedBits != .reject || undefined == 0 else {
            throw .valueNotAllowed(expected: "only the bits 0x\(String(defined.rawValue, radix: 16, uppercase: true))",
                                   found: "0x\(String(raw, radix: 16, uppercase: true)) (reserved bits 0x\(String(undefined, radix: 16, uppercase: true)))")
        }
    }
}

extension GATTCodec {
    /// An option set's raw value; bits outside `defined` are kept, rejected with `.reject`, or
    /// dropped with `.ignore`.
    public static func bitField<Options>(_ defined: Options,
                                         undefinedBits: BitFieldCodec<Options>.UndefinedBits = .keep) -> Self
    where Self == BitFieldCodec<Options> {
        BitFieldCodec(defined: defined, undefinedBits: undefinedBits)
    }
}
