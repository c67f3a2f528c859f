/// The physical throughput references of a BLE link (DESIGN.md; Core Spec Vol 6 Part B).
public enum LinkGoodput {
    /// The ATT payload one LL data PDU of `dataLength` bytes carries when a notification or a
    /// write command fills it exactly: the L2CAP basic header (4 bytes) and the ATT opcode and
    /// handle (3 bytes) come off.
    public static func attPayload(dataLength: Int) -> Int {
        dataLength - 4 - 3
    }

    /// The reference goodput, in kb/s, of unacknowledged ATT payload (notifications or write
    /// commands) when every exchange carries a full PDU and exchanges follow each other without
    /// a gap: a connection interval long enough that connection event boundaries do not matter.
    /// No MIC. LE 1M gives about 237 kb/s with 27-byte PDUs and 791 with 251; LE 2M 323 and 1402.
    public static func referenceKilobitsPerSecond(phy: PHY, dataLength: Int) -> Double {
        let bits = Double(attPayload(dataLength: dataLength) * 8)
        let microseconds = Double(AirTime.exchangeMicroseconds(payload: dataLength, phy: phy))
        return bits / microseconds * 1000
    }

    /// The goodput, in kb/s, of a saturated link with connection events: each event packs as
    /// many exchanges as fit in the interval (and at most `maximumExchangesPerEvent`), each
    /// carrying one full PDU.
    public static func connectionEventKilobitsPerSecond(phy: PHY, dataLength: Int, interval: Duration,
                                                        maximumExchangesPerEvent: Int = .max) -> Double {
        let exchange = AirTime.exchangeMicroseconds(payload: dataLength, phy: phy)
        let intervalMicroseconds = Int(interval.microsecondsRoundedDown)
        let perEvent = min(maximumExchangesPerEvent, max(1, intervalMicroseconds / exchange))
        let bits = Double(perEvent * attPayload(dataLength: dataLength) * 8)
        return bits / Double(intervalMicroseconds) * 1000
    }
}

extension Duration {
    /// Whole nanoseconds (rounded towards zero).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Whole microseconds (rounded towards zero).
    var microsecondsRoundedDown: Int64 {
        nanoseconds / 1000
    }

    /// The duration in seconds, as a `Double`.
    var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
