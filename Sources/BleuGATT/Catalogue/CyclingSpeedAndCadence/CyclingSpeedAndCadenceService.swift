import BleuCore

/// The Cycling Speed and Cadence Service (0x1816): wheel and crank revolutions from a bicycle
/// speed or cadence sensor.
public enum CyclingSpeedAndCadenceService: GATTService {
    /// 0x1816, the Cycling Speed and Cadence Service.
    public static let uuid = BluetoothUUID.Service.cyclingSpeedAndCadence

    /// CSC Measurement (0x2A5B): notify only.
    public static let measurement = Characteristic<CSCMeasurement>(
        BluetoothUUID.Characteristic.cscMeasurement, codec: CSCMeasurement.codec, properties: [.notify])

    /// CSC Feature (0x2A5C): read. What the sensor measures.
    public static let feature = Characteristic<CSCFeature>(
        BluetoothUUID.Characteristic.cscFeature, codec: CSCFeature.codec, properties: [.read])

    /// Sensor Location (0x2A5D): read. Where the sensor is mounted; the service requires it when
    /// the sensor supports several locations.
    public static let sensorLocation = Characteristic<SensorLocation>(
        BluetoothUUID.Characteristic.sensorLocation, codec: .enumeration(SensorLocation.self), properties: [.read])

    /// SC Control Point (0x2A55): write requests, indicate responses. Reserved op codes decode to
    /// an error answered with ``/BleuCore/ATTError/valueNotAllowed``.
    public static let controlPoint = Characteristic<SCControlPoint>(
        BluetoothUUID.Characteristic.scControlPoint, codec: SCControlPoint.codec, properties: [.write, .indicate])

    /// CSC Measurement, CSC Feature, Sensor Location and SC Control Point.
    public static var characteristics: [CharacteristicDeclaration] {
        measurement
        feature
        sensorLocation
        controlPoint
    }
}
