import BleuCore

/// The checks a GATT server makes before a request on a characteristic value reaches the
/// application: properties, permissions and link security, each with the ATT error a real
/// server answers. Pure functions.
enum AttributeAccess {
    /// The error for a Read or Read Blob request, or `nil` when the read may proceed.
    ///
    /// A characteristic that does not declare `read`, or whose permissions are not `readable`,
    /// answers Read Not Permitted (0x02); then an authentication requirement on a link without
    /// authenticated keys answers Insufficient Authentication (0x05), and an encryption
    /// requirement on an unencrypted link Insufficient Encryption (0x0F).
    static func readError(_ characteristic: PublishedCharacteristic, security: SecurityLevel) -> ATTError? {
        guard characteristic.properties.contains(.read), characteristic.permissions.contains(.readable) else {
            return .readNotPermitted
        }
        if characteristic.permissions.contains(.readAuthenticationRequired), security < .authenticated {
            return .insufficientAuthentication
        }
        if characteristic.permissions.contains(.readEncryptionRequired), security < .encrypted {
            return .insufficientEncryption
        }
        return nil
    }

    /// The error for a Write or Prepare Write request, or `nil` when the write may proceed.
    ///
    /// A characteristic that only declares `writeWithoutResponse` answers Request Not Supported
    /// (0x06); one that declares no write at all, or whose permissions are not `writeable`,
    /// Write Not Permitted (0x03); then security as for reads (0x05, 0x0F).
    static func writeRequestError(_ characteristic: PublishedCharacteristic, security: SecurityLevel) -> ATTError? {
        if !characteristic.properties.contains(.write) {
            return characteristic.properties.contains(.writeWithoutResponse) ? .requestNotSupported : .writeNotPermitted
        }
        return writePermissionError(characteristic, security: security)
    }

    /// Whether a Write Command is applied. A server never answers a command, so one that fails
    /// a check is dropped silently.
    static func acceptsWriteCommand(_ characteristic: PublishedCharacteristic, security: SecurityLevel) -> Bool {
        characteristic.properties.contains(.writeWithoutResponse)
            && writePermissionError(characteristic, security: security) == nil
    }

    private static func writePermissionError(_ characteristic: PublishedCharacteristic, security: SecurityLevel) -> ATTError? {
        guard characteristic.permissions.contains(.writeable) else { return .writeNotPermitted }
        if characteristic.permissions.contains(.writeAuthenticationRequired), security < .authenticated {
            return .insufficientAuthentication
        }
        if characteristic.permissions.contains(.writeEncryptionRequired), security < .encrypted {
            return .insufficientEncryption
        }
        return nil
    }

    /// The error for a value of `length` bytes written at `offset`, or `nil`: an attribute value
    /// holds at most 512 bytes (Core Spec Vol 3 Part F §3.2.9), so an offset past 512 answers
    /// Invalid Offset (0x07) and a value reaching past 512 Invalid Attribute Value Length (0x0D).
    static func lengthError(offset: Int, length: Int) -> ATTError? {
        if offset > AttributeDatabase.maximumValueLength { return .invalidOffset }
        if offset + length > AttributeDatabase.maximumValueLength { return .invalidAttributeValueLength }
        return nil
    }

    /// The error for a write of a Client Characteristic Configuration descriptor, or `nil`.
    /// The value is two bytes (else 0x0D); bit 0 enables notifications and needs the `notify`
    /// property, bit 1 indications and needs `indicate`; other bits are reserved. A value the
    /// characteristic cannot honour answers 0xFD (CCCD Improperly Configured).
    static func configurationError(_ value: [UInt8], for properties: CharacteristicProperties) -> ATTError? {
        guard value.count == 2 else { return .invalidAttributeValueLength }
        let bits = UInt16(value[0]) | UInt16(value[1]) << 8
        if bits & ~0x0003 != 0 { return .cccdImproperlyConfigured }
        if bits & 0x0001 != 0, !properties.contains(.notify) { return .cccdImproperlyConfigured }
        if bits & 0x0002 != 0, !properties.contains(.indicate) { return .cccdImproperlyConfigured }
        return nil
    }
}
