/// IEEE 11073-20601's floating-point types as Bluetooth uses them: ``MedFloat16`` (SFLOAT,
/// `medfloat16`) and ``MedFloat32`` (FLOAT, `medfloat32`). A base-10 exponent in the top
/// quarter of the bits over a mantissa in the rest, both two's complement, so a value keeps
/// the precision it was measured with (`364e-1` is 36.4 °C to a tenth). Five values at
/// exponent 0 are special: NaN, NRes, ±INFINITY and one reserved (``MedicalFloatSpecialValue``).
///
/// Equality compares representations: `20e-1` and `2e0` are different values of one number.
public protocol MedicalFloat: Sendable, Hashable, CustomStringConvertible {
    /// The unsigned integer the value is sent as.
    associatedtype BitPattern: FixedWidthInteger & UnsignedInteger & Sendable

    /// The bits as sent, before byte order.
    var bitPattern: BitPattern { get }

    /// The value with these bits, special values included.
    init(bitPattern: BitPattern)
}

extension MedicalFloat {
    static var layout: MedicalFloatLayout {
        MedicalFloatLayout(mantissaBits: BitPattern.bitWidth * 3 / 4, exponentBits: BitPattern.bitWidth / 4)
    }

    static var typeName: String { BitPattern.bitWidth == 16 ? "SFLOAT" : "FLOAT" }

    private var raw: UInt32 { UInt32(truncatingIfNeeded: bitPattern) }

    /// `mantissa × 10^exponent`. Throws ``GATTCodecError/Kind/valueNotAllowed`` for an
    /// exponent or mantissa out of the type's range (SFLOAT −8...7 and −2048...2047; FLOAT
    /// −128...127 and −8388608...8388607), or, at exponent 0, a mantissa that is a special
    /// value's.
    public init(mantissa: Int, exponent: Int) throws(GATTCodecError) {
        let raw = try Self.layout.raw(mantissa: mantissa, exponent: exponent, typeName: Self.typeName)
        self.init(bitPattern: BitPattern(truncatingIfNeeded: raw))
    }

    /// `value` rounded to the precision of `exponent` (36.44 at exponent −1 is `364e-1`); NaN
    /// and the infinities become the special values. Throws
    /// ``GATTCodecError/Kind/valueNotAllowed`` when the mantissa does not fit.
    public init(_ value: Double, exponent: Int) throws(GATTCodecError) {
        let raw = try Self.layout.raw(approximating: value, exponent: exponent, typeName: Self.typeName)
        self.init(bitPattern: BitPattern(truncatingIfNeeded: raw))
    }

    /// A special value.
    public init(_ special: MedicalFloatSpecialValue) {
        self.init(bitPattern: BitPattern(truncatingIfNeeded: Self.layout.raw(of: special)))
    }

    /// Not a Number.
    public static var nan: Self { Self(.nan) }
    /// Not at this Resolution.
    public static var nres: Self { Self(.nres) }
    /// +INFINITY.
    public static var positiveInfinity: Self { Self(.positiveInfinity) }
    /// −INFINITY.
    public static var negativeInfinity: Self { Self(.negativeInfinity) }

    /// The special value this is, or `nil` for a number.
    public var special: MedicalFloatSpecialValue? { Self.layout.special(of: raw) }
    /// The mantissa, sign-extended.
    public var mantissa: Int { Self.layout.mantissa(of: raw) }
    /// The base-10 exponent, sign-extended.
    public var exponent: Int { Self.layout.exponent(of: raw) }
    /// The number as a `Double`: ±infinity for the infinities, NaN for NaN, NRes and reserved.
    public var doubleValue: Double { Self.layout.doubleValue(of: raw) }
    /// The exact decimal, such as `"36.4"`, or the special value's name, such as `"NRes"`.
    public var description: String { Self.layout.description(of: raw) }
}

/// IEEE 11073-20601 16-bit SFLOAT (`medfloat16`): a 4-bit exponent over a 12-bit mantissa.
public struct MedFloat16: MedicalFloat {
    /// The 16 bits as sent: exponent in the top 4, mantissa in the low 12.
    public let bitPattern: UInt16

    /// The value with these bits, special values included.
    public init(bitPattern: UInt16) {
        self.bitPattern = bitPattern
    }
}

/// IEEE 11073-20601 32-bit FLOAT (`medfloat32`): an 8-bit exponent over a 24-bit mantissa.
public struct MedFloat32: MedicalFloat {
    /// The 32 bits as sent: exponent in the top 8, mantissa in the low 24.
    public let bitPattern: UInt32

    /// The value with these bits, special values included.
    public init(bitPattern: UInt32) {
        self.bitPattern = bitPattern
    }
}

/// The codec of a ``MedicalFloat``: its bits little-endian (2 bytes for SFLOAT, 4 for FLOAT).
/// The reserved special value is not allowed unless ``allowsReserved``.
public struct MedicalFloatCodec<Float: MedicalFloat>: GATTCodec {
    /// Whether the reserved special value is accepted.
    public let allowsReserved: Bool

    /// The codec of `type`; with `allowsReserved`, the reserved special value passes both ways (a
    /// relay that forwards what it gets), else it is ``GATTCodecError/Kind/valueNotAllowed``.
    public init(_ type: Float.Type = Float.self, allowsReserved: Bool = false) {
        self.allowsReserved = allowsReserved
    }

    public func encode(_ value: Float, to writer: inout GATTWriter) throws(GATTCodecError) {
        try check(value)
        writer.writeInteger(value.bitPattern)
    }

    public func decode(from reader: inout GATTReader) throws(GATTCodecError) -> Float {
        let value = Float(bitPattern: try reader.readInteger(Float.BitPattern.self))
        try check(value)
        return value
    }

    private func check(_ value: Float) throws(GATTCodecError) {
        if value.special == .reserved && !allowsReserved {
            let hex = String(value.bitPattern, radix: 16, uppercase: true)
            let digits = Float.BitPattern.bitWidth / 4
            throw .valueNotAllowed(expected: "an \(Float.typeName) number, NaN, NRes or ±INFINITY",
                                   found: "the reserved value 0x" + String(repeating: "0", count: digits - hex.count) + hex)
        }
    }
}

extension GATTCodec where Self == MedicalFloatCodec<MedFloat16> {
    /// IEEE 11073 16-bit SFLOAT (`medfloat16`), as ``MedFloat16``.
    public static var medfloat16: Self { Self() }
}

extension GATTCodec where Self == MedicalFloatCodec<MedFloat32> {
    /// IEEE 11073 32-bit FLOAT (`medfloat32`), as ``MedFloat32``.
    public static var medfloat32: Self { Self() }
}
