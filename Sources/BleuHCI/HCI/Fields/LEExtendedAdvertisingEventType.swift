/// Event_Type of an LE Extended Advertising Report (Core Spec Vol 4 Part E §7.7.65.13): what
/// the advertiser allows and whether the report's data is complete. Bits 5–6 are the data
/// status, a 2-bit number: 0 complete, 1 (``incomplete``) more data to come, 2 (``truncated``)
/// incomplete with no more to come. Reserved bits keep their values.
public struct LEExtendedAdvertisingEventType: OptionSet, Sendable, Hashable {
    /// The bit field.
    public let rawValue: UInt16
    /// The event type of this bit field.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Bit 0: connectable advertising.
    public static let connectable = LEExtendedAdvertisingEventType(rawValue: 0x0001)
    /// Bit 1: scannable advertising.
    public static let scannable = LEExtendedAdvertisingEventType(rawValue: 0x0002)
    /// Bit 2: directed advertising.
    public static let directed = LEExtendedAdvertisingEventType(rawValue: 0x0004)
    /// Bit 3: a scan response.
    public static let scanResponse = LEExtendedAdvertisingEventType(rawValue: 0x0008)
    /// Bit 4: legacy advertising PDUs.
    public static let legacy = LEExtendedAdvertisingEventType(rawValue: 0x0010)
    /// Data status 1 (bits 5–6 = 01): the data is incomplete; more reports follow with the rest.
    public static let incomplete = LEExtendedAdvertisingEventType(rawValue: 0x0020)
    /// Data status 2 (bits 5–6 = 10): the data is incomplete and no more will come.
    public static let truncated = LEExtendedAdvertisingEventType(rawValue: 0x0040)

    /// Bits 5–6: 0 complete, 1 more data to come, 2 truncated (3 is reserved).
    public var dataStatus: UInt8 { UInt8((rawValue >> 5) & 0x03) }
}
