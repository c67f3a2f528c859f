import BleuCore

/// The Body Composition Service (0x181B): body fat and related measurements from a body
/// composition analyser, usually a scale.
public enum BodyCompositionService: GATTService {
    /// 0x181B, the Body Composition Service.
    public static let uuid = BluetoothUUID.Service.bodyComposition

    /// Body Composition Feature (0x2A9B): read. What the analyser measures and how finely.
    public static let feature = Characteristic<BodyCompositionFeature>(
        BluetoothUUID.Characteristic.bodyCompositionFeature, codec: BodyCompositionFeature.codec, properties: [.read])

    /// Body Composition Measurement (0x2A9C): indicate only.
    public static let measurement = Characteristic<BodyCompositionMeasurement>(
        BluetoothUUID.Characteristic.bodyCompositionMeasurement, codec: BodyCompositionMeasurement.codec,
        properties: [.indicate])

    /// Body Composition Feature and Body Composition Measurement, in the specification's order.
    public static var characteristics: [CharacteristicDeclaration] {
        feature
        measurement
    }
}

/// The supported fields of a Body Composition Feature (0x2A9B), its bits 0–10 (GATT
/// Specification Supplement, "Body Composition Feature"); bits 11–14 are the mass resolution and
/// 15–17 the height resolution, bits 18–31 reserved.
public struct BodyCompositionSupportedFeatures: ScaleFeatureBits {
    /// The bits as sent.
    public let rawValue: UInt32

    /// The features with these bits.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Bit 0: Time Stamp.
    public static let timeStamp = Self(rawValue: 1 << 0)
    /// Bit 1: Multiple Users.
    public static let multipleUsers = Self(rawValue: 1 << 1)
    /// Bit 2: Basal Metabolism.
    public static let basalMetabolism = Self(rawValue: 1 << 2)
    /// Bit 3: Muscle Percentage.
    public static let musclePercentage = Self(rawValue: 1 << 3)
    /// Bit 4: Muscle Mass.
    public static let muscleMass = Self(rawValue: 1 << 4)
    /// Bit 5: Fat Free Mass.
    public static let fatFreeMass = Self(rawValue: 1 << 5)
    /// Bit 6: Soft Lean Mass.
    public static let softLeanMass = Self(rawValue: 1 << 6)
    /// Bit 7: Body Water Mass.
    public static let bodyWaterMass = Self(rawValue: 1 << 7)
    /// Bit 8: Impedance.
    public static let impedance = Self(rawValue: 1 << 8)
    /// Bit 9: Weight.
    public static let weight = Self(rawValue: 1 << 9)
    /// Bit 10: Height.
    public static let height = Self(rawValue: 1 << 10)

    /// Eleven feature bits.
    public static let bitCount = 11
    /// "Mass Measurement Resolution".
    public static let massResolutionName = "Mass Measurement Resolution"
}

/// Body Composition Feature (0x2A9B): what an analyser measures and how finely, a `uint32`
/// (GATT Specification Supplement, "Body Composition Feature").
public typealias BodyCompositionFeature = ScaleFeature<BodyCompositionSupportedFeatures>
