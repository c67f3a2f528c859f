import BleuCore

/// The Weight Scale Service (0x181D): body weight, and optionally BMI and height, from a scale.
public enum WeightScaleService: GATTService {
    /// 0x181D, the Weight Scale Service.
    public static let uuid = BluetoothUUID.Service.weightScale

    /// Weight Scale Feature (0x2A9E): read. What the scale supports and how finely it measures.
    public static let feature = Characteristic<WeightScaleFeature>(
        BluetoothUUID.Characteristic.weightScaleFeature, codec: WeightScaleFeature.codec, properties: [.read])

    /// Weight Measurement (0x2A9D): indicate only.
    public static let measurement = Characteristic<WeightMeasurement>(
        BluetoothUUID.Characteristic.weightMeasurement, codec: WeightMeasurement.codec, properties: [.indicate])

    /// Weight Scale Feature and Weight Measurement, in the specification's order.
    public static var characteristics: [CharacteristicDeclaration] {
        feature
        measurement
    }
}

/// The supported features of a Weight Scale Feature (0x2A9E), its bits 0–2 (GATT Specification
/// Supplement, "Weight Scale Feature"); bits 3–6 are the weight resolution ("Weight Measurement
/// Resolution") and 7–9 the height resolution, bits 10–31 reserved.
public struct WeightScaleSupportedFeatures: ScaleFeatureBits {
    /// The bits as sent.
    public let rawValue: UInt32

    /// The features with these bits.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Bit 0: measurements carry a time stamp.
    public static let timeStamp = Self(rawValue: 1 << 0)
    /// Bit 1: the scale tells several users apart.
    public static let multipleUsers = Self(rawValue: 1 << 1)
    /// Bit 2: measurements carry BMI and height.
    public static let bmi = Self(rawValue: 1 << 2)

    /// Three feature bits.
    public static let bitCount = 3
    /// "Weight Measurement Resolution".
    public static let massResolutionName = "Weight Measurement Resolution"
}

/// Weight Scale Feature (0x2A9E): what a scale supports and how finely it weighs and measures
/// height, a `uint32` (GATT Specification Supplement, "Weight Scale Feature").
public typealias WeightScaleFeature = ScaleFeature<WeightScaleSupportedFeatures>
