import BleuCore

/// The Immediate Alert Service (0x1802): a central makes the device alert now (Find Me and
/// Proximity profiles).
public enum ImmediateAlertService: GATTService {
    /// 0x1802, the Immediate Alert Service.
    public static let uuid = BluetoothUUID.Service.immediateAlert

    /// Alert Level (0x2A06): write without response. The level to alert at from now on; a
    /// reserved value is refused with ``/BleuCore/ATTError/valueNotAllowed``.
    public static let alertLevel = Characteristic<AlertLevel>(
        BluetoothUUID.Characteristic.alertLevel, codec: .enumeration(AlertLevel.self), properties: [.writeWithoutResponse])

    /// Alert Level.
    public static var characteristics: [CharacteristicDeclaration] {
        alertLevel
    }
}
