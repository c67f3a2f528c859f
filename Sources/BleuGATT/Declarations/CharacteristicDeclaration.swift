import BleuCore
import Foundation

/// A characteristic as a service declares it, whatever its value type: what a
/// ``ServiceDeclaration`` holds and turns into a ``/BleuCore/CharacteristicDefinition``. Make one from a
/// ``Characteristic`` with ``Characteristic/declaration`` or, with a static value,
/// ``Characteristic/value(_:)``.
public struct CharacteristicDeclaration: Sendable, Hashable {
    /// The characteristic's UUID.
    public var uuid: BluetoothUUID
    /// The name errors and logs use, such as `"Battery Level"`.
    public var name: String
    /// The properties its declaration advertises.
    public var properties: CharacteristicProperties
    /// The access the server grants, and the security it requires.
    public var permissions: AttributePermissions
    /// Descriptors with static values (user description, presentation format, …); the
    /// backend adds the Client Characteristic Configuration descriptor itself.
    public var descriptors: [DescriptorDefinition]
    /// A static value the backend serves itself, or `nil` when the application answers requests.
    public var value: Data?

    /// A declaration from its parts; usually made with ``Characteristic/declaration``.
    public init(uuid: BluetoothUUID, name: String, properties: CharacteristicProperties,
                permissions: AttributePermissions, descriptors: [DescriptorDefinition], value: Data?) {
        self.uuid = uuid
        self.name = name
        self.properties = properties
        self.permissions = permissions
        self.descriptors = descriptors
        self.value = value
    }

    /// The definition a ``/BleuCore/PeripheralManager`` hosts. Throws ``/BleuCore/BleuError/invalidState(_:)`` for a
    /// static value on a characteristic that can be written, notified or indicated (backends
    /// serve static values only for read-only characteristics, as CoreBluetooth does).
    public func definition() throws(BleuError) -> CharacteristicDefinition {
        if value != nil {
            let dynamic: CharacteristicProperties = [.write, .writeWithoutResponse, .notify, .indicate, .authenticatedSignedWrites]
            guard properties.isDisjoint(with: dynamic) else {
                throw .invalidState(.staticValueNotAllowed(uuid, properties.intersection(dynamic)))
            }
        }
        return CharacteristicDefinition(uuid: uuid, properties: properties, permissions: permissions,
                                        value: value, descriptors: descriptors)
    }
}
