import BleuCore

/// The kind of legacy advertising PDU an advertiser sends: Advertising_Type of LE Set
/// Advertising Parameters (Core Spec Vol 4 Part E §7.8.5). A value the specification reserves
/// keeps its raw value.
public struct LEAdvertisingType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The specification's code.
    public let rawValue: UInt8
    /// The advertising type with this code.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// ADV_IND (0x00): connectable and scannable, undirected.
    public static let connectableScannableUndirected = LEAdvertisingType(rawValue: 0x00)
    /// ADV_DIRECT_IND, high duty cycle (0x01): connectable, directed at one peer, for at most 1.28 s.
    public static let connectableDirectedHighDutyCycle = LEAdvertisingType(rawValue: 0x01)
    /// ADV_SCAN_IND (0x02): scannable, undirected, not connectable.
    public static let scannableUndirected = LEAdvertisingType(rawValue: 0x02)
    /// ADV_NONCONN_IND (0x03): neither connectable nor scannable.
    public static let nonConnectableUndirected = LEAdvertisingType(rawValue: 0x03)
    /// ADV_DIRECT_IND, low duty cycle (0x04): connectable, directed at one peer.
    public static let connectableDirectedLowDutyCycle = LEAdvertisingType(rawValue: 0x04)

    public var description: String {
        switch rawValue {
        case 0x00: "ADV_IND"
        case 0x01: "ADV_DIRECT_IND (high duty cycle)"
        case 0x02: "ADV_SCAN_IND"
        case 0x03: "ADV_NONCONN_IND"
        case 0x04: "ADV_DIRECT_IND (low duty cycle)"
        default: "advertising type 0x\(hex2(rawValue))"
        }
    }
}
