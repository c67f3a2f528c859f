import BleuCore

/// The Link Loss Service (0x1803): the level a device alerts at when its link to the central
/// is lost (Proximity profile).
public enum LinkLossService: GATTService {
    /// 0x1803, the Link Loss Service.
    public static let uuid = BluetoothUUID.Service.linkLoss

    /// Alert Level (0x2A06): read and write. The level to alert at when the link drops; the
    /// layout of ``ImmediateAlertService/alertLevel``.
    public static let alertLevel = ImmediateAlertService.alertLevel.with(properties: [.read, .write])

    /// Alert Level.
    public static var characteristics: [CharacteristicDeclaration] {
        alertLevel
    }
}
