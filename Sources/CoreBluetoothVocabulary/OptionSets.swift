// CoreBluetooth's option sets, under CoreBluetooth's names and bit values (on Apple platforms
// CoreBluetooth provides them; see ManagerEnums.swift).
#if !canImport(CoreBluetooth)

/// The properties of a characteristic (CoreBluetooth's `CBCharacteristicProperties`).
///
/// The low eight bits are the Characteristic Properties field of a characteristic declaration
/// (Core Spec Vol 3 Part G §3.3.1.1); the two above them are CoreBluetooth's own.
public struct CBCharacteristicProperties: OptionSet, Hashable, Sendable {
    /// The bits of the set.
    public let rawValue: UInt

    /// A set with these bits.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// The value may be broadcast in a server characteristic configuration descriptor (0x01).
    public static let broadcast = CBCharacteristicProperties(rawValue: 0x01)
    /// The value may be read (0x02).
    public static let read = CBCharacteristicProperties(rawValue: 0x02)
    /// The value may be written without a response (0x04).
    public static let writeWithoutResponse = CBCharacteristicProperties(rawValue: 0x04)
    /// The value may be written with a response (0x08).
    public static let write = CBCharacteristicProperties(rawValue: 0x08)
    /// Value changes may be notified, without acknowledgement (0x10).
    public static let notify = CBCharacteristicProperties(rawValue: 0x10)
    /// Value changes may be indicated, with acknowledgement (0x20).
    public static let indicate = CBCharacteristicProperties(rawValue: 0x20)
    /// The value may be written with an authenticated signed write (0x40).
    public static let authenticatedSignedWrites = CBCharacteristicProperties(rawValue: 0x40)
    /// More properties are in the Characteristic Extended Properties descriptor (0x80).
    public static let extendedProperties = CBCharacteristicProperties(rawValue: 0x80)
    /// Only trusted (paired) devices may enable notifications (0x100).
    public static let notifyEncryptionRequired = CBCharacteristicProperties(rawValue: 0x100)
    /// Only trusted (paired) devices may enable indications (0x200).
    public static let indicateEncryptionRequired = CBCharacteristicProperties(rawValue: 0x200)
}

/// The permissions of a local attribute's value (CoreBluetooth's `CBAttributePermissions`).
public struct CBAttributePermissions: OptionSet, Hashable, Sendable {
    /// The bits of the set.
    public let rawValue: UInt

    /// A set with these bits.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// The value may be read (0x01).
    public static let readable = CBAttributePermissions(rawValue: 0x01)
    /// The value may be written (0x02; CoreBluetooth spells it "writeable").
    public static let writeable = CBAttributePermissions(rawValue: 0x02)
    /// Only trusted (paired, encrypted) devices may read the value (0x04).
    public static let readEncryptionRequired = CBAttributePermissions(rawValue: 0x04)
    /// Only trusted (paired, encrypted) devices may write the value (0x08).
    public static let writeEncryptionRequired = CBAttributePermissions(rawValue: 0x08)
}

#endif
