import BleuATT
import BleuCore
import Foundation

/// A connection's handle, as the controller numbers it: what the radio's per-link tables are
/// keyed by. HCI commands, events and the host take the raw value.
struct ConnectionHandle: Hashable, Sendable, CustomStringConvertible {
    let rawValue: UInt16

    init(_ rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// `0x0001`: how the radio logs a connection.
    var description: String { "0x\(hex4(rawValue))" }
}

/// One connection of an ``HCIRadio``: who the peer is, our role, the ATT bearer our GATT client
/// runs on, the MTU both ends of that bearer use, and how far the connection is. What each
/// concern keeps per link (GATT server and client state, link-layer parameters, channels) is
/// kept by that concern, under the same handle.
struct HCILink {
    enum Role: Sendable, Hashable {
        /// We connected to the peer (we are the central).
        case central
        /// The peer connected to us (we are the peripheral).
        case peripheral
    }

    let handle: ConnectionHandle
    let role: Role
    let peer: UUID
    let address: BluetoothAddress
    let addressType: AddressType
    /// Our address on this link: the one on air when it was made (a private address stays the
    /// link's after the radio rotates to another). Pairing's confirm values and checks use it.
    let localAddress: BluetoothAddress
    let bearer: ATTBearer
    /// The ATT MTU, one for both directions of the bearer (Vol 3 Part F §3.4.2).
    var mtu = 23
    /// Set once the link is ready for the application (setup done for a central's link).
    var isReady = false
    /// We asked for the disconnection (so the reason reported here is ours).
    var disconnectRequested = false
    /// The last LE signalling identifier used for a request on this link.
    private var lastSignalIdentifier: UInt8 = 0

    init(handle: ConnectionHandle, role: Role, peer: UUID, address: BluetoothAddress, addressType: AddressType,
         localAddress: BluetoothAddress, bearer: ATTBearer) {
        self.handle = handle
        self.role = role
        self.peer = peer
        self.address = address
        self.addressType = addressType
        self.localAddress = localAddress
        self.bearer = bearer
    }

    /// A fresh signalling identifier (1…255; 0 is invalid).
    mutating func signalIdentifier() -> UInt8 {
        lastSignalIdentifier = lastSignalIdentifier == 255 ? 1 : lastSignalIdentifier + 1
        return lastSignalIdentifier
    }
}
