/// How HCI carries one kind of time: a count of a fixed unit, within the range the Core
/// Specification allows for the field. The public API speaks `Duration`; the codecs convert
/// with these, so every time field follows one rule:
///
/// - **encoding** rounds to the nearest unit (a half unit rounds up) and **clamps** into the
///   specification's range — a controller would refuse the command otherwise (Invalid HCI
///   Command Parameters), and a time that no unit count can say has no better answer;
/// - **decoding** keeps whatever count the bytes hold, in range or not (a controller may send
///   values we do not expect), exactly: every count is a whole number of microseconds.
struct HCITime: Sendable, Hashable {
    /// The unit, in microseconds.
    let unit: Int64
    /// The counts the specification allows.
    let range: ClosedRange<UInt32>

    /// Advertising interval of LE Set Advertising Parameters (Vol 4 Part E §7.8.5): 0.625 ms,
    /// 20 ms – 10.24 s.
    static let advertisingInterval = HCITime(unit: 625, range: 0x0020...0x4000)
    /// Primary advertising interval of LE Set Extended Advertising Parameters (§7.8.53):
    /// 0.625 ms, 20 ms – 10,485.759375 s (24 bits).
    static let extendedAdvertisingInterval = HCITime(unit: 625, range: 0x00_0020...0xFF_FFFF)
    /// Scan interval and window of LE Set Scan Parameters and LE Create Connection (§7.8.10,
    /// §7.8.12): 0.625 ms, 2.5 ms – 10.24 s.
    static let scanInterval = HCITime(unit: 625, range: 0x0004...0x4000)
    /// Scan interval and window of LE Set Extended Scan Parameters and LE Extended Create
    /// Connection (§7.8.64, §7.8.66): 0.625 ms, 2.5 ms – 40.959375 s.
    static let extendedScanInterval = HCITime(unit: 625, range: 0x0004...0xFFFF)
    /// Connection interval (§7.8.12, §7.7.65.1, §7.7.65.3): 1.25 ms, 7.5 ms – 4 s.
    static let connectionInterval = HCITime(unit: 1250, range: 0x0006...0x0C80)
    /// Supervision timeout (§7.8.12, §7.7.65.1, §7.7.65.3): 10 ms, 100 ms – 32 s.
    static let supervisionTimeout = HCITime(unit: 10_000, range: 0x000A...0x0C80)
    /// Minimum and maximum connection event length (§7.8.12): 0.625 ms, 0 – 40.959375 s.
    static let connectionEventLength = HCITime(unit: 625, range: 0x0000...0xFFFF)
    /// How long an advertising set advertises (§7.8.56) and an extended scan lasts (§7.8.65):
    /// 10 ms, 10 ms – 655.35 s (0, "no limit", is a separate case of the API).
    static let enableDuration = HCITime(unit: 10_000, range: 0x0001...0xFFFF)
    /// Period of periodic extended scanning (§7.8.65): 1.28 s, 1.28 s – 83,884.8 s (0, "not
    /// periodic", is a separate case of the API).
    static let scanPeriod = HCITime(unit: 1_280_000, range: 0x0001...0xFFFF)
    /// Air time of the longest LL data PDU (LE Set Data Length §7.8.33, LE Data Length Change
    /// §7.7.65.7): 1 µs, 328 µs – 17,040 µs.
    static let packetTime = HCITime(unit: 1, range: 0x0148...0x4290)
    /// Periodic advertising interval in extended advertising reports (§7.7.65.13): 1.25 ms,
    /// 7.5 ms – 81.91875 s (0, "no periodic advertising", is a separate case of the API).
    static let periodicAdvertisingInterval = HCITime(unit: 1250, range: 0x0006...0xFFFF)

    /// `duration` in units: rounded to the nearest (a half unit up), clamped into ``range``.
    func count(_ duration: Duration) -> UInt32 {
        let (seconds, attoseconds) = duration.components
        let total = Int128(seconds) * 1_000_000_000_000_000_000 + Int128(attoseconds)
        let unitAttoseconds = Int128(unit) * 1_000_000_000_000
        let units = (total + unitAttoseconds / 2) / unitAttoseconds
        return UInt32(min(max(units, Int128(range.lowerBound)), Int128(range.upperBound)))
    }

    /// `duration` in units, for a 16-bit field (every 16-bit field's range fits in it).
    func count16(_ duration: Duration) -> UInt16 {
        UInt16(clamping: count(duration))
    }

    /// `duration` in units, or 0 — the specification's "none" or "no limit" — for `nil`.
    func count16(_ duration: Duration?) -> UInt16 {
        duration.map(count16) ?? 0
    }

    /// `count` units, exactly, in range or not.
    func duration(_ count: some BinaryInteger) -> Duration {
        .microseconds(Int64(count) * unit)
    }

    /// `count` units, or `nil` for 0 — the specification's "none" or "no limit".
    func durationUnlessZero(_ count: some BinaryInteger) -> Duration? {
        count == 0 ? nil : duration(count)
    }
}
