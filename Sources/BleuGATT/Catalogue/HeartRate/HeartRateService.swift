import BleuCore

/// The Heart Rate Service (0x180D): a heart rate sensor for fitness applications.
public enum HeartRateService: GATTService {
    /// 0x180D, the Heart Rate Service.
    public static let uuid = BluetoothUUID.Service.heartRate

    /// The application error a server answers a Heart Rate Control Point write of an
    /// unsupported value with: 0x80, Control Point Not Supported (Heart Rate Service
    /// specification, "Heart Rate Control Point").
    public static let controlPointNotSupported = ATTError(0x80)

    /// Heart Rate Measurement (0x2A37): notify only.
    public static let measurement = Characteristic<HeartRateMeasurement>(
        BluetoothUUID.Characteristic.heartRateMeasurement, codec: HeartRateMeasurement.codec, properties: [.notify])

    /// Body Sensor Location (0x2A38): read.
    public static let bodySensorLocation = Characteristic<BodySensorLocation>(
        BluetoothUUID.Characteristic.bodySensorLocation, codec: .enumeration(BodySensorLocation.self), properties: [.read])

    /// Heart Rate Control Point (0x2A39): write. An unknown value decodes to an error answered
    /// with ``controlPointNotSupported`` (0x80).
    public static let controlPoint = Characteristic<HeartRateControlPoint>(
        BluetoothUUID.Characteristic.heartRateControlPoint,
        codec: .enumeration(HeartRateControlPoint.self, answering: controlPointNotSupported), properties: [.write])

    /// Heart Rate Measurement, Body Sensor Location and Heart Rate Control Point.
    public static var characteristics: [CharacteristicDeclaration] {
        measurement
        bodySensorLocation
        controlPoint
    }
}

/// Body Sensor Location (0x2A38): where the sensor is worn. 7–255 are reserved and rejected.
/// GATT Specification Supplement, "Body Sensor Location".
public enum BodySensorLocation: UInt8, Sendable, Hashable, CaseIterable {
    /// 0: somewhere not listed.
    case other = 0
    case chest, wrist, finger, hand, earLobe, foot
}

/// Heart Rate Control Point (0x2A39): a command to the sensor. Other values are reserved and
/// answered with 0x80 (``HeartRateService/controlPointNotSupported``).
/// GATT Specification Supplement, "Heart Rate Control Point".
public enum HeartRateControlPoint: UInt8, Sendable, Hashable, CaseIterable {
    /// Reset the Energy Expended field to 0.
    case resetEnergyExpended = 1
}
