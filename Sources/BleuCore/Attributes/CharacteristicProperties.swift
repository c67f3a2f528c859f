/// The properties of a characteristic, with the bit values of the Characteristic Properties
/// field of a characteristic declaration (Core Spec Vol 3 Part G §3.3.1.1).
public struct CharacteristicProperties: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The value may be broadcast in advertising data (0x01).
    public static let broadcast = CharacteristicProperties(rawValue: 0x01)
    /// The value may be read (0x02).
    public static let read = CharacteristicProperties(rawValue: 0x02)
    /// The value may be written without a response (0x04).
    public static let writeWithoutResponse = CharacteristicProperties(rawValue: 0x04)
    /// The value may be written with a response (0x08).
    public static let write = CharacteristicProperties(rawValue: 0x08)
    /// Value changes may be notified, without acknowledgement (0x10).
    public static let notify = CharacteristicProperties(rawValue: 0x10)
    /// Value changes may be indicated, with acknowledgement (0x20).
    public static let indicate = CharacteristicProperties(rawValue: 0x20)
    /// The value may be written with an authenticated signed write (0x40).
    public static let authenticatedSignedWrites = CharacteristicProperties(rawValue: 0x40)
    /// More properties are in the Characteristic Extended Properties descriptor (0x80).
    public static let extendedProperties = CharacteristicProperties(rawValue: 0x80)
}

extension CharacteristicProperties: CustomStringConvertible {
    static let names: [(CharacteristicProperties, String)] = [
        (.broadcast, "broadcast"), (.read, "read"), (.writeWithoutResponse, "writeWithoutResponse"),
        (.write, "write"), (.notify, "notify"), (.indicate, "indicate"),
        (.authenticatedSignedWrites, "authenticatedSignedWrites"),
        (.extendedProperties, "extendedProperties"),
    ]

    /// The set properties by name, such as `"[read, notify]"`.
    public var description: String {
        "[" + Self.names.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + "]"
    }
}
