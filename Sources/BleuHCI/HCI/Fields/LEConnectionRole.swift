import BleuCore

/// Role of LE (Enhanced) Connection Complete (Core Spec Vol 4 Part E §7.7.65.1): which end of
/// the new connection this device is. A value the specification reserves keeps its raw value.
public struct LEConnectionRole: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The specification's code.
    public let rawValue: UInt8
    /// The role with this code.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Central (0x00): this device initiated the connection.
    public static let central = LEConnectionRole(rawValue: 0x00)
    /// Peripheral (0x01): this device advertised and was connected to.
    public static let peripheral = LEConnectionRole(rawValue: 0x01)

    public var description: String {
        switch rawValue {
        case 0x00: "central"
        case 0x01: "peripheral"
        default: "role 0x\(hex2(rawValue))"
        }
    }
}
