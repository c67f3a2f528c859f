import BleuCore

/// How this device pairs: what it can show and enter, whether it bonds, what it demands.
public struct SecurityManagerConfiguration: Sendable, Hashable {
    /// What this device can show and enter.
    public var ioCapability: IOCapability
    /// Whether pairings create bonds (keys stored for later links).
    public var bonding: Bool
    /// Refuse pairings whose keys would be unauthenticated (Just Works).
    public var requiresAuthentication: Bool
    /// Offer LE Secure Connections (`false`: pair as a legacy-only device would; for tests and
    /// for peers that mishandle Secure Connections).
    public var supportsSecureConnections: Bool
    /// Refuse LE legacy pairing (Secure Connections Only mode).
    public var secureConnectionsOnly: Bool
    /// The shortest encryption key accepted, in octets (7–16).
    public var minimumKeySize: Int
    /// The identity this device distributes when the peer asks for it: its IRK and identity
    /// address. `nil`: none (the peer cannot resolve this device's private addresses).
    public var identity: PairingIdentity?

    /// A configuration; each parameter sets the property of the same name.
    public init(ioCapability: IOCapability = .noInputNoOutput, bonding: Bool = true, requiresAuthentication: Bool = false,
                supportsSecureConnections: Bool = true, secureConnectionsOnly: Bool = false, minimumKeySize: Int = 7,
                identity: PairingIdentity? = nil) {
        self.ioCapability = ioCapability
        self.bonding = bonding
        self.requiresAuthentication = requiresAuthentication
        self.supportsSecureConnections = supportsSecureConnections || secureConnectionsOnly
        self.secureConnectionsOnly = secureConnectionsOnly
        self.minimumKeySize = min(16, max(7, minimumKeySize))
        self.identity = identity
    }
}

extension SecurityManagerConfiguration {
    /// The AuthReq bits this configuration sends in a Pairing Request, Pairing Response or
    /// Security Request.
    var authenticationRequirements: AuthenticationRequirements {
        var authentication: AuthenticationRequirements = supportsSecureConnections ? [.secureConnections] : []
        if bonding { authentication.insert(.bonding) }
        if requiresAuthentication { authentication.insert(.mitm) }
        return authentication
    }
}

/// A device address as pairing uses it: the type (public or random) and the six octets.
public struct PairingAddress: Hashable, Sendable, CustomStringConvertible {
    public var type: AddressType
    public var address: BluetoothAddress

    public init(type: AddressType, address: BluetoothAddress) {
        self.type = type
        self.address = address
    }

    /// The 56-bit value `f5` and `f6` take: the type octet (0 public, 1 random), then the address.
    var octets: [UInt8] { [typeBit] + address.bytes }
    /// 0 for a public address, 1 for a random one (identity types count as their base type).
    var typeBit: UInt8 { type.rawValue & 1 }

    public var description: String { "\(address) (\(type))" }
}

/// An identity a device distributes: its identity resolving key and identity address. Its
/// `description` never shows the key.
public struct PairingIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The IRK, most significant octet first.
    public var resolvingKey: [UInt8]
    public var address: PairingAddress

    public init(resolvingKey: [UInt8], address: PairingAddress) {
        self.resolvingKey = resolvingKey
        self.address = address
    }

    public var description: String { "identity \(address)" }
}

/// A key that encrypts a link, with the EDIV and Rand that name it (both 0 for a Secure
/// Connections LTK and for legacy pairing's STK).
public struct LongTermKey: Hashable, Sendable {
    /// The key, most significant octet first, already shortened to the negotiated size.
    public var key: [UInt8]
    public var ediv: UInt16
    public var rand: UInt64

    public init(key: [UInt8], ediv: UInt16 = 0, rand: UInt64 = 0) {
        self.key = key
        self.ediv = ediv
        self.rand = rand
    }
}

/// The keys one side handed over in the key distribution phase.
public struct DistributedKeys: Hashable, Sendable {
    /// Legacy pairing's LTK (with EDIV and Rand).
    public var longTermKey: LongTermKey?
    public var identity: PairingIdentity?
    /// The CSRK, for signed writes.
    public var signatureKey: [UInt8]?

    public init(longTermKey: LongTermKey? = nil, identity: PairingIdentity? = nil, signatureKey: [UInt8]? = nil) {
        self.longTermKey = longTermKey
        self.identity = identity
        self.signatureKey = signatureKey
    }
}

/// What a finished pairing produced.
public struct PairingOutcome: Hashable, Sendable {
    public var model: AssociationModel
    public var secureConnections: Bool
    /// The negotiated encryption key size, in octets.
    public var keySize: Int
    /// Whether both sides asked to bond.
    public var bonded: Bool
    /// With Secure Connections, the LTK both sides derived (it encrypts this link and, when
    /// bonded, later ones); `nil` for legacy pairing, whose later links use a distributed LTK.
    public var secureConnectionsKey: LongTermKey?
    /// The keys this side distributed.
    public var local: DistributedKeys
    /// The keys the peer distributed.
    public var peer: DistributedKeys

    /// Whether the keys are protected against a man in the middle.
    public var authenticated: Bool { model.isAuthenticated }
}

/// Why a pairing ended without keys, and which side ended it.
public struct PairingFailure: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: SMPReason
    /// The peer sent Pairing Failed (else this side did).
    public var byPeer: Bool

    public init(reason: SMPReason, byPeer: Bool) {
        self.reason = reason
        self.byPeer = byPeer
    }

    public var description: String { byPeer ? "the peer ended pairing: \(reason)" : "pairing refused: \(reason)" }
}

/// What a ``PairingSession`` asks its shell to do.
public enum PairingAction: Hashable, Sendable {
    /// Send this PDU to the peer.
    case send(SMPPDU)
    /// Show this passkey (000000–999999) to the user.
    case displayPasskey(UInt32)
    /// Ask the user to type the passkey the other device shows
    /// (``PairingSession/passkeyEntered(_:)``).
    case requestPasskey
    /// Ask the user whether both devices show this number (``PairingSession/numberConfirmed(_:)``).
    case confirmNumber(UInt32)
    /// The initiator: encrypt the link with this key (LE Enable Encryption); then tell the
    /// session with ``PairingSession/encryptionChanged()``.
    case encrypt(LongTermKey)
    /// Pairing finished.
    case completed(PairingOutcome)
    /// Pairing failed (when this side failed it, a Pairing Failed PDU was sent before).
    case failed(PairingFailure)
}
