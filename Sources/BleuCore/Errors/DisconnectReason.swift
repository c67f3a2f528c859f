/// Why a connection ended, as both sides see it.
///
/// The cases carry the HCI error codes a controller reports in the Disconnection Complete event
/// (Core Spec Vol 1 Part F); ``hci(_:)`` keeps any other code.
public enum DisconnectReason: Sendable, Hashable, Codable {
    /// This side ended the connection (HCI 0x16, Connection Terminated by Local Host).
    case localHostTerminated
    /// The other side ended the connection (HCI 0x13, Remote User Terminated Connection).
    case remoteUserTerminated
    /// The link was lost: no packet within the supervision timeout (HCI 0x08).
    case supervisionTimeout
    /// The connection could not be established (HCI 0x3E).
    case failedToEstablish
    /// The local radio was powered off or reset, which ends every connection.
    case poweredOff
    /// Any other HCI reason code.
    case hci(UInt8)

    /// The HCI error code for the reason; ``poweredOff`` reports 0x15 (Remote Device Terminated
    /// Connection due to Power Off), the code a peer sees.
    public var hciCode: UInt8 {
        switch self {
        case .localHostTerminated: 0x16
        case .remoteUserTerminated: 0x13
        case .supervisionTimeout: 0x08
        case .failedToEstablish: 0x3E
        case .poweredOff: 0x15
        case .hci(let code): code
        }
    }

    /// The reason for an HCI code, using the named cases where one fits.
    public init(hciCode: UInt8) {
        switch hciCode {
        case 0x16: self = .localHostTerminated
        case 0x13: self = .remoteUserTerminated
        case 0x08: self = .supervisionTimeout
        case 0x3E: self = .failedToEstablish
        default: self = .hci(hciCode)
        }
    }
}

extension DisconnectReason: CustomStringConvertible {
    public var description: String {
        switch self {
        case .localHostTerminated: "disconnected by this device"
        case .remoteUserTerminated: "disconnected by the peer"
        case .supervisionTimeout: "link lost (supervision timeout)"
        case .failedToEstablish: "connection failed to be established"
        case .poweredOff: "Bluetooth was powered off"
        case .hci(let code): "controller reported HCI error 0x\(String(code, radix: 16, uppercase: true).leftPadded(to: 2))"
        }
    }
}
