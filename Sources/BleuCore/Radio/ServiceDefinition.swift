import Foundation

/// A service a peripheral hosts, as the application declares it.
public struct ServiceDefinition: Sendable, Hashable {
    public var uuid: BluetoothUUID
    public var isPrimary: Bool
    public var characteristics: [CharacteristicDefinition]
    /// UUIDs of services, added before this one, that this service includes.
    public var includedServices: [BluetoothUUID]

    public init(uuid: BluetoothUUID, isPrimary: Bool = true,
                characteristics: [CharacteristicDefinition], includedServices: [BluetoothUUID] = []) {
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.characteristics = characteristics
        self.includedServices = includedServices
    }
}

/// A characteristic a peripheral hosts.
///
/// With a static ``value`` the backend answers reads itself and the characteristic must be
/// read-only (as CoreBluetooth requires for cached values); without one, every read and write
/// reaches the application as a request it answers. A Client Characteristic Configuration
/// descriptor is added by the backend for characteristics that notify or indicate; do not
/// declare one.
public struct CharacteristicDefinition: Sendable, Hashable {
    public var uuid: BluetoothUUID
    public var properties: CharacteristicProperties
    public var permissions: AttributePermissions
    public var value: Data?
    public var descriptors: [DescriptorDefinition]

    public init(uuid: BluetoothUUID, properties: CharacteristicProperties, permissions: AttributePermissions,
                value: Data? = nil, descriptors: [DescriptorDefinition] = []) {
        self.uuid = uuid
        self.properties = properties
        self.permissions = permissions
        self.value = value
        self.descriptors = descriptors
    }
}

/// A descriptor with a static value, such as a Characteristic User Description (0x2901) or a
/// Characteristic Presentation Format (0x2904).
public struct DescriptorDefinition: Sendable, Hashable {
    public var uuid: BluetoothUUID
    public var value: Data

    public init(uuid: BluetoothUUID, value: Data) {
        self.uuid = uuid
        self.value = value
    }

    /// A Characteristic User Description descriptor with this text.
    public static func userDescription(_ text: String) -> DescriptorDefinition {
        DescriptorDefinition(uuid: BluetoothUUID.Descriptor.characteristicUserDescription, value: Data(text.utf8))
    }
}

/// A service as the peripheral published it, with the handles it was given.
public struct PublishedService: Sendable, Hashable {
    public var uuid: BluetoothUUID
    public var isPrimary: Bool
    public var handle: UInt16
    public var endHandle: UInt16
    public var characteristics: [PublishedCharacteristic]

    public init(uuid: BluetoothUUID, isPrimary: Bool, handle: UInt16, endHandle: UInt16,
                characteristics: [PublishedCharacteristic]) {
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.handle = handle
        self.endHandle = endHandle
        self.characteristics = characteristics
    }

    /// The first published characteristic with this UUID.
    public func characteristic(_ uuid: BluetoothUUID) -> PublishedCharacteristic? {
        characteristics.first { $0.uuid == uuid }
    }
}

/// A characteristic as the peripheral published it. Requests name it, and the application
/// passes it back to ``PeripheralManager/updateValue(_:for:onSubscribedCentrals:)``.
public struct PublishedCharacteristic: Sendable, Hashable {
    /// The UUID of the service holding it.
    public var service: BluetoothUUID
    public var uuid: BluetoothUUID
    public var properties: CharacteristicProperties
    public var permissions: AttributePermissions
    /// The handle of the characteristic value; unique on the peripheral.
    public var valueHandle: UInt16

    public init(service: BluetoothUUID, uuid: BluetoothUUID, properties: CharacteristicProperties,
                permissions: AttributePermissions, valueHandle: UInt16) {
        self.service = service
        self.uuid = uuid
        self.properties = properties
        self.permissions = permissions
        self.valueHandle = valueHandle
    }
}
