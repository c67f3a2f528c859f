import BleuCore

/// The Environmental Sensing Service (0x181A): readings of the environment. Each
/// characteristic is read and notify; a sensor may host several of one kind, told apart by
/// their ES Measurement descriptors (``GATTDescriptor/environmentalSensingMeasurement``).
public enum EnvironmentalSensingService: GATTService {
    /// 0x181A, the Environmental Sensing Service.
    public static let uuid = BluetoothUUID.Service.environmentalSensing

    /// Temperature (0x2A6E): ``Temperature``, 0.01 °C.
    public static let temperature = Characteristic<Temperature>(
        BluetoothUUID.Characteristic.temperature, codec: Temperature.codec, properties: [.read, .notify])
    /// Humidity (0x2A6F): ``Humidity``, 0.01 %.
    public static let humidity = Characteristic<Humidity>(
        BluetoothUUID.Characteristic.humidity, codec: Humidity.codec, properties: [.read, .notify])
    /// Pressure (0x2A6D): ``Pressure``, 0.1 Pa.
    public static let pressure = Characteristic<Pressure>(
        BluetoothUUID.Characteristic.pressure, codec: Pressure.codec, properties: [.read, .notify])

    /// Temperature, Humidity and Pressure — the ESS characteristics the catalogue types so far.
    public static var characteristics: [CharacteristicDeclaration] {
        temperature
        humidity
        pressure
    }
}
