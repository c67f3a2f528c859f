/// Cycling Power Feature (0x2A65): what a power sensor supports, a 32-bit field. Bits 22–31 are
/// reserved: written 0 and dropped when read. GATT Specification Supplement, "Cycling Power
/// Feature".
public struct CyclingPowerFeature: OptionSet, Sendable, Hashable {
    /// The feature bits the specification defines.
    public let rawValue: UInt32

    /// The features these bits say.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Bit 0: Pedal Power Balance Supported.
    public static let pedalPowerBalance = CyclingPowerFeature(rawValue: 1 << 0)
    /// Bit 1: Accumulated Torque Supported.
    public static let accumulatedTorque = CyclingPowerFeature(rawValue: 1 << 1)
    /// Bit 2: Wheel Revolution Data Supported.
    public static let wheelRevolutionData = CyclingPowerFeature(rawValue: 1 << 2)
    /// Bit 3: Crank Revolution Data Supported.
    public static let crankRevolutionData = CyclingPowerFeature(rawValue: 1 << 3)
    /// Bit 4: Extreme Magnitudes Supported.
    public static let extremeMagnitudes = CyclingPowerFeature(rawValue: 1 << 4)
    /// Bit 5: Extreme Angles Supported.
    public static let extremeAngles = CyclingPowerFeature(rawValue: 1 << 5)
    /// Bit 6: Top and Bottom Dead Spot Angles Supported.
    public static let deadSpotAngles = CyclingPowerFeature(rawValue: 1 << 6)
    /// Bit 7: Accumulated Energy Supported.
    public static let accumulatedEnergy = CyclingPowerFeature(rawValue: 1 << 7)
    /// Bit 8: Offset Compensation Indicator Supported.
    public static let offsetCompensationIndicator = CyclingPowerFeature(rawValue: 1 << 8)
    /// Bit 9: Offset Compensation Supported.
    public static let offsetCompensation = CyclingPowerFeature(rawValue: 1 << 9)
    /// Bit 10: Cycling Power Measurement Characteristic Content Masking Supported.
    public static let measurementContentMasking = CyclingPowerFeature(rawValue: 1 << 10)
    /// Bit 11: Multiple Sensor Locations Supported.
    public static let multipleSensorLocations = CyclingPowerFeature(rawValue: 1 << 11)
    /// Bit 12: Crank Length Adjustment Supported.
    public static let crankLengthAdjustment = CyclingPowerFeature(rawValue: 1 << 12)
    /// Bit 13: Chain Length Adjustment Supported.
    public static let chainLengthAdjustment = CyclingPowerFeature(rawValue: 1 << 13)
    /// Bit 14: Chain Weight Adjustment Supported.
    public static let chainWeightAdjustment = CyclingPowerFeature(rawValue: 1 << 14)
    /// Bit 15: Span Length Adjustment Supported.
    public static let spanLengthAdjustment = CyclingPowerFeature(rawValue: 1 << 15)
    /// Bit 16: Sensor Measurement Context — set when the sensor measures torque, clear when it
    /// measures force.
    public static let torqueBasedMeasurementContext = CyclingPowerFeature(rawValue: 1 << 16)
    /// Bit 17: Instantaneous Measurement Direction Supported.
    public static let instantaneousMeasurementDirection = CyclingPowerFeature(rawValue: 1 << 17)
    /// Bit 18: Factory Calibration Date Supported.
    public static let factoryCalibrationDate = CyclingPowerFeature(rawValue: 1 << 18)
    /// Bit 19: Enhanced Offset Compensation Supported.
    public static let enhancedOffsetCompensation = CyclingPowerFeature(rawValue: 1 << 19)

    /// Bits 20–21 = 1, Distribute System Support: not for use in a distributed system (several
    /// sensors that together measure the power, such as a pair of pedals).
    public static let distributedSystemNotSupported = CyclingPowerFeature(rawValue: 1 << 20)
    /// Bits 20–21 = 2, Distribute System Support: can be used in a distributed system.
    public static let distributedSystemSupported = CyclingPowerFeature(rawValue: 1 << 21)

    /// Bits 20–21, Distribute System Support, as a value.
    public enum DistributedSystemSupport: UInt32, Sendable, Hashable, CaseIterable {
        /// 0: unspecified (a sensor older than the field).
        case unspecified = 0
        /// 1: not for use in a distributed system.
        case notSupported = 1
        /// 2: can be used in a distributed system.
        case supported = 2
    }

    /// Bits 20–21 as a value; `nil` for the reserved value 3.
    public var distributedSystemSupport: DistributedSystemSupport? {
        DistributedSystemSupport(rawValue: (rawValue >> 20) & 0b11)
    }

    /// The bits the specification defines: 0–21.
    public static let defined = CyclingPowerFeature(rawValue: 0x3F_FFFF)

    /// Four bytes; reserved bits are written 0 and dropped when read.
    public static var codec: BitFieldCodec<CyclingPowerFeature> { .bitField(defined, undefinedBits: .clear) }
}
