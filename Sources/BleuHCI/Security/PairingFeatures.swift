/// What a device can show and enter (Core Specification Vol 3 Part H §2.3.2): with the peer's,
/// it decides the association model of a pairing. Any byte is kept; the specification's
/// values have names.
public struct IOCapability: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Shows a six-digit number; no input (0x00).
    public static let displayOnly = IOCapability(rawValue: 0x00)
    /// Shows a number and takes a yes or no (0x01).
    public static let displayYesNo = IOCapability(rawValue: 0x01)
    /// Takes digits; shows nothing (0x02).
    public static let keyboardOnly = IOCapability(rawValue: 0x02)
    /// Neither shows nor takes anything: Just Works only (0x03).
    public static let noInputNoOutput = IOCapability(rawValue: 0x03)
    /// Shows a number and takes digits (0x04).
    public static let keyboardDisplay = IOCapability(rawValue: 0x04)

    public var description: String {
        switch self {
        case .displayOnly: "DisplayOnly"
        case .displayYesNo: "DisplayYesNo"
        case .keyboardOnly: "KeyboardOnly"
        case .noInputNoOutput: "NoInputNoOutput"
        case .keyboardDisplay: "KeyboardDisplay"
        default: "reserved IO capability 0x\(String(rawValue, radix: 16))"
        }
    }
}

/// The AuthReq field of pairing and security requests (Core Specification Vol 3 Part H §3.5.1).
public struct AuthenticationRequirements: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bonding: the keys distributed are stored (Bonding_Flags 0b01).
    public static let bonding = AuthenticationRequirements(rawValue: 0x01)
    /// Protection against a man in the middle: an authenticated association model.
    public static let mitm = AuthenticationRequirements(rawValue: 0x04)
    /// LE Secure Connections supported.
    public static let secureConnections = AuthenticationRequirements(rawValue: 0x08)
    /// Keypress notifications during passkey entry.
    public static let keypress = AuthenticationRequirements(rawValue: 0x10)
    /// `h7` supported for cross-transport key derivation.
    public static let ct2 = AuthenticationRequirements(rawValue: 0x20)
}

/// The keys a side distributes after pairing (Core Specification Vol 3 Part H §3.6.1).
public struct KeyDistribution: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The LTK with EDIV and Rand (legacy pairing; ignored with Secure Connections).
    public static let encryptionKey = KeyDistribution(rawValue: 0x01)
    /// The IRK with the identity address.
    public static let identityKey = KeyDistribution(rawValue: 0x02)
    /// The CSRK, for signed writes.
    public static let signingKey = KeyDistribution(rawValue: 0x04)
    /// A BR/EDR link key derived from the LTK.
    public static let linkKey = KeyDistribution(rawValue: 0x08)
}

/// The six fields a Pairing Request or Pairing Response carries.
public struct PairingFeatures: Hashable, Sendable {
    public var ioCapability: IOCapability
    /// Whether this side has OOB data of the peer.
    public var oobDataPresent: Bool
    public var authentication: AuthenticationRequirements
    /// The largest encryption key this side accepts, in octets (7–16).
    public var maximumKeySize: UInt8
    /// The keys the initiator (the central) is to distribute.
    public var initiatorKeys: KeyDistribution
    /// The keys the responder (the peripheral) is to distribute.
    public var responderKeys: KeyDistribution

    /// Features; each parameter sets the property of the same name.
    public init(ioCapability: IOCapability, oobDataPresent: Bool = false, authentication: AuthenticationRequirements,
                maximumKeySize: UInt8 = 16, initiatorKeys: KeyDistribution, responderKeys: KeyDistribution) {
        self.ioCapability = ioCapability
        self.oobDataPresent = oobDataPresent
        self.authentication = authentication
        self.maximumKeySize = maximumKeySize
        self.initiatorKeys = initiatorKeys
        self.responderKeys = responderKeys
    }
}

/// What a Pairing Keypress Notification reports (Core Specification Vol 3 Part H §3.5.8).
public struct KeypressNotification: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let entryStarted = KeypressNotification(rawValue: 0)
    public static let digitEntered = KeypressNotification(rawValue: 1)
    public static let digitErased = KeypressNotification(rawValue: 2)
    public static let cleared = KeypressNotification(rawValue: 3)
    public static let entryCompleted = KeypressNotification(rawValue: 4)
}
