import Foundation

/// One advertisement a scan received.
public struct Advertisement: Sendable, Hashable {
    /// The identifier under which this central knows the peripheral. It is the central's
    /// choice, not the peripheral's: the same peripheral has different identifiers on
    /// different centrals.
    public var peripheral: UUID
    /// The advertising data merged with the scan response, when one was received.
    public var data: AdvertisingData
    /// The received signal strength, in dBm.
    public var rssi: Int
    /// Whether the peripheral accepts connections.
    public var isConnectable: Bool

    public init(peripheral: UUID, data: AdvertisingData, rssi: Int, isConnectable: Bool) {
        self.peripheral = peripheral
        self.data = data
        self.rssi = rssi
        self.isConnectable = isConnectable
    }

    /// The advertised local name, if any.
    public var localName: String? { data.localName }
}
