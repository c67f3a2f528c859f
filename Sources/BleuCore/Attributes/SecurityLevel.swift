/// How well a link is protected: what pairing (or a bond) gave it — the levels of LE security
/// mode 1 (Core Spec Vol 3 Part C §10.2.1).
public enum SecurityLevel: Int, Sendable, Hashable, Codable, Comparable, CaseIterable {
    /// No encryption (LE security mode 1, level 1).
    case unencrypted = 0
    /// Encrypted with keys from an unauthenticated pairing, such as Just Works (level 2).
    case encrypted = 1
    /// Encrypted with keys from an authenticated (MITM-protected) pairing, such as passkey entry (level 3).
    case authenticated = 2
    /// Encrypted with a 128-bit key from an authenticated LE Secure Connections pairing
    /// (level 4, what Secure Connections Only mode demands).
    case authenticatedSecureConnections = 3

    /// The level keys give a link: `authenticated` when their pairing protected against a man
    /// in the middle (passkey entry, numeric comparison, out of band), `secureConnections` when
    /// it was LE Secure Connections, `keySize` the encryption key's length in octets (7–16).
    public init(authenticated: Bool, secureConnections: Bool, keySize: Int) {
        switch (authenticated, secureConnections && keySize == 16) {
        case (false, _): self = .encrypted
        case (true, false): self = .authenticated
        case (true, true): self = .authenticatedSecureConnections
        }
    }

    public static func < (lhs: SecurityLevel, rhs: SecurityLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

extension SecurityLevel: CustomStringConvertible {
    /// The level as a person reads it, such as "encrypted with authenticated keys (level 3)".
    public var description: String {
        switch self {
        case .unencrypted: "unencrypted (level 1)"
        case .encrypted: "encrypted (level 2)"
        case .authenticated: "encrypted with authenticated keys (level 3)"
        case .authenticatedSecureConnections: "encrypted with authenticated LE Secure Connections keys (level 4)"
        }
    }
}
