import BleuATT
import BleuCore
import Foundation

/// What our GATT client keeps per link, beside the ATT bearer its procedures run on: the
/// subscriptions and the streams reading each, what discovery found (to spot Service Changed
/// and answer which peripherals offer a service), and the writes without response the
/// controller has not sent yet (their flow control).
struct GATTClientState {
    /// One subscription stream (a characteristic may have several).
    struct StreamID: Hashable, Sendable {
        fileprivate let rawValue: Int
    }

    /// One characteristic the client subscribed to, with the streams and receivers taking its
    /// values.
    struct Subscription {
        var characteristic: RemoteCharacteristic
        var cccdHandle: UInt16
        var subscribers: [StreamID: ValueSubscriber] = [:]
    }

    private struct Link {
        var subscriptions: [UInt16: Subscription] = [:]
        /// Characteristic UUIDs by value handle, from discovery (to spot Service Changed).
        var discoveredValueHandles: [UInt16: BluetoothUUID] = [:]
        var discoveredServices: [BluetoothUUID] = []
        var writeCommandsInFlight = 0
        var wantsWriteReady = false
    }

    /// Writes without response a link holds, not yet sent by the controller, at most.
    let writeQueueDepth: Int
    /// Values a subscription stream holds for a slow consumer at most.
    let streamLimit: Int
    private var links: [ConnectionHandle: Link] = [:]
    private var lastStreamID = 0
    /// Notifications and indications that did not decode, so reached no subscriber.
    var malformedNotifications = 0

    init(writeQueueDepth: Int, streamLimit: Int) {
        self.writeQueueDepth = writeQueueDepth
        self.streamLimit = streamLimit
    }

    mutating func linkOpened(_ handle: ConnectionHandle) {
        links[handle] = Link()
    }

    /// The link went down: its subscription streams end with `error`.
    mutating func linkClosed(_ handle: ConnectionHandle, error: any Error) {
        guard let link = links.removeValue(forKey: handle) else { return }
        for subscription in link.subscriptions.values {
            for subscriber in subscription.subscribers.values { subscriber.end(error) }
        }
    }

    // MARK: Discovery

    mutating func discovered(services: [BluetoothUUID], on handle: ConnectionHandle) {
        links[handle]?.discoveredServices = services
    }

    mutating func discovered(_ uuid: BluetoothUUID, valueHandle: UInt16, on handle: ConnectionHandle) {
        links[handle]?.discoveredValueHandles[valueHandle] = uuid
    }

    /// Whether discovery found any of `services` on the link (any service when empty).
    func offers(_ services: [BluetoothUUID], on handle: ConnectionHandle) -> Bool {
        services.isEmpty || !Set(services).isDisjoint(with: links[handle]?.discoveredServices ?? [])
    }

    // MARK: Writes without response

    func canSendWriteCommand(on handle: ConnectionHandle) -> Bool {
        (links[handle]?.writeCommandsInFlight ?? 0) < writeQueueDepth
    }

    /// Counts a write without response about to be sent; `false` when the link's queue is full
    /// (the application then gets a ready event once it has room).
    mutating func reserveWriteCommand(on handle: ConnectionHandle) -> Bool {
        guard canSendWriteCommand(on: handle) else {
            links[handle]?.wantsWriteReady = true
            return false
        }
        links[handle]?.writeCommandsInFlight += 1
        return true
    }

    /// A reserved write was not sent after all.
    mutating func writeCommandFailed(on handle: ConnectionHandle) {
        links[handle]?.writeCommandsInFlight -= 1
    }

    /// The controller sent `sent` writes without response of the link. Returns whether the
    /// application is now due its ready event.
    mutating func writeCommandsSent(_ sent: Int, on handle: ConnectionHandle) -> Bool {
        guard var link = links[handle] else { return false }
        link.writeCommandsInFlight = max(0, link.writeCommandsInFlight - sent)
        let ready = link.wantsWriteReady && link.writeCommandsInFlight < writeQueueDepth
        if ready { link.wantsWriteReady = false }
        links[handle] = link
        return ready
    }

    // MARK: Subscriptions

    func subscription(_ valueHandle: UInt16, on handle: ConnectionHandle) -> Subscription? {
        links[handle]?.subscriptions[valueHandle]
    }

    mutating func subscribe(_ characteristic: RemoteCharacteristic, cccdHandle: UInt16, on handle: ConnectionHandle) {
        links[handle]?.subscriptions[characteristic.valueHandle] = Subscription(characteristic: characteristic,
                                                                              cccdHandle: cccdHandle)
    }

    /// Adds a stream or receiver to the subscription at `valueHandle` (when there still is one);
    /// returns its identifier.
    mutating func add(_ subscriber: ValueSubscriber, valueHandle: UInt16, on handle: ConnectionHandle) -> StreamID {
        lastStreamID += 1
        let id = StreamID(rawValue: lastStreamID)
        links[handle]?.subscriptions[valueHandle]?.subscribers[id] = subscriber
        return id
    }

    mutating func removeSubscriber(_ id: StreamID, valueHandle: UInt16, on handle: ConnectionHandle) {
        links[handle]?.subscriptions[valueHandle]?.subscribers[id] = nil
    }

    /// Removes the subscription at `valueHandle`; returns it (its subscribers are the caller's to end).
    mutating func unsubscribe(_ valueHandle: UInt16, on handle: ConnectionHandle) -> Subscription? {
        links[handle]?.subscriptions.removeValue(forKey: valueHandle)
    }

    /// Whether the value at `valueHandle` of the link's server is its Service Changed
    /// characteristic (as discovery found).
    func isServiceChanged(_ valueHandle: UInt16, on handle: ConnectionHandle) -> Bool {
        links[handle]?.discoveredValueHandles[valueHandle] == BluetoothUUID.Characteristic.serviceChanged
    }

    /// A notification or indication from the server of the link: every subscriber of its
    /// subscription gets the value; a stream whose consumer fell ``streamLimit`` values behind
    /// ends with an overflow.
    mutating func received(_ value: [UInt8], valueHandle: UInt16, on handle: ConnectionHandle) {
        guard let subscription = links[handle]?.subscriptions[valueHandle] else { return }
        let data = Data(value)
        for (id, subscriber) in subscription.subscribers where !subscriber.deliver(data) {
            links[handle]?.subscriptions[valueHandle]?.subscribers[id] = nil
            subscriber.end(BleuError.bufferOverflow(.values(of: subscription.characteristic.uuid, limit: streamLimit)))
        }
    }
}
