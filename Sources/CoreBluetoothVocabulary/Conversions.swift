// Conversions between CoreBluetooth's value types and BleuCore's, for the `EmulatedCB…`
// classes. They compile on every platform: on Apple platforms against CoreBluetooth's own types,
// elsewhere against this module's, so they use only API CoreBluetooth itself has.
import BleuCore
import Foundation
#if canImport(CoreBluetooth)
import CoreBluetooth
#endif

// MARK: - UUIDs

extension CBUUID {
    /// The same UUID: 16- and 32-bit UUIDs stay short, as CoreBluetooth keeps them.
    package convenience init(_ uuid: BluetoothUUID) {
        self.init(string: uuid.uuidString)
    }
}

extension BluetoothUUID {
    /// The same UUID, read from CoreBluetooth's 2, 4 or 16 big-endian bytes.
    package init(_ uuid: CBUUID) {
        guard let parsed = BluetoothUUID(littleEndianBytes: uuid.data.reversed()) else {
            preconditionFailure("CBUUID \(uuid.uuidString) has \(uuid.data.count) bytes; CoreBluetooth gives 2, 4 or 16")
        }
        self = parsed
    }
}

// MARK: - Characteristic properties

extension CBCharacteristicProperties {
    /// The same properties. Every BleuCore property has a CoreBluetooth counterpart with the
    /// same bit.
    package init(_ properties: CharacteristicProperties) {
        var result: CBCharacteristicProperties = []
        for (bleu, coreBluetooth) in characteristicPropertyPairs where properties.contains(bleu) {
            result.insert(coreBluetooth)
        }
        self = result
    }
}

extension CharacteristicProperties {
    /// The properties as the characteristic declaration carries them.
    ///
    /// CoreBluetooth's `notifyEncryptionRequired` and `indicateEncryptionRequired` have no
    /// counterpart here: they declare the characteristic as notifying (indicating), which this
    /// gives as ``CharacteristicProperties/notify`` (``CharacteristicProperties/indicate``), and
    /// ask for an encrypted link before a central may subscribe, which is a matter for the
    /// Client Characteristic Configuration descriptor's permissions, not for these properties.
    package init(_ properties: CBCharacteristicProperties) {
        var result: CharacteristicProperties = []
        for (bleu, coreBluetooth) in characteristicPropertyPairs where properties.contains(coreBluetooth) {
            result.insert(bleu)
        }
        if properties.contains(.notifyEncryptionRequired) { result.insert(.notify) }
        if properties.contains(.indicateEncryptionRequired) { result.insert(.indicate) }
        self = result
    }
}

/// Each BleuCore property with its CoreBluetooth counterpart.
private let characteristicPropertyPairs: [(CharacteristicProperties, CBCharacteristicProperties)] = [
    (.broadcast, .broadcast),
    (.read, .read),
    (.writeWithoutResponse, .writeWithoutResponse),
    (.write, .write),
    (.notify, .notify),
    (.indicate, .indicate),
    (.authenticatedSignedWrites, .authenticatedSignedWrites),
    (.extendedProperties, .extendedProperties),
]

// MARK: - Attribute permissions

extension CBAttributePermissions {
    /// The closest CoreBluetooth permissions.
    ///
    /// Readable, writeable and the two encryption requirements map one to one. CoreBluetooth
    /// has no authentication requirement: BleuCore's read (write) authentication and Secure
    /// Connections requirements become `readEncryptionRequired` (`writeEncryptionRequired`), the CoreBluetooth
    /// requirement it implies, so the value stays protected by pairing. CoreBluetooth has no
    /// authorization requirement either (a CoreBluetooth app authorizes each request in its
    /// delegate); BleuCore's authorization requirements are dropped.
    package init(_ permissions: AttributePermissions) {
        var result: CBAttributePermissions = []
        for (bleu, coreBluetooth) in attributePermissionPairs where permissions.contains(bleu) {
            result.insert(coreBluetooth)
        }
        if permissions.readSecurity >= .encrypted { result.insert(.readEncryptionRequired) }
        if permissions.writeSecurity >= .encrypted { result.insert(.writeEncryptionRequired) }
        self = result
    }
}

