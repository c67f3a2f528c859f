import BleuCore

/// How pairing goes on a bus.
public struct PairingConfiguration: Sendable, Hashable, Codable {
    /// The association model the two sides' IO capabilities lead to.
    public enum Method: String, Sendable, Hashable, Codable {
        /// Just Works: the link gets encrypted, unauthenticated keys (no MITM protection).
        case justWorks
        /// LE Secure Connections passkey entry: the peripheral displays a six-digit passkey and
        /// the central's ``EmulatedCentralManager/setPasskeyHandler(_:)`` enters it; the keys are
        /// authenticated Secure Connections keys (security level 4).
        case passkeyEntry
        /// LE legacy passkey entry, as with a device without Secure Connections: the keys are
        /// authenticated (level 3), never level 4.
        case legacyPasskeyEntry
        /// The peripheral rejects pairing (SMP Pairing Not Supported).
        case rejected
    }

    /// The association model.
    public var method: Method
    /// Whether pairings create bonds: keys the bus remembers for the two devices, so a later
    /// connection encrypts without pairing again.
    public var bonding: Bool
    /// Whether a central pairs on its own when a request fails with Insufficient Encryption
    /// (0x0F) or Insufficient Authentication (0x05), then retries it — what CoreBluetooth does.
    /// When `false` the request fails with that ATT error.
    public var pairsOnInsufficientSecurity: Bool

    /// Pairing behaviour; each parameter sets the property of the same name.
    public init(method: Method = .justWorks, bonding: Bool = true, pairsOnInsufficientSecurity: Bool = true) {
        self.method = method
        self.bonding = bonding
        self.pairsOnInsufficientSecurity = pairsOnInsufficientSecurity
    }
}

/// The LE credit-based L2CAP channel parameters both sides offer.
public struct L2CAPConfiguration: Sendable, Hashable, Codable {
    /// The largest SDU a channel carries, in bytes (23–65535).
    public var mtu: Int
    /// The largest K-frame payload, in bytes (23–65533); SDUs are segmented into K-frames.
    public var mps: Int
    /// The credits a receiver grants when the channel opens: how many K-frames it buffers.
    public var initialCredits: Int

    /// Channel parameters; each parameter sets the property of the same name.
    public init(mtu: Int = 2048, mps: Int = 247, initialCredits: Int = 16) {
        self.mtu = mtu
        self.mps = mps
        self.initialCredits = initialCredits
    }
}

extension PairingConfiguration.Method {
    /// The level the method's keys give a link.
    var level: SecurityLevel {
        switch self {
        case .rejected: .unencrypted
        case .justWorks: .encrypted
        case .legacyPasskeyEntry: .authenticated
        case .passkeyEntry: .authenticatedSecureConnections
        }
    }
}
