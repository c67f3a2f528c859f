// CoreBluetooth's connection-event vocabulary, under CoreBluetooth's names and raw values
// (on Apple platforms CoreBluetooth provides it; see ManagerEnums.swift).
#if !canImport(CoreBluetooth)

/// A connection event a central manager reports for a matching peripheral
/// (CoreBluetooth's `CBConnectionEvent`).
public enum CBConnectionEvent: Int, Sendable {
    /// The peer disconnected (0).
    case peerDisconnected = 0
    /// The peer connected (1).
    case peerConnected = 1
}

/// A key of the options dictionary of `registerForConnectionEvents(options:)`
/// (CoreBluetooth's `CBConnectionEventMatchingOption`).
public struct CBConnectionEventMatchingOption: RawRepresentable, Hashable, Sendable {
    /// The option's key string, as CoreBluetooth spells it.
    public let rawValue: String

    /// An option with the given key string.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Match connection events of peripherals with these identifiers; the value is `[UUID]`.
    public static let peripheralUUIDs = CBConnectionEventMatchingOption(
        rawValue: "kCBConnectionEventMatchingOptionPeripheralUUIDs")

    /// Match connection events of peripherals offering these services; the value is `[CBUUID]`.
    public static let serviceUUIDs = CBConnectionEventMatchingOption(
        rawValue: "kCBConnectionEventMatchingOptionServiceUUIDs")
}

#endif
