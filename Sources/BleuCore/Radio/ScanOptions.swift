import Foundation

/// What a central scans for.
public struct ScanOptions: Sendable, Hashable, Codable {
    /// Only report peripherals advertising at least one of these services; `nil` reports all.
    public var services: [BluetoothUUID]?
    /// Report every advertisement received. When `false`, a scan reports each peripheral once.
    public var allowDuplicates: Bool
    /// Also report peripherals that solicit one of these services (CoreBluetooth's
    /// `CBCentralManagerScanOptionSolicitedServiceUUIDsKey`).
    public var solicitedServices: [BluetoothUUID]

    public init(services: [BluetoothUUID]? = nil, allowDuplicates: Bool = false,
                solicitedServices: [BluetoothUUID] = []) {
        self.services = services
        self.allowDuplicates = allowDuplicates
        self.solicitedServices = solicitedServices
    }

    /// Whether an advertisement passes the service and solicitation filters: with no filter at
    /// all everything matches; otherwise it must advertise one of ``services`` or solicit one of
    /// ``solicitedServices``.
    public func matches(_ data: AdvertisingData) -> Bool {
        if services == nil && solicitedServices.isEmpty { return true }
        if let services, !Set(services).isDisjoint(with: data.serviceUUIDs) { return true }
        return !Set(solicitedServices).isDisjoint(with: data.solicitedServiceUUIDs)
    }
}

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

/// A peripheral a central knows about, from ``CentralManager/retrievePeripherals(withIdentifiers:)``.
public struct KnownPeripheral: Sendable, Hashable {
    public var id: UUID
    public var name: String?
    public var isConnected: Bool

    public init(id: UUID, name: String?, isConnected: Bool) {
        self.id = id
        self.name = name
        self.isConnected = isConnected
    }
}
