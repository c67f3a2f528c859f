import BleuCore

/// The Current Time Service (0x1805): the server's date and time.
public enum CurrentTimeService: GATTService {
    /// 0x1805, the Current Time Service.
    public static let uuid = BluetoothUUID.Service.currentTime

    /// Current Time (0x2A2B): read and notify; the service allows writes where the server
    /// lets clients set its clock (``Characteristic/with(properties:permissions:)``).
    public static let currentTime = Characteristic<CurrentTime>(
        BluetoothUUID.Characteristic.currentTime, codec: CurrentTime.codec, properties: [.read, .notify])

    /// Current Time. (Local Time Information and Reference Time Information, optional in the
    /// specification, are not in the catalogue yet; declare them with ``Characteristic`` and a codec.)
    public static var characteristics: [CharacteristicDeclaration] {
        currentTime
    }
}
