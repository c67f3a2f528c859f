import Foundation

/// What a central manager reports, in the order it happened.
public enum CentralEvent: Sendable {
    /// The radio's state changed. A new event stream starts with the current state.
    case stateChanged(ManagerState)
    /// The manager was created with a restore identifier and took over its predecessor's
    /// state. Delivered to every event stream before anything else that follows restoration.
    case willRestoreState(CentralRestoration)
    /// A connection to the peripheral was established.
    case connected(UUID)
    /// The connection to the peripheral ended, from either side or by link loss.
    case disconnected(UUID, DisconnectReason)
    /// The ATT MTU to the peripheral changed (an MTU exchange completed).
    case mtuChanged(UUID, mtu: Int)
    /// The send queue to the peripheral has room for a write without response again.
    case readyToSendWriteWithoutResponse(UUID)
    /// The peripheral's GATT database changed (Service Changed); rediscover.
    case servicesChanged(UUID)
}

/// What a peripheral manager reports, in the order it happened.
public enum PeripheralEvent: Sendable {
    /// The radio's state changed. A new event stream starts with the current state.
    case stateChanged(ManagerState)
    /// The manager was created with a restore identifier and took over its predecessor's
    /// state. Delivered to every event stream before anything else that follows restoration.
    case willRestoreState(PeripheralRestoration)
    /// A central connected. A backend that cannot observe connections (as CoreBluetooth's
    /// peripheral role cannot) reports a central at its first request or subscription.
    case centralConnected(UUID)
    /// A central's connection ended.
    case centralDisconnected(UUID, DisconnectReason)
    /// The ATT MTU to a central changed.
    case mtuChanged(central: UUID, mtu: Int)
    /// A central reads a characteristic whose value the application serves; answer it.
    case readRequest(ReadRequest)
    /// A central writes; answer it when it ``WriteRequests/needsResponse``.
    case writeRequests(WriteRequests)
    /// A central enabled notifications or indications of a characteristic.
    case subscribed(central: UUID, characteristic: PublishedCharacteristic)
    /// A central disabled them, or disconnected.
    case unsubscribed(central: UUID, characteristic: PublishedCharacteristic)
    /// The notification queue has room again after ``PeripheralManager/updateValue(_:for:onSubscribedCentrals:)``
    /// returned `false`.
    case readyToUpdateSubscribers
    /// A central opened an L2CAP channel on a PSM this peripheral published.
    case l2capChannelOpened(any L2CAPChannel)
}

/// What a central manager restored from its predecessor (CoreBluetooth's `willRestoreState`).
public struct CentralRestoration: Sendable, Hashable {
    /// Peripherals connected (or being connected) at the time; usable at once.
    public var peripherals: [UUID]
    /// The scan that was running, if any; it keeps running.
    public var scanOptions: ScanOptions?
    /// Characteristics with notifications enabled; subscribe again to get their values
    /// (no configuration is rewritten).
    public var subscriptions: [RemoteCharacteristic]

    public init(peripherals: [UUID], scanOptions: ScanOptions?, subscriptions: [RemoteCharacteristic]) {
        self.peripherals = peripherals
        self.scanOptions = scanOptions
        self.subscriptions = subscriptions
    }
}

/// What a peripheral manager restored from its predecessor.
public struct PeripheralRestoration: Sendable, Hashable {
    /// The services that were published; they still are, with the same handles.
    public var services: [PublishedService]
    /// The advertising data when advertising was on; it still is.
    public var advertisement: AdvertisingData?
    /// The scan response that went with it.
    public var scanResponse: AdvertisingData?

    public init(services: [PublishedService], advertisement: AdvertisingData?, scanResponse: AdvertisingData?) {
        self.services = services
        self.advertisement = advertisement
        self.scanResponse = scanResponse
    }
}
