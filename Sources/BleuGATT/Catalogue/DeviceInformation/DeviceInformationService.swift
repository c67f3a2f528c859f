import BleuCore

/// The Device Information Service (0x180A): who made the device and what it runs. Every
/// characteristic is read-only and optional; a peripheral hosts the ones it has, usually with
/// static values:
///
/// ```swift
/// let info = try DeviceInformationService.declaration {
///     try DeviceInformationService.manufacturerName.value("Acme")
///     try DeviceInformationService.firmwareRevision.value("1.4.2")
/// }
/// ```
public enum DeviceInformationService: GATTService {
    /// 0x180A, the Device Information Service.
    public static let uuid = BluetoothUUID.Service.deviceInformation

    /// Manufacturer Name String (0x2A29), UTF-8.
    public static let manufacturerName = string(BluetoothUUID.Characteristic.manufacturerNameString)
    /// Model Number String (0x2A24), UTF-8.
    public static let modelNumber = string(BluetoothUUID.Characteristic.modelNumberString)
    /// Serial Number String (0x2A25), UTF-8.
    public static let serialNumber = string(BluetoothUUID.Characteristic.serialNumberString)
    /// Hardware Revision String (0x2A27), UTF-8.
    public static let hardwareRevision = string(BluetoothUUID.Characteristic.hardwareRevisionString)
    /// Firmware Revision String (0x2A26), UTF-8.
    public static let firmwareRevision = string(BluetoothUUID.Characteristic.firmwareRevisionString)
    /// Software Revision String (0x2A28), UTF-8.
    public static let softwareRevision = string(BluetoothUUID.Characteristic.softwareRevisionString)
    /// System ID (0x2A23), 8 bytes.
    public static let systemID = Characteristic<SystemID>(
        BluetoothUUID.Characteristic.systemID, codec: SystemID.codec, properties: [.read])
    /// PnP ID (0x2A50), 7 bytes.
    public static let pnpID = Characteristic<PnPID>(
        BluetoothUUID.Characteristic.pnpID, codec: PnPID.codec, properties: [.read])

    /// Every field above, in this order; host the ones the device has with
    /// ``GATTService/declaration(_:)``.
    public static var characteristics: [CharacteristicDeclaration] {
        manufacturerName
        modelNumber
        serialNumber
        hardwareRevision
        firmwareRevision
        softwareRevision
        systemID
        pnpID
    }

    private static func string(_ uuid: BluetoothUUID) -> Characteristic<String> {
        Characteristic(uuid, codec: .utf8String, properties: [.read])
    }
}
