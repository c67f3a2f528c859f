import BleuCore

/// The Blood Pressure Service (0x1810): blood pressure readings from a monitor with a cuff.
public enum BloodPressureService: GATTService {
    /// 0x1810, the Blood Pressure Service.
    public static let uuid = BluetoothUUID.Service.bloodPressure

    /// Blood Pressure Measurement (0x2A35): indicate only.
    public static let measurement = Characteristic<BloodPressureMeasurement>(
        BluetoothUUID.Characteristic.bloodPressureMeasurement, codec: BloodPressureMeasurement.codec, properties: [.indicate])

    /// Intermediate Cuff Pressure (0x2A36): notify; the cuff pressure while the monitor measures.
    public static let intermediateCuffPressure = Characteristic<IntermediateCuffPressure>(
        BluetoothUUID.Characteristic.intermediateCuffPressure, codec: IntermediateCuffPressure.codec, properties: [.notify])

    /// Blood Pressure Feature (0x2A49): read. What the monitor can detect.
    public static let feature = Characteristic<BloodPressureFeature>(
        BluetoothUUID.Characteristic.bloodPressureFeature,
        codec: .bitField(BloodPressureFeature.all, undefinedBits: .clear), properties: [.read])

    /// Blood Pressure Measurement, Intermediate Cuff Pressure and Blood Pressure Feature, in the
    /// specification's order.
    public static var characteristics: [CharacteristicDeclaration] {
        measurement
        intermediateCuffPressure
        feature
    }
}

/// Blood Pressure Feature (0x2A49), a `uint16` of supported features (GATT Specification
/// Supplement, "Blood Pressure Feature"). Bits 6–15 are reserved, written 0 and ignored when read.
public struct BloodPressureFeature: OptionSet, Sendable, Hashable {
    /// The bits as sent.
    public let rawValue: UInt16

    /// The features with these bits.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// Bit 0: Body Movement Detection.
    public static let bodyMovementDetection = Self(rawValue: 1 << 0)
    /// Bit 1: Cuff Fit Detection.
    public static let cuffFitDetection = Self(rawValue: 1 << 1)
    /// Bit 2: Irregular Pulse Detection.
    public static let irregularPulseDetection = Self(rawValue: 1 << 2)
    /// Bit 3: Pulse Rate Range Detection.
    public static let pulseRateRangeDetection = Self(rawValue: 1 << 3)
    /// Bit 4: Measurement Position Detection.
    public static let measurementPositionDetection = Self(rawValue: 1 << 4)
    /// Bit 5: Multiple Bonds.
    public static let multipleBonds = Self(rawValue: 1 << 5)

    /// Every feature this type defines (bits 0–5).
    public static let all: Self = [.bodyMovementDetection, .cuffFitDetection, .irregularPulseDetection,
                                   .pulseRateRangeDetection, .measurementPositionDetection, .multipleBonds]
}
