/// The permissions of an attribute value on a GATT server: who may read or write it, and
/// what security the link needs first.
///
/// The Core Specification leaves the encoding of permissions to the implementation. The first
/// four bits are CoreBluetooth's `CBAttributePermissions` values, so a CoreBluetooth backend
/// can map them one to one; the authentication and authorization bits are Bleu's.
public struct AttributePermissions: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// The value may be read (0x01).
    public static let readable = AttributePermissions(rawValue: 0x01)
    /// The value may be written (0x02).
    public static let writeable = AttributePermissions(rawValue: 0x02)
    /// Reading needs an encrypted link (0x04); otherwise ATT error 0x0F.
    public static let readEncryptionRequired = AttributePermissions(rawValue: 0x04)
    /// Writing needs an encrypted link (0x08); otherwise ATT error 0x0F.
    public static let writeEncryptionRequired = AttributePermissions(rawValue: 0x08)
    /// Reading needs an authenticated (MITM-protected) pairing (0x10); otherwise ATT error 0x05.
    public static let readAuthenticationRequired = AttributePermissions(rawValue: 0x10)
    /// Writing needs an authenticated (MITM-protected) pairing (0x20); otherwise ATT error 0x05.
    public static let writeAuthenticationRequired = AttributePermissions(rawValue: 0x20)
    /// Reading needs the application's authorization (0x40); otherwise ATT error 0x08.
    public static let readAuthorizationRequired = AttributePermissions(rawValue: 0x40)
    /// Writing needs the application's authorization (0x80); otherwise ATT error 0x08.
    public static let writeAuthorizationRequired = AttributePermissions(rawValue: 0x80)
    /// Reading needs security level 4 (0x100): keys from an authenticated LE Secure Connections
    /// pairing (otherwise ATT error 0x05) with a 128-bit key (otherwise 0x0C).
    public static let readSecureConnectionsRequired = AttributePermissions(rawValue: 0x100)
    /// Writing needs security level 4 (0x200): keys from an authenticated LE Secure Connections
    /// pairing (otherwise ATT error 0x05) with a 128-bit key (otherwise 0x0C).
    public static let writeSecureConnectionsRequired = AttributePermissions(rawValue: 0x200)

    /// Readable and writeable, with no security requirement.
    public static let readWrite: AttributePermissions = [.readable, .writeable]
}

extension AttributePermissions {
    /// The least security level a link needs for reading the value (or subscribing to it):
    /// the strongest of the read requirements set.
    public var readSecurity: SecurityLevel {
        level(secureConnections: .readSecureConnectionsRequired, authentication: .readAuthenticationRequired,
              encryption: .readEncryptionRequired)
    }

    /// The least security level a link needs for writing the value: the strongest of the write
    /// requirements set.
    public var writeSecurity: SecurityLevel {
        level(secureConnections: .writeSecureConnectionsRequired, authentication: .writeAuthenticationRequired,
              encryption: .writeEncryptionRequired)
    }

    private func level(secureConnections: AttributePermissions, authentication: AttributePermissions,
                       encryption: AttributePermissions) -> SecurityLevel {
        if contains(secureConnections) { return .authenticatedSecureConnections }
        if contains(authentication) { return .authenticated }
        if contains(encryption) { return .encrypted }
        return .unencrypted
    }
}
