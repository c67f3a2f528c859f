/// ALL_PHYS of LE Set PHY (Core Spec Vol 4 Part E §7.8.49): for which direction the host has
/// no preference, so the controller ignores the corresponding TX_PHYS or RX_PHYS. Reserved
/// bits keep their values.
public struct LEAllPHYs: OptionSet, Sendable, Hashable {
    /// The bit mask.
    public let rawValue: UInt8
    /// The flags of this bit mask.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bit 0: no preference among transmitter PHYs (TX_PHYS is ignored).
    public static let noTransmitterPreference = LEAllPHYs(rawValue: 0x01)
    /// Bit 1: no preference among receiver PHYs (RX_PHYS is ignored).
    public static let noReceiverPreference = LEAllPHYs(rawValue: 0x02)
}
