/// Why a connection ended, as both sides see it.
///
/// The cases carry the HCI error codes a controller reports in the Disconnection Complete event
/// (Core Spec Vol 1 Part F); ``hci(_:)`` keeps any other code. Each named case and its code map
/// to each other both ways: `DisconnectReason(hciCode: r.hciCode) == r` for every named case, and
/// `DisconnectReason(hciCode: c).hciCode == c` for every byte `c`.
public enum DisconnectReason: Sendable, Hashable, Codable {
    /// This side ended the connection (HCI 0x16, Connection Terminated by Local Host).
    case localHostTerminated
    /// The other side ended the connection (HCI 0x13, Remote User Terminated Connection).
    case remoteUserTerminated
    /// The link was lost: no packet within the supervision timeout (HCI 0x08).
    case supervisionTimeout
    /// The connection could not be established (HCI 0x3E).
    case failedToEstablish
    /// A radio was powered off or reset, which ends every connection on it: this side's, as the
    /// manager whose radio went off reports it, or the peer's, as HCI 0x15 (Remote Device
    /// Terminated Connection due to Power Off) reports it. The manager's state event tells the
    /// two apart: only when this side's radio went off does it leave `poweredOn`.
    case poweredOff
    /// Any HCI reason code no named case covers.
    case hci(UInt8)

    /// The HCI error code for the reason; ``poweredOff`` reports 0x15 (Remote Device Terminated
    /// Connection due to Power Off), the code the peer of a powered-off radio sees.
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
        case 0x15: self = .poweredOff
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
        case .poweredOff: "a Bluetooth radio was powered off (this device's or the peer's)"
        case .hci(let code): "controller reported HCI error 0x\(String(code, radix: 16, uppercase: true).leftPadded(to: 2))"
        }
    }
}
