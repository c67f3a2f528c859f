import BleuCore

/// The Cycling Power Service (0x1818): power, and optionally torque, force, revolutions and
/// energy, from a bicycle power meter.
public enum CyclingPowerService: GATTService {
    /// 0x1818, the Cycling Power Service.
    public static let uuid = BluetoothUUID.Service.cyclingPower

    /// Cycling Power Measurement (0x2A63): notify.
    public static let measurement = Characteristic<CyclingPowerMeasurement>(
        BluetoothUUID.Characteristic.cyclingPowerMeasurement, codec: CyclingPowerMeasurement.codec, properties: [.notify])

    /// Cycling Power Feature (0x2A65): read. What the sensor measures and supports.
    public static let feature = Characteristic<CyclingPowerFeature>(
        BluetoothUUID.Characteristic.cyclingPowerFeature, codec: CyclingPowerFeature.codec, properties: [.read])

    /// Sensor Location (0x2A5D): read, mandatory in this service; the same characteristic as
    /// ``CyclingSpeedAndCadenceService/sensorLocation``.
    public static let sensorLocation = CyclingSpeedAndCadenceService.sensorLocation

    /// Cycling Power Vector (0x2A64): notify, optional.
    public static let vector = Characteristic<CyclingPowerVector>(
        BluetoothUUID.Characteristic.cyclingPowerVector, codec: CyclingPowerVector.codec, properties: [.notify])

    /// Cycling Power Control Point (0x2A66): write requests, indicate responses, optional. Op codes
    /// it does not type decode to an error answered with ``/BleuCore/ATTError/valueNotAllowed``.
    public static let controlPoint = Characteristic<CyclingPowerControlPoint>(
        BluetoothUUID.Characteristic.cyclingPowerControlPoint, codec: CyclingPowerControlPoint.codec,
        properties: [.write, .indicate])

    /// Cycling Power Measurement, Cycling Power Feature, Sensor Location, Cycling Power Vector and
    /// Cycling Power Control Point.
    public static var characteristics: [CharacteristicDeclaration] {
        measurement
        feature
        sensorLocation
        vector
        controlPoint
    }
}
