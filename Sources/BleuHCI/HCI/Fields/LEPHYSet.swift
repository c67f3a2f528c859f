/// Several LE PHYs as HCI's bit masks (bit 0 LE 1M, bit 1 LE 2M, bit 2 LE Coded): TX_PHYS and
/// RX_PHYS of LE Set PHY (Core Spec Vol 4 Part E §7.8.49), Scanning_PHYs of LE Set Extended
/// Scan Parameters (§7.8.64; LE 2M is not a scanning PHY), Initiating_PHYs of LE Extended
/// Create Connection (§7.8.66). Reserved bits keep their values.
public struct LEPHYSet: OptionSet, Sendable, Hashable {
    /// The bit mask.
    public let rawValue: UInt8
    /// The PHYs of this bit mask.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// LE 1M (bit 0).
    public static let le1M = LEPHYSet(rawValue: 0x01)
    /// LE 2M (bit 1).
    public static let le2M = LEPHYSet(rawValue: 0x02)
    /// LE Coded (bit 2).
    public static let leCoded = LEPHYSet(rawValue: 0x04)
}
