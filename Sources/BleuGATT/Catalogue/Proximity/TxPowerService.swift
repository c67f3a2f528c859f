import BleuCore

/// The Tx Power Service (0x1804): the transmit power the device uses on the link, so a
/// central can estimate the path loss from the received signal strength (Proximity profile).
public enum TxPowerService: GATTService {
    /// 0x1804, the Tx Power Service.
    public static let uuid = BluetoothUUID.Service.txPower

    /// Tx Power Level (0x2A07): read. The transmit power in dBm, a `sint8` in −100...20
    /// (GATT Specification Supplement, "Tx Power Level"); values outside are refused both ways.
    public static let txPowerLevel = Characteristic<Int8>(
        BluetoothUUID.Characteristic.txPowerLevel, codec: IntegerCodec<Int8>().restricted(to: -100...20), properties: [.read])

    /// Tx Power Level.
    public static var characteristics: [CharacteristicDeclaration] {
        txPowerLevel
    }
}
