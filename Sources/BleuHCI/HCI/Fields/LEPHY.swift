import BleuCore

/// One LE physical layer, as HCI names it in a single-PHY field: the primary and secondary
/// advertising PHYs of LE Set Extended Advertising Parameters (Core Spec Vol 4 Part E
/// §7.8.53), the PHYs of an extended advertising report (§7.7.65.13) and of LE PHY Update
/// Complete (§7.7.65.12). A value the specification reserves keeps its raw value. (Fields that
/// hold several PHYs as bits are ``LEPHYSet``.)
public struct LEPHY: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The specification's code.
    public let rawValue: UInt8
    /// The PHY with this code.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// LE 1M (0x01): 1 Msym/s, every controller has it.
    public static let le1M = LEPHY(rawValue: 0x01)
    /// LE 2M (0x02): 2 Msym/s.
    public static let le2M = LEPHY(rawValue: 0x02)
    /// LE Coded (0x03): long range, S=2 or S=8 coding.
    public static let leCoded = LEPHY(rawValue: 0x03)

    public var description: String {
        switch rawValue {
        case 0x01: "LE 1M"
        case 0x02: "LE 2M"
        case 0x03: "LE Coded"
        default: "PHY 0x\(hex2(rawValue))"
        }
    }
}
