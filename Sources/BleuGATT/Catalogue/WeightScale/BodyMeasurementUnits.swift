/// The units of a Weight Measurement or Body Composition Measurement (flags bit 0), and how
/// their mass and height fields convert (GATT Specification Supplement, "Weight
/// Measurement" and "Body Composition Measurement").
public enum BodyMeasurementUnits: Sendable, Hashable {
    /// SI (flags bit 0 clear): masses in 0.005 kg, heights in 0.001 m.
    case si
    /// Imperial (flags bit 0 set): masses in 0.01 lb, heights in 0.1 in.
    case imperial

    /// A mass field's raw value in kilograms (× 0.005) or pounds (× 0.01), rounded once, so
    /// 15432 in imperial units is exactly the `Double` 154.32.
    public func mass(_ raw: UInt16) -> Double {
        switch self {
        case .si: Double(raw) * 5 / 1000
        case .imperial: Double(raw) / 100
        }
    }

    /// A height field's raw value in metres (× 0.001) or inches (× 0.1), rounded once.
    public func height(_ raw: UInt16) -> Double {
        switch self {
        case .si: Double(raw) / 1000
        case .imperial: Double(raw) / 10
        }
    }
}

/// The resolution of a scale's mass measurements, a 4-bit field of the Weight Scale Feature
/// (bits 3–6) and Body Composition Feature (bits 11–14). 8–15 are reserved and refused.
public enum MassMeasurementResolution: UInt8, Sendable, Hashable, CaseIterable {
    /// 0: not specified.
    case notSpecified = 0
    /// 1: 0.5 kg or 1 lb.
    case halfKilogram = 1
    /// 2: 0.2 kg or 0.5 lb.
    case fifthOfKilogram = 2
    /// 3: 0.1 kg or 0.2 lb.
    case tenthOfKilogram = 3
    /// 4: 0.05 kg or 0.1 lb.
    case twentiethOfKilogram = 4
    /// 5: 0.02 kg or 0.05 lb.
    case fiftiethOfKilogram = 5
    /// 6: 0.01 kg or 0.02 lb.
    case hundredthOfKilogram = 6
    /// 7: 0.005 kg or 0.01 lb.
    case twoHundredthOfKilogram = 7

    /// The resolution in kilograms, or `nil` when not specified.
    public var kilograms: Double? {
        [nil, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005][Int(rawValue)]
    }

    /// The resolution in pounds, or `nil` when not specified.
    public var pounds: Double? {
        [nil, 1, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01][Int(rawValue)]
    }
}

/// The resolution of a scale's height measurements, a 3-bit field of the Weight Scale Feature
/// (bits 7–9) and Body Composition Feature (bits 15–17). 4–7 are reserved and refused.
public enum HeightMeasurementResolution: UInt8, Sendable, Hashable, CaseIterable {
    /// 0: not specified.
    case notSpecified = 0
    /// 1: 0.01 m or 1 in.
    case hundredthOfMetre = 1
    /// 2: 0.005 m or 0.5 in.
    case twoHundredthOfMetre = 2
    /// 3: 0.001 m or 0.1 in.
    case thousandthOfMetre = 3

    /// The resolution in metres, or `nil` when not specified.
    public var metres: Double? {
        [nil, 0.01, 0.005, 0.001][Int(rawValue)]
    }

    /// The resolution in inches, or `nil` when not specified.
    public var inches: Double? {
        [nil, 1, 0.5, 0.1][Int(rawValue)]
    }
}
