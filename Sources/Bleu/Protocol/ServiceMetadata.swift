import BleuCore
import Foundation

/// How an actor type is laid out as a GATT service: its service UUID, and the UUIDs,
/// properties and permissions of its three characteristics (Bleu 2's `serviceMetadata`).
///
/// ```swift
/// distributed actor SmartLight: PeripheralActor {
///     typealias ActorSystem = BLEActorSystem
///     static var serviceMetadata: ServiceMetadata {
///         ServiceMetadata(uuid: UUID(uuidString: "12345678-1234-5678-9ABC-123456789ABC")!,
///                         security: .encrypted)
///     }
/// }
/// ```
///
/// Without one, an actor type is hosted under ``ActorServiceLayout/derivedServiceUUID(for:)``
/// with ``ActorServiceLayout``'s characteristic UUIDs, open to any connected central.
///
/// **Security.** The backend enforces the permissions: on a link below their level a central
/// pairs first (CoreBluetooth, and the emulator, pair on their own when a request fails with
/// Insufficient Encryption or Authentication), or its request fails. The actor-id read takes the
/// strongest level any of the service's characteristics requires, so a central pairs while
/// setting up the link, before a call's write without response could be dropped unanswered. The
/// services of the `@Resolvable` protocols the type is discoverable as get the same permissions:
/// they reach the same actor.
public struct ServiceMetadata: Sendable, Hashable {
    /// The service UUID.
    public var uuid: BluetoothUUID
    /// Characteristics laid out differently from the default, by role; a role not listed keeps
    /// ``ActorServiceLayout``'s UUID and its default properties, with the permissions that
    /// `security` asks for.
    public var characteristics: [CharacteristicMetadata]
    /// The least security every characteristic of the service requires (default: none).
    public var security: SecurityRequirement

    /// Metadata with a service UUID; each parameter sets the property of the same name.
    public init(uuid: BluetoothUUID, characteristics: [CharacteristicMetadata] = [], security: SecurityRequirement = .none) {
        self.uuid = uuid
        self.characteristics = characteristics
        self.security = security
    }

    /// Metadata with a service UUID given as a `UUID` (Bleu 2's spelling).
    public init(uuid: UUID, characteristics: [CharacteristicMetadata] = [], security: SecurityRequirement = .none) {
        self.init(uuid: BluetoothUUID(uuid: uuid), characteristics: characteristics, security: security)
    }

    /// The security a service requires of a link.
    public enum SecurityRequirement: Int, Sendable, Hashable, Comparable {
        /// Any connected central may call (security mode 1 level 1).
        case none
        /// The link must be encrypted (level 2: Just Works pairing suffices).
        case encrypted
        /// The link must be encrypted with keys from an authenticated (MITM-protected) pairing
        /// (level 3: passkey entry or numeric comparison).
        case authenticated
        /// The link must be encrypted with a 128-bit key from an authenticated LE Secure
        /// Connections pairing (level 4: a Secure Connections Only service).
        case authenticatedSecureConnections

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The permissions a characteristic readable and writable as `base` needs at this level.
        func permissions(adding base: AttributePermissions) -> AttributePermissions {
            var permissions = base
            switch self {
            case .none: break
            case .encrypted:
                if base.contains(.readable) { permissions.insert(.readEncryptionRequired) }
                if base.contains(.writeable) { permissions.insert(.writeEncryptionRequired) }
            case .authenticated:
                if base.contains(.readable) { permissions.insert(.readAuthenticationRequired) }
                if base.contains(.writeable) { permissions.insert(.writeAuthenticationRequired) }
            case .authenticatedSecureConnections:
                if base.contains(.readable) { permissions.insert(.readSecureConnectionsRequired) }
                if base.contains(.writeable) { permissions.insert(.writeSecureConnectionsRequired) }
            }
            return permissions
        }

        /// The level characteristic permissions require, for reading or writing.
        init(_ permissions: AttributePermissions) {
            self.init(max(permissions.readSecurity, permissions.writeSecurity))
        }

        /// The requirement of links at `level`.
        init(_ level: SecurityLevel) {
            switch level {
            case .unencrypted: self = .none
            case .encrypted: self = .encrypted
            case .authenticated: self = .authenticated
            case .authenticatedSecureConnections: self = .authenticatedSecureConnections
            }
        }
    }
}

/// One characteristic of an actor service, by its role.
public struct CharacteristicMetadata: Sendable, Hashable {
    /// What the characteristic does in the actor protocol.
    public enum Role: String, Sendable, Hashable, CaseIterable, Codable {
        /// Read-only: the actor's 16-byte id. Needs `.read`.
        case actorID
        /// Requests from centrals. Needs `.writeWithoutResponse` (calls are flow-controlled writes without response).
        case call
        /// Replies and stream elements. Needs `.notify`.
        case reply
    }

    public var role: Role
    public var uuid: BluetoothUUID
    public var properties: CharacteristicProperties
    public var permissions: AttributePermissions

    /// A characteristic; `properties` and `permissions` default to the role's.
    public init(_ role: Role, uuid: BluetoothUUID, properties: CharacteristicProperties? = nil, permissions: AttributePermissions? = nil) {
        self.role = role
        self.uuid = uuid
        self.properties = properties ?? Self.defaultProperties(role)
        self.permissions = permissions ?? Self.defaultPermissions(role)
    }

    /// A characteristic with its UUID given as a `UUID`.
    public init(_ role: Role, uuid: UUID, properties: CharacteristicProperties? = nil, permissions: AttributePermissions? = nil) {
        self.init(role, uuid: BluetoothUUID(uuid: uuid), properties: properties, permissions: permissions)
    }

    static func defaultProperties(_ role: Role) -> CharacteristicProperties {
        switch role {
        case .actorID: [.read]
        case .call: [.write, .writeWithoutResponse]
        case .reply: [.notify]
        }
    }

    static func defaultPermissions(_ role: Role) -> AttributePermissions {
        switch role {
        case .actorID, .reply: .readable
        case .call: .writeable
        }
    }

    static func defaultUUID(_ role: Role) -> BluetoothUUID {
        switch role {
        case .actorID: ActorServiceLayout.actorIDCharacteristic
        case .call: ActorServiceLayout.callCharacteristic
        case .reply: ActorServiceLayout.replyCharacteristic
        }
    }
}