extension AttributePermissions {
    /// The same permissions: every CoreBluetooth permission has a BleuCore counterpart. In
    /// CoreBluetooth an encryption requirement alone makes the value readable (writeable) by
    /// trusted devices; BleuCore spells that as both flags, so both are set.
    package init(_ permissions: CBAttributePermissions) {
        var result: AttributePermissions = []
        for (bleu, coreBluetooth) in attributePermissionPairs where permissions.contains(coreBluetooth) {
            result.insert(bleu)
        }
        if permissions.contains(.readEncryptionRequired) { result.insert(.readable) }
        if permissions.contains(.writeEncryptionRequired) { result.insert(.writeable) }
        self = result
    }
}

/// Each CoreBluetooth permission with its BleuCore counterpart.
private let attributePermissionPairs: [(AttributePermissions, CBAttributePermissions)] = [
    (.readable, .readable),
    (.writeable, .writeable),
    (.readEncryptionRequired, .readEncryptionRequired),
    (.writeEncryptionRequired, .writeEncryptionRequired),
]

// MARK: - Manager state

extension CBManagerState {
    /// The same state.
    package init(_ state: ManagerState) {
        switch state {
        case .unknown: self = .unknown
        case .resetting: self = .resetting
        case .unsupported: self = .unsupported
        case .unauthorized: self = .unauthorized
        case .poweredOff: self = .poweredOff
        case .poweredOn: self = .poweredOn
        }
    }
}

extension ManagerState {
    /// The same state; a state a later CoreBluetooth adds is ``/BleuCore/ManagerState/unknown``.
    package init(_ state: CBManagerState) {
        switch state {
        case .unknown: self = .unknown
        case .resetting: self = .resetting
        case .unsupported: self = .unsupported
        case .unauthorized: self = .unauthorized
        case .poweredOff: self = .poweredOff
        case .poweredOn: self = .poweredOn
        @unknown default: self = .unknown
        }
    }
}

// MARK: - Descriptor values

/// A descriptor's bytes as the value CoreBluetooth reports for its type: `String` for the user
/// description (0x2901); `NSNumber` for the extended properties (0x2900), client and server
/// configuration (0x2902, 0x2903) descriptors when the value is their 2-byte field; `Data`
/// for the rest.
package func coreBluetoothDescriptorValue(_ bytes: Data, type: BluetoothUUID) -> Any {
    switch type {
    case BluetoothUUID.Descriptor.characteristicUserDescription:
        return String(decoding: bytes, as: UTF8.self)
    case BluetoothUUID.Descriptor.characteristicExtendedProperties,
         BluetoothUUID.Descriptor.clientCharacteristicConfiguration,
         BluetoothUUID.Descriptor.serverCharacteristicConfiguration:
        // A 16-bit field; a value of another length is shown as it came.
        guard bytes.count == 2 else { return bytes }
        return NSNumber(value: UInt16(bytes[bytes.startIndex]) | UInt16(bytes[bytes.startIndex + 1]) << 8)
    default:
        return bytes
    }
}

/// The bytes of a descriptor value as CoreBluetooth gives it (the inverse of
/// ``coreBluetoothDescriptorValue(_:type:)``): a `String` as UTF-8, an `NSNumber` of a 16-bit
/// descriptor field as its 2 little-endian bytes, `Data` as it is, `nil` as no bytes. `nil` for
/// a value of any other type.
package func descriptorBytes(fromCoreBluetooth value: Any?, type: BluetoothUUID) -> Data? {
    switch value {
    case nil: return Data()
    case let data as Data: return data
    case let text as String: return Data(text.utf8)
    case let number as NSNumber:
        let sixteenBit: Set<BluetoothUUID> = [BluetoothUUID.Descriptor.characteristicExtendedProperties,
                                              BluetoothUUID.Descriptor.clientCharacteristicConfiguration,
                                              BluetoothUUID.Descriptor.serverCharacteristicConfiguration]
        guard sixteenBit.contains(type) else { return nil }
        let field = number.uint16Value
        return Data([UInt8(truncatingIfNeeded: field), UInt8(truncatingIfNeeded: field >> 8)])
    default: return nil
    }
}
