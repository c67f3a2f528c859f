/// Fitness Machine Feature (0x2ACC): what a fitness machine reports and which targets it can
/// be set to, two 32-bit fields. GATT Specification Supplement, "Fitness Machine Feature":
///
/// | field | size |
/// |---|---|
/// | Fitness Machine Features | uint32 bit field |
/// | Target Setting Features | uint32 bit field |
///
/// Reserved bits (17–31 of each) are written 0 and dropped when read.
public struct FitnessMachineFeature: GATTStructure, Hashable {
    /// The data the machine reports.
    public var machineFeatures: FitnessMachineFeatures
    /// The targets a client can set through the Fitness Machine Control Point.
    public var targetSettingFeatures: TargetSettingFeatures

    /// A feature value.
    public init(machineFeatures: FitnessMachineFeatures, targetSettingFeatures: TargetSettingFeatures = []) {
        self.machineFeatures = machineFeatures
        self.targetSettingFeatures = targetSettingFeatures
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        machineFeatures = try reader.decode(FitnessMachineFeatures.codec, field: "Fitness Machine Features")
        targetSettingFeatures = try reader.decode(TargetSettingFeatures.codec, field: "Target Setting Features")
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        try writer.encode(machineFeatures, with: FitnessMachineFeatures.codec, field: "Fitness Machine Features")
        try writer.encode(targetSettingFeatures, with: TargetSettingFeatures.codec, field: "Target Setting Features")
    }
}

/// The Fitness Machine Features field of the Fitness Machine Feature: the data the machine
/// supports reporting, one bit each (bits 0–16).
public struct FitnessMachineFeatures: OptionSet, Sendable, Hashable {
    /// The bits.
    public let rawValue: UInt32

    /// The features these bits say.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Bit 0: Average Speed Supported.
    public static let averageSpeed = FitnessMachineFeatures(rawValue: 1 << 0)
    /// Bit 1: Cadence Supported.
    public static let cadence = FitnessMachineFeatures(rawValue: 1 << 1)
    /// Bit 2: Total Distance Supported.
    public static let totalDistance = FitnessMachineFeatures(rawValue: 1 << 2)
    /// Bit 3: Inclination Supported.
    public static let inclination = FitnessMachineFeatures(rawValue: 1 << 3)
    /// Bit 4: Elevation Gain Supported.
    public static let elevationGain = FitnessMachineFeatures(rawValue: 1 << 4)
    /// Bit 5: Pace Supported.
    public static let pace = FitnessMachineFeatures(rawValue: 1 << 5)
    /// Bit 6: Step Count Supported.
    public static let stepCount = FitnessMachineFeatures(rawValue: 1 << 6)
    /// Bit 7: Resistance Level Supported.
    public static let resistanceLevel = FitnessMachineFeatures(rawValue: 1 << 7)
    /// Bit 8: Stride Count Supported.
    public static let strideCount = FitnessMachineFeatures(rawValue: 1 << 8)
    /// Bit 9: Expended Energy Supported.
    public static let expendedEnergy = FitnessMachineFeatures(rawValue: 1 << 9)
    /// Bit 10: Heart Rate Measurement Supported.
    public static let heartRateMeasurement = FitnessMachineFeatures(rawValue: 1 << 10)
    /// Bit 11: Metabolic Equivalent Supported.
    public static let metabolicEquivalent = FitnessMachineFeatures(rawValue: 1 << 11)
    /// Bit 12: Elapsed Time Supported.
    public static let elapsedTime = FitnessMachineFeatures(rawValue: 1 << 12)
    /// Bit 13: Remaining Time Supported.
    public static let remainingTime = FitnessMachineFeatures(rawValue: 1 << 13)
    /// Bit 14: Power Measurement Supported.
    public static let powerMeasurement = FitnessMachineFeatures(rawValue: 1 << 14)
    /// Bit 15: Force on Belt and Power Output Supported.
    public static let forceOnBeltAndPowerOutput = FitnessMachineFeatures(rawValue: 1 << 15)
    /// Bit 16: User Data Retention Supported.
    public static let userDataRetention = FitnessMachineFeatures(rawValue: 1 << 16)

