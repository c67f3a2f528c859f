/// IEEE 754 binary16 conversions, written out because `Float16` is not available on every
/// platform Bleu supports.
enum HalfPrecision {
    /// The half-precision bits of `value` when the conversion is exact (NaN payloads included),
    /// else `nil`.
    static func bits(exactly value: Float) -> UInt16? {
        let bits = value.bitPattern
        let sign = UInt16(truncatingIfNeeded: bits >> 16) & 0x8000
        let exponent = Int((bits >> 23) & 0xFF)
        let mantissa = bits & 0x7F_FFFF
        if exponent == 0xFF {  // infinity or NaN: the payload must fit 10 bits
            guard mantissa & 0x1FFF == 0 else { return nil }
            return sign | 0x7C00 | UInt16(mantissa >> 13)
        }
        if exponent == 0 {  // zero, or a single-precision subnormal (far below half's range)
            return mantissa == 0 ? sign : nil
        }
        let e = exponent - 127
        if (-14)...15 ~= e {
            guard mantissa & 0x1FFF == 0 else { return nil }
            return sign | UInt16(e + 15) << 10 | UInt16(mantissa >> 13)
        }
        if (-24)...(-15) ~= e {  // a half-precision subnormal: m × 2^-24
            let full = 0x80_0000 | mantissa
            let shift = UInt32(-e - 1)
            guard full & ((1 << shift) - 1) == 0 else { return nil }
            return sign | UInt16(full >> shift)
        }
        return nil
    }

    /// The value of half-precision `bits`, exactly (NaN payloads kept).
    static func double(_ bits: UInt16) -> Double {
        let negative = bits & 0x8000 != 0
        let exponent = Int((bits >> 10) & 0x1F)
        let mantissa = UInt64(bits & 0x3FF)
        let magnitude: Double
        switch exponent {
        case 0:
            magnitude = Double(mantissa) * 0x1p-24
        case 0x1F:
            // Same payload position in double precision: the top bits of the 52-bit mantissa.
            magnitude = Double(bitPattern: 0x7FF0_0000_0000_0000 | mantissa << 42)
        default:
            magnitude = Double(sign: .plus, exponent: exponent - 15, significand: 1 + Double(mantissa) * 0x1p-10)
        }
        return negative ? -magnitude : magnitude
    }
}
