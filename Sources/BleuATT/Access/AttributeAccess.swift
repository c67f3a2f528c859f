import BleuCore

/// The one set of rules a GATT server applies before a request on a characteristic value
/// reaches the application: properties, permissions, link security, key size and authorization,
/// each with the ATT error the specification names (Core Spec Vol 3 Part F §3.4, §4; Part C §10.3).
/// Pure functions; ``ATTServer`` applies them, on every backend.
///
/// Checks run in this order, and the first that fails answers:
/// 1. the property and the `readable` / `writeable` permission (Read Not Permitted 0x02,
///    Write Not Permitted 0x03, Request Not Supported 0x06 for a write request on a
///    characteristic that only takes commands);
/// 2. authentication: a requirement on a link without authenticated keys, or a level 4
///    (Secure Connections) requirement on a link below level 4 (0x05);
/// 3. encryption: a requirement on an unencrypted link (0x0F);
/// 4. key size: an encrypted link whose key is shorter than the server requires, or than
///    128 bits for a level 4 requirement (0x0C);
/// 5. authorization: a requirement the application has not granted this client (0x08).
public enum AttributeAccess {
    /// What the client asks of a characteristic value.
    public enum Request: Sendable, Hashable, CaseIterable {
        /// Read, Read Blob, Read By Type, Read Multiple (Variable).
        case read
        /// Write Request, and each Prepare Write Request of a long write.
        case write
        /// Write Command: the server never answers, so a refusal drops it.
        case writeCommand
        /// A write of the Client Characteristic Configuration descriptor that turns on
        /// notifications or indications: the values it delivers need the read permission's security.
        case subscribe
    }

    /// An attribute value holds at most 512 bytes (Core Spec Vol 3 Part F §3.2.9).
    public static let maximumValueLength = 512

    /// The error for `request` on `characteristic` over a link with `security`, or `nil` when
    /// it may proceed. `minimumKeySize` is the shortest encryption key the server accepts.
    public static func error(for request: Request, on characteristic: PublishedCharacteristic, link security: LinkSecurity,
                             minimumKeySize: Int = 7) -> ATTError? {
        let properties = characteristic.properties
        let permissions = characteristic.permissions
        switch request {
        case .read:
            guard properties.contains(.read), permissions.contains(.readable) else { return .readNotPermitted }
            return securityError(.read, permissions, security, minimumKeySize)
        case .write, .writeCommand:
            let needed: CharacteristicProperties = request == .write ? .write : .writeWithoutResponse
            if !properties.contains(needed) {
                return request == .write && properties.contains(.writeWithoutResponse) ? .requestNotSupported : .writeNotPermitted
            }
            guard permissions.contains(.writeable) else { return .writeNotPermitted }
            return securityError(.write, permissions, security, minimumKeySize)
        case .subscribe:
            return securityError(.read, permissions, security, minimumKeySize)
        }
    }

    private enum Access { case read, write }

    private static func securityError(_ access: Access, _ permissions: AttributePermissions,
                                      _ security: LinkSecurity, _ minimumKeySize: Int) -> ATTError? {
        let needed = access == .read ? permissions.readSecurity : permissions.writeSecurity
        if needed >= .authenticated, security.level < needed { return .insufficientAuthentication }
        if needed >= .encrypted {
            if security.level < .encrypted { return .insufficientEncryption }
            let shortest = needed == .authenticatedSecureConnections ? 16 : minimumKeySize
            if security.keySize < shortest { return .encryptionKeySizeTooShort }
        }
        let authorization: AttributePermissions = access == .read ? .readAuthorizationRequired : .writeAuthorizationRequired
        if permissions.contains(authorization), !security.isAuthorized { return .insufficientAuthorization }
        return nil
    }

    /// The client's side of the same rules: the security a client raises the link to (by pairing,
    /// or encrypting with a bond) before it sends a request again that the server refused with
    /// `code` on a link at `current` — what CoreBluetooth does on Insufficient Authentication
    /// (0x05: authenticated keys; on a link that has them, level 4's) and Insufficient
    /// Encryption (0x0F: any keys). `nil` when pairing cannot help: another error, or the link
    /// already has the most that code can ask for (the server wants more than this client can
    /// give, such as a longer key).
    public static func securityToRetry(after code: ATTError, on current: SecurityLevel) -> SecurityLevel? {
        switch code {
        case .insufficientAuthentication:
            return current < .authenticated ? .authenticated
                : current < .authenticatedSecureConnections ? .authenticatedSecureConnections : nil
        case .insufficientEncryption:
            return current < .encrypted ? .encrypted : nil
        default:
            return nil
        }
    }

    /// The error for a value of `length` bytes written at `offset`, or `nil`: an offset past
    /// 512 answers Invalid Offset (0x07), a value reaching past 512 Invalid Attribute Value Length (0x0D).
    public static func lengthError(offset: Int, length: Int) -> ATTError? {
        if offset > maximumValueLength { return .invalidOffset }
        if offset + length > maximumValueLength { return .invalidAttributeValueLength }
        return nil
    }

    /// The error for a write of a Client Characteristic Configuration descriptor, or `nil`.
    /// The value is two bytes (else 0x0D); bit 0 enables notifications and needs the `notify`
    /// property, bit 1 indications and needs `indicate`; other bits are reserved. A value the
    /// characteristic cannot honour answers 0xFD (CCCD Improperly Configured).
    public static func configurationError(_ value: [UInt8], for properties: CharacteristicProperties) -> ATTError? {
        guard value.count == 2 else { return .invalidAttributeValueLength }
        let bits = UInt16(value[0]) | UInt16(value[1]) << 8
        if bits & ~0x0003 != 0 { return .cccdImproperlyConfigured }
        if bits & 0x0001 != 0, !properties.contains(.notify) { return .cccdImproperlyConfigured }
        if bits & 0x0002 != 0, !properties.contains(.indicate) { return .cccdImproperlyConfigured }
        return nil
    }
}
