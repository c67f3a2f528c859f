import BleuCore
import Foundation

/// A GATT characteristic whose value is a Swift type: its UUID, properties, permissions,
/// descriptors, and the codec between the type and the bytes on air.
///
/// Declare one as a static member of a ``GATTService``; the SIG catalogue comes declared
/// (``BatteryService/level``, ``HeartRateService/measurement``, …):
///
/// ```swift
/// static let target = Characteristic<Int16>(
///     "9F1E0001-7B51-4C9A-9E2A-1B2C3D4E5F60", codec: .sint16,
///     properties: [.read, .write, .notify], userDescription: "Target temperature",
///     presentationFormat: PresentationFormat(format: .sint16, exponent: -2, unit: PresentationFormat.Unit.degreeCelsius))
/// ```
public struct Characteristic<Value: Sendable>: Sendable {
    /// The characteristic's type: a 16-bit SIG number for the catalogue, a 128-bit UUID of your own otherwise.
    public var uuid: BluetoothUUID
    /// The name errors and descriptions use: the SIG's name for a known UUID, else the UUID.
    public var name: String
    /// What centrals may do with the value (read, write, notify, …), as a peripheral hosting it
    /// declares. (A typed central checks the properties the peripheral actually declared.)
    public var properties: CharacteristicProperties
    /// What the server lets centrals do and with which security (readable, writeable, encryption
    /// required), enforced by the backend before a request reaches a handler.
    public var permissions: AttributePermissions
    /// The codec between values and bytes.
    public var codec: any GATTCodec<Value>
    /// The Characteristic User Description (0x2901), if any.
    public var userDescription: String?
    /// The Characteristic Presentation Format (0x2904), if any.
    public var presentationFormat: PresentationFormat?
    /// Further descriptors with static values, after the two above. Do not declare a Client
    /// Characteristic Configuration descriptor: backends add it for notify and indicate.
    public var otherDescriptors: [DescriptorDefinition]

    /// A characteristic. `permissions` default to what `properties` need: readable for
    /// `.read`, writeable for `.write` or `.writeWithoutResponse`.
    public init(_ uuid: BluetoothUUID, name: String? = nil, codec: some GATTCodec<Value>,
                properties: CharacteristicProperties, permissions: AttributePermissions? = nil,
                userDescription: String? = nil, presentationFormat: PresentationFormat? = nil,
                descriptors: [DescriptorDefinition] = []) {
        self.uuid = uuid
        self.name = name ?? uuid.name ?? uuid.description
        self.codec = codec
        self.properties = properties
        self.permissions = permissions ?? AttributePermissions(for: properties)
        self.userDescription = userDescription
        self.presentationFormat = presentationFormat
        self.otherDescriptors = descriptors
    }

    /// The descriptors a peripheral hosts: user description, presentation format, then the others.
    public var descriptors: [DescriptorDefinition] {
        var all: [DescriptorDefinition] = []
        if let userDescription { all.append(.userDescription(userDescription)) }
        if let presentationFormat { all.append(presentationFormat.descriptor) }
        return all + otherDescriptors
    }

    // MARK: Values

    /// The bytes of `value`. Throws ``GATTCodecError`` (its path starting with ``name``) for a
    /// value the layout cannot carry.
    public func encode(_ value: Value) throws(GATTCodecError) -> Data {
        try codec.encode(value, named: name)
    }

    /// The value these bytes hold. Throws ``GATTCodecError`` (its path starting with
    /// ``name``) for too few or too many bytes or a value not allowed; its
    /// ``GATTCodecError/attError`` is what a server answers such a write with.
    public func decode(_ data: Data) throws(GATTCodecError) -> Value {
        try codec.decode(data, named: name)
    }

    // MARK: Declaring

    /// The characteristic as a service declares it, with no static value: every read and
    /// write reaches the application.
    public var declaration: CharacteristicDeclaration {
        CharacteristicDeclaration(uuid: uuid, name: name, properties: properties, permissions: permissions,
                                  descriptors: descriptors, value: nil)
    }

    /// The characteristic with a static value the backend serves itself (such as a Device
    /// Information string). Backends require such a characteristic to be read-only; see
    /// ``ServiceDeclaration/definition()``. Throws ``GATTCodecError`` when `value` cannot be encoded.
    public func value(_ value: Value) throws(GATTCodecError) -> CharacteristicDeclaration {
        var declaration = declaration
        declaration.value = try encode(value)
        return declaration
    }

    /// A copy with other properties, and permissions to match unless given.
    public func with(properties: CharacteristicProperties, permissions: AttributePermissions? = nil) -> Characteristic {
        var copy = self
        copy.properties = properties
        copy.permissions = permissions ?? AttributePermissions(for: properties)
        return copy
    }

    /// A copy with these permissions, such as requiring encryption.
    public func with(permissions: AttributePermissions) -> Characteristic {
        var copy = self
        copy.permissions = permissions
        return copy
    }

    /// A copy with a user description (0x2901).
    public func with(userDescription: String?) -> Characteristic {
        var copy = self
        copy.userDescription = userDescription
        return copy
    }

    /// A copy with a presentation format (0x2904).
    public func with(presentationFormat: PresentationFormat?) -> Characteristic {
        var copy = self
        copy.presentationFormat = presentationFormat
        return copy
    }

    // MARK: Finding

    /// Whether a discovered characteristic is this one: the same UUID, and the service's
    /// UUID when one is given.
    public func matches(_ remote: RemoteCharacteristic, inService service: BluetoothUUID? = nil) -> Bool {
        remote.uuid == uuid && (service == nil || remote.service == service)
    }

    /// Whether a characteristic a peripheral published is this one.
    public func matches(_ published: PublishedCharacteristic, inService service: BluetoothUUID? = nil) -> Bool {
        published.uuid == uuid && (service == nil || published.service == service)
    }

    /// The first of the discovered characteristics that is this one (in `service`, when given).
    public func find(in remote: [RemoteCharacteristic], inService service: BluetoothUUID? = nil) -> RemoteCharacteristic? {
        remote.first { matches($0, inService: service) }
    }
}

extension Characteristic: CustomStringConvertible {
    /// For example `"Battery Level (2A19) [read, notify]"`.
    public var description: String {
        "\(name) (\(uuid.uuidString)) \(properties)"
    }
}

extension AttributePermissions {
    /// What a characteristic with these properties needs: readable for `.read`, writeable for
    /// `.write`, `.writeWithoutResponse` or `.authenticatedSignedWrites`.
    public init(for properties: CharacteristicProperties) {
        self = []
        if properties.contains(.read) { insert(.readable) }
        if !properties.isDisjoint(with: [.write, .writeWithoutResponse, .authenticatedSignedWrites]) { insert(.writeable) }
    }
}
