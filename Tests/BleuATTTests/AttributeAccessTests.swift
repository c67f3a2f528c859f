import BleuCore
import Testing

@testable import BleuATT

@Suite("Access rules: properties, permissions, security, key size, authorization")
struct AttributeAccessTests {
    static let levels: [LinkSecurity] = SecurityLevel.allCases.flatMap { level in
        [7, 16].flatMap { keySize in
            [false, true].map { LinkSecurity(level: level, keySize: keySize, isAuthorized: $0) }
        }
    }

    /// The expected answer, written out from the rule list in the specification's order.
    static func expected(_ request: AttributeAccess.Request, _ p: CharacteristicProperties, _ q: AttributePermissions,
                         _ link: LinkSecurity, minimumKeySize: Int) -> ATTError? {
        let (sc, auth, enc, authz): (AttributePermissions, AttributePermissions, AttributePermissions, AttributePermissions)
        switch request {
        case .read, .subscribe:
            (sc, auth, enc, authz) = (.readSecureConnectionsRequired, .readAuthenticationRequired, .readEncryptionRequired,
                                      .readAuthorizationRequired)
        case .write, .writeCommand:
            (sc, auth, enc, authz) = (.writeSecureConnectionsRequired, .writeAuthenticationRequired, .writeEncryptionRequired,
                                      .writeAuthorizationRequired)
        }
        switch request {
        case .read:
            if !p.contains(.read) || !q.contains(.readable) { return .readNotPermitted }
        case .write:
            if !p.contains(.write) { return p.contains(.writeWithoutResponse) ? .requestNotSupported : .writeNotPermitted }
            if !q.contains(.writeable) { return .writeNotPermitted }
        case .writeCommand:
            if !p.contains(.writeWithoutResponse) || !q.contains(.writeable) { return .writeNotPermitted }
        case .subscribe:
            break
        }
        if q.contains(sc), link.level != .authenticatedSecureConnections { return .insufficientAuthentication }
        if q.contains(auth), link.level != .authenticated, link.level != .authenticatedSecureConnections {
            return .insufficientAuthentication
        }
        let encrypted = q.contains(sc) || q.contains(auth) || q.contains(enc)
        if encrypted, link.level == .unencrypted { return .insufficientEncryption }
        if encrypted, link.keySize < minimumKeySize { return .encryptionKeySizeTooShort }
        if q.contains(sc), link.keySize != 16 { return .encryptionKeySizeTooShort }
        if q.contains(authz), !link.isAuthorized { return .insufficientAuthorization }
        return nil
    }

