import BleuATT
import BleuCore
import Foundation

/// What an ``HCIRadio`` keeps per connection: both ends of the ATT bearer (our client and our
/// server), subscriptions, what is queued to send, and the L2CAP channels on it.
struct HCILink {
    enum Role: Sendable, Hashable {
        /// We connected to the peer (we are the central).
        case central
        /// The peer connected to us (we are the peripheral).
        case peripheral
    }

    /// Tags of frames the radio sends, so completions can be told apart.
    enum FrameKind: Int {
        case other = 0
        case writeCommand = 1
        case notification = 2
    }

    /// One characteristic the client subscribed to, with the streams reading it.
    struct Subscription {
        var characteristic: RemoteCharacteristic
        var cccdHandle: UInt16
        var streams: [Int: AsyncThrowingStream<Data, any Error>.Continuation] = [:]
    }

    /// A value waiting to go to the client as a notification or indication.
    struct OutgoingValue {
        var handle: UInt16
        var value: [UInt8]
        var indication: Bool
    }

    let handle: UInt16
    let role: Role
    let peer: UUID
    let address: BluetoothAddress
    let addressType: AddressType
    let bearer: ATTBearer
    var mtu = 23
    var server: ATTServerConnection
    /// What the controller reported about the link layer.
    var parameters: HCILinkParameters
    /// Set once the link is ready for the application (setup done for a central's link).
    var isReady = false
    /// We asked for the disconnection (so the reason reported here is ours).
    var disconnectRequested = false

    // Client side
    var subscriptions: [UInt16: Subscription] = [:]
    /// Characteristic UUIDs by value handle, from discovery (to spot Service Changed).
    var discoveredValueHandles: [UInt16: BluetoothUUID] = [:]
    var discoveredServices: [BluetoothUUID] = []
    var writeCommandsInFlight = 0
    var wantsWriteReady = false

    // Server side
    var outbox: [OutgoingValue] = []
    var notificationsInFlight = 0
    var indicationInFlight = false
    var indicationTimer: Task<Void, Never>?

    // L2CAP
    var nextSignalIdentifier: UInt8 = 0

    init(handle: UInt16, role: Role, peer: UUID, address: BluetoothAddress, addressType: AddressType,
         bearer: ATTBearer, maxMTU: Int, parameters: HCILinkParameters) {
        self.parameters = parameters
        self.handle = handle
        self.role = role
        self.peer = peer
        self.address = address
        self.addressType = addressType
        self.bearer = bearer
        self.server = ATTServerConnection(maxMTU: maxMTU)
    }

    /// A fresh signalling identifier (1…255; 0 is invalid).
    mutating func signalIdentifier() -> UInt8 {
        nextSignalIdentifier = nextSignalIdentifier == 255 ? 1 : nextSignalIdentifier + 1
        return nextSignalIdentifier
    }
}
