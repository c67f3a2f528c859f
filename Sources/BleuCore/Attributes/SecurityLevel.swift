/// How well a link is protected: what pairing (or a bond) gave it.
public enum SecurityLevel: Int, Sendable, Hashable, Codable, Comparable, CaseIterable {
    /// No encryption (LE security mode 1, level 1).
    case unencrypted = 0
    /// Encrypted with keys from an unauthenticated pairing, such as Just Works (level 2).
    case encrypted = 1
    /// Encrypted with keys from an authenticated (MITM-protected) pairing, such as passkey entry (level 3).
    case authenticated = 2

    public static func < (lhs: SecurityLevel, rhs: SecurityLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
