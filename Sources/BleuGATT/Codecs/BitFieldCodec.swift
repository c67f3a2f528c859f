/// An option set, as the SIG's bit fields: its raw value little-endian in its type's width.
///
/// Bits the set does not define (``defined``) are kept as they are by default, so a value
/// round-trips byte for byte and bits a later specification adds survive; with
/// ``UndefinedBits/reject`` they are ``GATTCodecError/Kind/valueNotAllowed`` both ways; with
/// ``UndefinedBits/clear`` they are written 0 and ignored when read, as the GATT Specification
/// Supplement asks of bits "reserved for future use".
public struct BitFieldCodec<Options: OptionSet & Sendable>: GATTCodec
where Options.RawValue: FixedWidthInteger & Sendable {
    /// What to do with bits the option set does not define.
    public enum UndefinedBits: Sendable, Hashable {
        /// Keep them in the value.
        case keep
        /// Reject a value with any of them set.
        case reject
        /// Write them as 0 and drop them when reading.
        case clear
    }

    /// The bits the option set defines.
    public let defined: Options
    /// Whether bits outside ``defined`` are kept, rejected or cleared.
    public let undefinedBits: UndefinedBits
    /// How many bytes the field takes on air: the raw value's width, or fewer for the SIG's
    /// 24-bit fields (a `UInt32` set sent in 3 bytes).
    public let byteCount: Int

    /// A bit field whose set defines the bits in `defined`; others are kept unless `undefinedBits`
    /// says otherwise. `byteCount` (1 to the raw value's width, the width by default) is how
    /// many bytes it takes on air; encoding a value with bits above them set throws
    /// ``GATTCodecError/Kind/valueNotAllowed`` unless they are cleared.
    public init(defined: Options, undefinedBits: UndefinedBits = .keep, byteCount: Int? = nil) {
        let width = Options.RawValue.bitWidth / 8
        precondition((1...width).contains(byteCount ?? width), "byteCount outside 1...\(width)")
        self.defined = defined
        self.undefinedBits = undefinedBits
        self.byteCount = byteCount ?? width
    }

    public func encode(_ value: Options, to writer: inout GATTWriter) throws(GATTCodecError) {
        try check(value.rawValue)
        let raw = kept(value.rawValue)
        guard byteCount * 8 == Options.RawValue.bitWidth || raw >> (byteCount * 8) == 0 else {
            throw .valueNotAllowed(expected: "bits that fit in \(bytesText(byteCount))",
                                   found: "0x\(String(raw, radix: 16, uppercase: true))")
        }
        writer.writeInteger(raw, byteCount: byteCount)
    }

    public func decode(from reader: inout GATTReader) throws(GATTCodecError) -> Options {
        let raw = try reader.readInteger(byteCount: byteCount, as: Options.RawValue.self)
        try check(raw)
        return Options(rawValue: kept(raw))
    }

    /// The bits that stay: all of them, unless undefined bits are cleared.
    private func kept(_ raw: Options.RawValue) -> Options.RawValue {
        undefinedBits == .clear ? raw & defined.rawValue : raw
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
    /// An option set's raw value in `byteCount` bytes (its width by default); bits outside
    /// `defined` are kept, rejected with `.reject`, or written 0 and ignored when read with `.clear`.
    public static func bitField<Options>(_ defined: Options,
                                         undefinedBits: BitFieldCodec<Options>.UndefinedBits = .keep,
                                         byteCount: Int? = nil) -> Self
    where Self == BitFieldCodec<Options> {
        BitFieldCodec(defined: defined, undefinedBits: undefinedBits, byteCount: byteCount)
    }
}
