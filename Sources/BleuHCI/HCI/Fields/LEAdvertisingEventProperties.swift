/// Advertising_Event_Properties of LE Set Extended Advertising Parameters (Core Spec Vol 4
/// Part E §7.8.53): what kind of advertising an advertising set does. Reserved bits keep their
/// values.
public struct LEAdvertisingEventProperties: OptionSet, Sendable, Hashable {
    /// The bit field.
    public let rawValue: UInt16
    /// The properties of this bit field.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Bit 0: connectable.
    public static let connectable = LEAdvertisingEventProperties(rawValue: 0x0001)
    /// Bit 1: scannable.
    public static let scannable = LEAdvertisingEventProperties(rawValue: 0x0002)
    /// Bit 2: directed at one peer.
    public static let directed = LEAdvertisingEventProperties(rawValue: 0x0004)
    /// Bit 3: high duty cycle directed connectable advertising (at most 3.75 ms between events).
    public static let highDutyCycle = LEAdvertisingEventProperties(rawValue: 0x0008)
    /// Bit 4: legacy advertising PDUs (what every central receives; 31 bytes of data).
    public static let legacy = LEAdvertisingEventProperties(rawValue: 0x0010)
    /// Bit 5: the advertiser's address is left out of all PDUs (anonymous advertising).
    public static let anonymous = LEAdvertisingEventProperties(rawValue: 0x0020)
    /// Bit 6: the TX power goes in the extended header of at least one PDU.
    public static let includesTxPower = LEAdvertisingEventProperties(rawValue: 0x0040)
}
