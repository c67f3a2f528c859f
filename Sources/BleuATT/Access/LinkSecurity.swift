import BleuCore

/// What the link under an ATT bearer gives the server's access rules: its security level
/// (LE security mode 1, Core Spec Vol 3 Part C §10.2), the size of its encryption key, and
/// whether the application has authorized the client.
public struct LinkSecurity: Sendable, Hashable {
    /// How the link is protected.
    public var level: SecurityLevel
    /// The encryption key's size in bytes (7–16); meaningful once the link is encrypted.
    public var keySize: Int
    /// Whether the application authorized this client for attributes that require authorization.
    public var isAuthorized: Bool

    public init(level: SecurityLevel = .unencrypted, keySize: Int = 16, isAuthorized: Bool = false) {
        self.level = level
        self.keySize = keySize
        self.isAuthorized = isAuthorized
    }

    /// A plain link: no encryption, no authorization.
    public static let unencrypted = LinkSecurity()
}
