/// Advertising_Channel_Map of LE Set Advertising Parameters and Primary_Advertising_Channel_Map
/// of LE Set Extended Advertising Parameters (Core Spec Vol 4 Part E §7.8.5, §7.8.53): the
/// primary advertising channels used. Reserved bits keep their values.
public struct LEAdvertisingChannels: OptionSet, Sendable, Hashable {
    /// The bit map.
    public let rawValue: UInt8
    /// The channels of this bit map.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bit 0: channel 37 (2402 MHz).
    public static let channel37 = LEAdvertisingChannels(rawValue: 0x01)
    /// Bit 1: channel 38 (2426 MHz).
    public static let channel38 = LEAdvertisingChannels(rawValue: 0x02)
    /// Bit 2: channel 39 (2480 MHz).
    public static let channel39 = LEAdvertisingChannels(rawValue: 0x04)
    /// All three primary advertising channels, the usual choice.
    public static let all: LEAdvertisingChannels = [.channel37, .channel38, .channel39]
}
