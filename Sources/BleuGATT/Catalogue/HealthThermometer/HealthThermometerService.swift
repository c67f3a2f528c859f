import BleuCore

/// The Health Thermometer Service (0x1809): body temperature from a thermometer.
public enum HealthThermometerService: GATTService {
    /// 0x1809, the Health Thermometer Service.
    public static let uuid = BluetoothUUID.Service.healthThermometer

    /// Temperature Measurement (0x2A1C): indicate only.
    public static let temperatureMeasurement = Characteristic<TemperatureMeasurement>(
        BluetoothUUID.Characteristic.temperatureMeasurement, codec: TemperatureMeasurement.codec, properties: [.indicate])

    /// Temperature Type (0x2A1D): read. Where the thermometer measures, when it is fixed.
    public static let temperatureType = Characteristic<TemperatureType>(
        BluetoothUUID.Characteristic.temperatureType, codec: .enumeration(TemperatureType.self), properties: [.read])

    /// Intermediate Temperature (0x2A1E): notify; readings while a measurement settles, in the
    /// Temperature Measurement layout.
    public static let intermediateTemperature = Characteristic<TemperatureMeasurement>(
        BluetoothUUID.Characteristic.intermediateTemperature, codec: TemperatureMeasurement.codec, properties: [.notify])

    /// Measurement Interval (0x2A21): seconds between measurements, a `uint16` (1–65535, 0
    /// for no periodic measurement); read. A server that lets clients write it answers a value
    /// outside its Valid Range with ``/BleuCore/ATTError/outOfRange`` (0xFF): declare that with
    /// `codec: IntegerCodec<UInt16>().restricted(to: 1...3600, answering: .outOfRange)` and
    /// ``Characteristic/with(properties:permissions:)``.
    public static let measurementInterval = Characteristic<UInt16>(
        BluetoothUUID.Characteristic.measurementInterval, codec: .uint16, properties: [.read])

    /// Temperature Measurement, Temperature Type, Intermediate Temperature and Measurement
    /// Interval, in the specification's order.
    public static var characteristics: [CharacteristicDeclaration] {
        temperatureMeasurement
        temperatureType
        intermediateTemperature
        measurementInterval
    }
}

/// Temperature Type (0x2A1D): where the temperature was taken. 0 and 10–255 are reserved and
/// rejected. GATT Specification Supplement, "Temperature Type".
public enum TemperatureType: UInt8, Sendable, Hashable, CaseIterable {
    /// Armpit (1).
    case armpit = 1
    /// Body (general).
    case body
    /// Ear (usually ear lobe).
    case ear
    /// Finger.
    case finger
    /// Gastro-intestinal tract.
    case gastrointestinalTract
    /// Mouth.
    case mouth
    /// Rectum.
    case rectum
    /// Toe.
    case toe
    /// Tympanum (ear drum).
    case tympanum
}
