import BleuCore

/// Whether a scanner asks advertisers for their scan response: LE_Scan_Type of LE Set Scan
/// Parameters and Scan_Type of LE Set Extended Scan Parameters (Core Spec Vol 4 Part E §7.8.10,
/// §7.8.64). A value the specification reserves keeps its raw value.
public struct LEScanType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The specification's code.
    public let rawValue: UInt8
    /// The scan type with this code.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Passive scanning (0x00): listen only; no scan requests.
    public static let passive = LEScanType(rawValue: 0x00)
    /// Active scanning (0x01): send scan requests to scannable advertisers.
    public static let active = LEScanType(rawValue: 0x01)

    public var description: String {
        switch rawValue {
        case 0x00: "passive"
        case 0x01: "active"
        default: "scan type 0x\(hex2(rawValue))"
        }
    }
}
