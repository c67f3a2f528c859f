import Foundation

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
