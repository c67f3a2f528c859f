import BleuCore

/// The Battery Service (0x180F): the charge left in a battery.
public enum BatteryService: GATTService {
    /// 0x180F, the Battery Service.
    public static let uuid = BluetoothUUID.Service.battery

    /// Battery Level (0x2A19): percent of full charge, a `uint8` in 0–100; 101–255 are
    /// rejected both ways (GATT Specification Supplement, "Battery Level"). Read and notify.
    public static let level = Characteristic<UInt8>(
        BluetoothUUID.Characteristic.batteryLevel, codec: .percentage, properties: [.read, .notify])

    /// Battery Level, BAS 1.0's one characteristic (the status and health characteristics BAS 1.1
    /// adds are not in the catalogue yet).
    public static var characteristics: [CharacteristicDeclaration] {
        level
    }
}