    /// The bits the specification defines: 0–16.
    public static let defined = FitnessMachineFeatures(rawValue: 0x1_FFFF)

    /// Four bytes; reserved bits are written 0 and dropped when read.
    public static var codec: BitFieldCodec<FitnessMachineFeatures> { .bitField(defined, undefinedBits: .clear) }
}

/// The Target Setting Features field of the Fitness Machine Feature: the targets the machine
/// accepts through its control point, one bit each (bits 0–16).
public struct TargetSettingFeatures: OptionSet, Sendable, Hashable {
    /// The bits.
    public let rawValue: UInt32

    /// The features these bits say.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Bit 0: Speed Target Setting Supported.
    public static let speed = TargetSettingFeatures(rawValue: 1 << 0)
    /// Bit 1: Inclination Target Setting Supported.
    public static let inclination = TargetSettingFeatures(rawValue: 1 << 1)
    /// Bit 2: Resistance Target Setting Supported.
    public static let resistance = TargetSettingFeatures(rawValue: 1 << 2)
    /// Bit 3: Power Target Setting Supported.
    public static let power = TargetSettingFeatures(rawValue: 1 << 3)
    /// Bit 4: Heart Rate Target Setting Supported.
    public static let heartRate = TargetSettingFeatures(rawValue: 1 << 4)
    /// Bit 5: Targeted Expended Energy Configuration Supported.
    public static let targetedExpendedEnergy = TargetSettingFeatures(rawValue: 1 << 5)
    /// Bit 6: Targeted Step Number Configuration Supported.
    public static let targetedStepNumber = TargetSettingFeatures(rawValue: 1 << 6)
    /// Bit 7: Targeted Stride Number Configuration Supported.
    public static let targetedStrideNumber = TargetSettingFeatures(rawValue: 1 << 7)
    /// Bit 8: Targeted Distance Configuration Supported.
    public static let targetedDistance = TargetSettingFeatures(rawValue: 1 << 8)
    /// Bit 9: Targeted Training Time Configuration Supported.
    public static let targetedTrainingTime = TargetSettingFeatures(rawValue: 1 << 9)
    /// Bit 10: Targeted Time in Two Heart Rate Zones Configuration Supported.
    public static let targetedTimeInTwoHeartRateZones = TargetSettingFeatures(rawValue: 1 << 10)
    /// Bit 11: Targeted Time in Three Heart Rate Zones Configuration Supported.
    public static let targetedTimeInThreeHeartRateZones = TargetSettingFeatures(rawValue: 1 << 11)
    /// Bit 12: Targeted Time in Five Heart Rate Zones Configuration Supported.
    public static let targetedTimeInFiveHeartRateZones = TargetSettingFeatures(rawValue: 1 << 12)
    /// Bit 13: Indoor Bike Simulation Parameters Supported.
    public static let indoorBikeSimulationParameters = TargetSettingFeatures(rawValue: 1 << 13)
    /// Bit 14: Wheel Circumference Configuration Supported.
    public static let wheelCircumference = TargetSettingFeatures(rawValue: 1 << 14)
    /// Bit 15: Spin Down Control Supported.
    public static let spinDownControl = TargetSettingFeatures(rawValue: 1 << 15)
    /// Bit 16: Targeted Cadence Configuration Supported.
    public static let targetedCadence = TargetSettingFeatures(rawValue: 1 << 16)

    /// The bits the specification defines: 0–16.
    public static let defined = TargetSettingFeatures(rawValue: 0x1_FFFF)

    /// Four bytes; reserved bits are written 0 and dropped when read.
    public static var codec: BitFieldCodec<TargetSettingFeatures> { .bitField(defined, undefinedBits: .clear) }
}