    @Test("every property × permission × link security × request gets the specification's answer")
    func exhaustive() {
        var checked = 0
        for properties in Self.propertyValues {
            for permissions in Self.permissionValues {
                let characteristic = PublishedCharacteristic(
                    service: BluetoothUUID(0x180F), uuid: BluetoothUUID(0x2A19),
                    properties: CharacteristicProperties(rawValue: UInt8(properties)),
                    permissions: AttributePermissions(rawValue: UInt16(permissions)), valueHandle: 3)
                for link in Self.levels {
                    for request in AttributeAccess.Request.allCases {
                        for minimumKeySize in [7, 16] {
                            let answer = AttributeAccess.error(for: request, on: characteristic, link: link,
                                                               minimumKeySize: minimumKeySize)
                            let expected = Self.expected(request, characteristic.properties, characteristic.permissions,
                                                         link, minimumKeySize: minimumKeySize)
                            if answer != expected {
                                Issue.record("\(request) on \(characteristic.properties) \(permissions) over \(link): \(String(describing: answer)) ≠ \(String(describing: expected))")
                                return
                            }
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked == Self.propertyValues.count * Self.permissionValues.count * Self.levels.count * 4 * 2)
    }

    /// The property values checked: every combination of the four low bits (broadcast, read,
    /// write without response, write), each with the four high bits (notify, indicate, signed
    /// write, extended properties) all clear and all set.
    static let propertyValues: [Int] = (0...15).flatMap { [$0, $0 | 0xF0] }

    /// The permission values checked: every combination of the eight low bits, and each readable
    /// or writeable one again with each combination of the two Secure Connections (level 4) bits.
    static let permissionValues: [Int] = (0...255).flatMap { low in
        [0, 0x100, 0x200, 0x300].compactMap { high in high == 0 || low & 0x03 != 0 ? low | high : nil }
    }

    @Test("value lengths and CCCD values are checked as the specification says")
    func lengthsAndConfiguration() {
        #expect(AttributeAccess.lengthError(offset: 0, length: 512) == nil)
        #expect(AttributeAccess.lengthError(offset: 0, length: 513) == .invalidAttributeValueLength)
        #expect(AttributeAccess.lengthError(offset: 500, length: 12) == nil)
        #expect(AttributeAccess.lengthError(offset: 500, length: 13) == .invalidAttributeValueLength)
        #expect(AttributeAccess.lengthError(offset: 513, length: 0) == .invalidOffset)
        #expect(AttributeAccess.configurationError([1, 0], for: [.notify]) == nil)
        #expect(AttributeAccess.configurationError([2, 0], for: [.notify]) == .cccdImproperlyConfigured)
        #expect(AttributeAccess.configurationError([2, 0], for: [.indicate]) == nil)
        #expect(AttributeAccess.configurationError([3, 0], for: [.notify, .indicate]) == nil)
        #expect(AttributeAccess.configurationError([4, 0], for: [.notify, .indicate]) == .cccdImproperlyConfigured)
        #expect(AttributeAccess.configurationError([0, 0], for: []) == nil)
        #expect(AttributeAccess.configurationError([1], for: [.notify]) == .invalidAttributeValueLength)
    }

    @Test("a client pairs after Insufficient Authentication or Encryption only when that raises the link")
    func securityToRetry() {
        #expect(AttributeAccess.securityToRetry(after: .insufficientEncryption, on: .unencrypted) == .encrypted)
        #expect(AttributeAccess.securityToRetry(after: .insufficientAuthentication, on: .unencrypted) == .authenticated)
        #expect(AttributeAccess.securityToRetry(after: .insufficientAuthentication, on: .encrypted) == .authenticated)
        #expect(AttributeAccess.securityToRetry(after: .insufficientEncryption, on: .encrypted) == nil, "already encrypted")
        #expect(AttributeAccess.securityToRetry(after: .insufficientAuthentication, on: .authenticated) == .authenticatedSecureConnections,
                "level 3 falls short of a level 4 requirement: Secure Connections keys")
        #expect(AttributeAccess.securityToRetry(after: .insufficientAuthentication, on: .authenticatedSecureConnections) == nil)
        for code in [ATTError.encryptionKeySizeTooShort, .insufficientAuthorization, .readNotPermitted, .unlikelyError] {
            #expect(AttributeAccess.securityToRetry(after: code, on: .unencrypted) == nil, "pairing cannot help with \(code)")
        }
        // Every refusal the server's own rules give on a plain link is one the client's rule
        // answers with the level that lifts it (or with nothing, when pairing cannot).
        let characteristic = PublishedCharacteristic(service: BluetoothUUID(0x180F), uuid: BluetoothUUID(0x2A19), properties: [.read],
                                                     permissions: [.readable, .readAuthenticationRequired], valueHandle: 3)
        let refusal = AttributeAccess.error(for: .read, on: characteristic, link: .unencrypted)
        let level = refusal.flatMap { AttributeAccess.securityToRetry(after: $0, on: .unencrypted) }
        #expect(level.map { AttributeAccess.error(for: .read, on: characteristic, link: LinkSecurity(level: $0)) } == .some(nil))
        // A level 4 value read over a level 3 link: the retry asks for level 4, which lifts it.
        let strict = PublishedCharacteristic(service: BluetoothUUID(0x180F), uuid: BluetoothUUID(0x2A19), properties: [.read],
                                             permissions: [.readable, .readSecureConnectionsRequired], valueHandle: 3)
        let levelThree = LinkSecurity(level: .authenticated)
        let strictRefusal = AttributeAccess.error(for: .read, on: strict, link: levelThree)
        #expect(strictRefusal == .insufficientAuthentication)
        let strictLevel = strictRefusal.flatMap { AttributeAccess.securityToRetry(after: $0, on: .authenticated) }
        #expect(strictLevel.map { AttributeAccess.error(for: .read, on: strict, link: LinkSecurity(level: $0)) } == .some(nil))
    }
}
