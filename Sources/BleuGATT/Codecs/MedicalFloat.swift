/// The special values of IEEE 11073-20601's SFLOAT and FLOAT types (Bluetooth's `medfloat16`
/// and `medfloat32`). Each is exponent 0 with a reserved mantissa (Bluetooth SIG, Personal
/// Health Devices Transcoding white paper, "SFLOAT-Type" and "FLOAT-Type").
public enum MedicalFloatSpecialValue: String, Sendable, Hashable, CaseIterable {
    /// Not a Number: mantissa +(2^(n−1) − 1), SFLOAT 0x07FF, FLOAT 0x007FFFFF.
    case nan = "NaN"
    /// Not at this Resolution: mantissa −2^(n−1), SFLOAT 0x0800, FLOAT 0x00800000.
    case nres = "NRes"
    /// +INFINITY: mantissa +(2^(n−1) − 2), SFLOAT 0x07FE, FLOAT 0x007FFFFE.
    case positiveInfinity = "+INFINITY"
    /// −INFINITY: mantissa −(2^(n−1) − 2), SFLOAT 0x0802, FLOAT 0x00800002.
    case negativeInfinity = "-INFINITY"
    /// Reserved for future use: mantissa −(2^(n−1) − 1), SFLOAT 0x0801, FLOAT 0x00800001.
    case reserved = "Reserved"
}

/// The arithmetic both medical float widths share: a base-10 exponent over a mantissa, both
/// two's complement, packed exponent-high into `bitWidth` bits.
struct MedicalFloatLayout {
    let mantissaBits: Int
    let exponentBits: Int

    static let sfloat = MedicalFloatLayout(mantissaBits: 12, exponentBits: 4)
    static let float = MedicalFloatLayout(mantissaBits: 24, exponentBits: 8)

    /// 2^(n−1) − 1: 2047 or 8388607.
    var mantissaMax: Int { (1 << (mantissaBits - 1)) - 1 }
    var mantissaRange: ClosedRange<Int> { -(mantissaMax + 1)...mantissaMax }
    /// At exponent 0 the five mantissas at the ends are the special values.
    var finiteMantissaRangeAtZeroExponent: ClosedRange<Int> { -(mantissaMax - 2)...(mantissaMax - 2) }
    var exponentRange: ClosedRange<Int> { -(1 << (exponentBits - 1))...((1 << (exponentBits - 1)) - 1) }

    func mantissa(of raw: UInt32) -> Int {
        signExtend(Int(raw) & ((1 << mantissaBits) - 1), bits: mantissaBits)
    }

    func exponent(of raw: UInt32) -> Int {
        signExtend(Int(raw >> UInt32(mantissaBits)) & ((1 << exponentBits) - 1), bits: exponentBits)
    }

    func pack(mantissa: Int, exponent: Int) -> UInt32 {
        UInt32((exponent & ((1 << exponentBits) - 1)) << mantissaBits | (mantissa & ((1 << mantissaBits) - 1)))
    }

    func special(of raw: UInt32) -> MedicalFloatSpecialValue? {
        guard exponent(of: raw) == 0 else { return nil }
        switch mantissa(of: raw) {
        case mantissaMax: return .nan
        case -(mantissaMax + 1): return .nres
        case mantissaMax - 1: return .positiveInfinity
        case -(mantissaMax - 1): return .negativeInfinity
        case -mantissaMax: return .reserved
        default: return nil
        }
    }

    func raw(of special: MedicalFloatSpecialValue) -> UInt32 {
        switch special {
        case .nan: pack(mantissa: mantissaMax, exponent: 0)
        case .nres: pack(mantissa: -(mantissaMax + 1), exponent: 0)
        case .positiveInfinity: pack(mantissa: mantissaMax - 1, exponent: 0)
        case .negativeInfinity: pack(mantissa: -(mantissaMax - 1), exponent: 0)
        case .reserved: pack(mantissa: -mantissaMax, exponent: 0)
        }
    }

    /// The raw value of a finite number, or an error naming the range it left.
    func raw(mantissa: Int, exponent: Int, typeName: String) throws(GATTCodecError) -> UInt32 {
        guard exponentRange.contains(exponent) else {
            throw .valueNotAllowed(expected: "a \(typeName) exponent in \(exponentRange.lowerBound)–\(exponentRange.upperBound)",
                                   found: "\(exponent)")
        }
        let allowed = exponent == 0 ? finiteMantissaRangeAtZeroExponent : mantissaRange
        guard allowed.contains(mantissa) else {
            throw .valueNotAllowed(expected: "a \(typeName) mantissa in \(allowed.lowerBound)–\(allowed.upperBound) at exponent \(exponent)",
                                   found: "\(mantissa)")
        }
        return pack(mantissa: mantissa, exponent: exponent)
    }

    /// The raw value nearest `value` at this exponent: NaN and infinities map to the special
    /// values; a finite value is rounded to the exponent's precision.
    func raw(approximating value: Double, exponent: Int, typeName: String) throws(GATTCodecError) -> UInt32 {
        if value.isNaN { return raw(of: .nan) }
        if value.isInfinite { return raw(of: value > 0 ? .positiveInfinity : .negativeInfinity) }
        guard exponentRange.contains(exponent) else {
            return try raw(mantissa: 0, exponent: exponent, typeName: typeName)
        }
        let scaled = exponent <= 0 ? value * power10(-exponent) : value / power10(exponent)
        let rounded = scaled.rounded()
        guard rounded.magnitude <= Double(mantissaMax) else {
            throw .valueNotAllowed(expected: "a value a \(typeName) holds at exponent \(exponent)", found: "\(value)")
        }
        return try raw(mantissa: Int(rounded), exponent: exponent, typeName: typeName)
    }

    func doubleValue(of raw: UInt32) -> Double {
        if let special = special(of: raw) {
            switch special {
            case .positiveInfinity: return .infinity
            case .negativeInfinity: return -.infinity
            case .nan, .nres, .reserved: return .nan
            }
        }
        let mantissa = Double(mantissa(of: raw))
        let exponent = exponent(of: raw)
        // Dividing by an exact power of ten rounds once, so 364e-1 is exactly the Double 36.4.
        return exponent < 0 ? mantissa / power10(-exponent) : mantissa * power10(exponent)
    }

    func description(of raw: UInt32) -> String {
        if let special = special(of: raw) { return special.rawValue }
        let mantissa = mantissa(of: raw)
        let exponent = exponent(of: raw)
        let digits = String(mantissa.magnitude)
        let sign = mantissa < 0 ? "-" : ""
        if exponent >= 0 { return sign + digits + String(repeating: "0", count: mantissa == 0 ? 0 : exponent) }
        let padded = String(repeating: "0", count: max(0, -exponent + 1 - digits.count)) + digits
        let split = padded.index(padded.endIndex, offsetBy: exponent)
        return sign + padded[..<split] + "." + padded[split...]
    }

    private func signExtend(_ value: Int, bits: Int) -> Int {
        value >= 1 << (bits - 1) ? value - (1 << bits) : value
    }

    private func power10(_ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<exponent { result *= 10 }
        return result
    }
}
