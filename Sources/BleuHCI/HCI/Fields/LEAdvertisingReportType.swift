import BleuCore

/// Event_Type of an LE Advertising Report (Core Spec Vol 4 Part E §7.7.65.2): which legacy PDU
/// a scanner received. A value the specification reserves keeps its raw value.
public struct LEAdvertisingReportType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The specification's code.
    public let rawValue: UInt8
    /// The report type with this code.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// ADV_IND (0x00): connectable and scannable, undirected.
    public static let connectableScannableUndirected = LEAdvertisingReportType(rawValue: 0x00)
    /// ADV_DIRECT_IND (0x01): connectable, directed.
    public static let connectableDirected = LEAdvertisingReportType(rawValue: 0x01)
    /// ADV_SCAN_IND (0x02): scannable, undirected.
    public static let scannableUndirected = LEAdvertisingReportType(rawValue: 0x02)
    /// ADV_NONCONN_IND (0x03): neither connectable nor scannable.
    public static let nonConnectableUndirected = LEAdvertisingReportType(rawValue: 0x03)
    /// SCAN_RSP (0x04): a scan response.
    public static let scanResponse = LEAdvertisingReportType(rawValue: 0x04)

    /// Whether a central may connect to the advertiser (ADV_IND, ADV_DIRECT_IND).
    public var isConnectable: Bool { self == .connectableScannableUndirected || self == .connectableDirected }
    /// Whether the advertiser answers scan requests (ADV_IND, ADV_SCAN_IND).
    public var isScannable: Bool { self == .connectableScannableUndirected || self == .scannableUndirected }

    public var description: String {
        switch rawValue {
        case 0x00: "ADV_IND"
        case 0x01: "ADV_DIRECT_IND"
        case 0x02: "ADV_SCAN_IND"
        case 0x03: "ADV_NONCONN_IND"
        case 0x04: "SCAN_RSP"
        default: "report type 0x\(hex2(rawValue))"
        }
    }
}
