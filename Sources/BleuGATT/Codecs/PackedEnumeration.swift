import Foundation

/// An enumeration packed into a few bits of a wider field, as the SIG packs a Weight Scale
/// Feature's resolutions or a Glucose Measurement's Type and Sample Location nibbles: the
/// raw value in `width` bits from bit `shift`. A value the enumeration does not define is
/// ``GATTCodecError/Kind/valueNotAllowed``, as ``EnumerationCodec`` says it.
struct PackedEnumeration<Enumeration: RawRepresentable & Sendable> where Enumeration.RawValue == UInt8 {
    /// The lowest bit of the enumeration within the field.
    let shift: Int
    /// How many bits it takes.
    let width: Int
    /// The enumeration's name in errors, such as `"Sample Location"`.
    let field: String

    /// The enumeration in these bits of `raw`. Throws ``GATTCodecError/Kind/valueNotAllowed``
    /// naming ``field`` for a value it does not define.
    func decode<Raw: FixedWidthInteger>(from raw: Raw) throws(GATTCodecError) -> Enumeration {
        let bits = UInt8(truncatingIfNeeded: (raw >> shift) & ((1 << width) - 1))
        do {
            return try EnumerationCodec<Enumeration>().decode(Data([bits]))
        } catch {
            throw error.within(field)
        }
    }

    /// `value` in its place in the field, the other bits 0.
    func bits<Raw: FixedWidthInteger>(of value: Enumeration, as type: Raw.Type = Raw.self) -> Raw {
        Raw(value.rawValue & UInt8((1 << width) - 1)) << shift
    }
}
