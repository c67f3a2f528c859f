import BleuCore

/// The Running Speed and Cadence Service (0x1814): speed, cadence, stride length and distance
/// from a foot pod or other running sensor.
public enum RunningSpeedAndCadenceService: GATTService {
    /// 0x1814, the Running Speed and Cadence Service.
    public static let uuid = BluetoothUUID.Service.runningSpeedAndCadence

    /// RSC Measurement (0x2A53): notify only.
    public static let measurement = Characteristic<RSCMeasurement>(
        BluetoothUUID.Characteristic.rscMeasurement, codec: RSCMeasurement.codec, properties: [.notify])

    /// RSC Feature (0x2A54): read. What the sensor measures.
    public static let feature = Characteristic<RSCFeature>(
        BluetoothUUID.Characteristic.rscFeature, codec: RSCFeature.codec, properties: [.read])

    /// Sensor Location (0x2A5D): read; the same characteristic as
    /// ``CyclingSpeedAndCadenceService/sensorLocation``.
    public static let sensorLocation = CyclingSpeedAndCadenceService.sensorLocation

    /// SC Control Point (0x2A55): write requests, indicate responses; the same characteristic as
    /// ``CyclingSpeedAndCadenceService/controlPoint``. Its Set Cumulative Value sets the Total
    /// Distance, in 1/10 m.
    public static let controlPoint = CyclingSpeedAndCadenceService.controlPoint

    /// RSC Measurement, RSC Feature, Sensor Location and SC Control Point.
    public static var characteristics: [CharacteristicDeclaration] {
        measurement
        feature
        sensorLocation
        controlPoint
    }
}
