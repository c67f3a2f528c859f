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
