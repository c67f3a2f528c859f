import HeapModule

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

    /// The goodput, in kb/s, of `links` saturated connections sharing one central's radio
    /// (``RadioSchedule``), all at `interval`, each exchange carrying one full PDU: the limit a
    /// fleet on one radio can reach in this model.
    ///
    /// Computed by running a ``RadioSchedule`` in virtual time, with every connection keeping
    /// more exchanges queued than an event can hold, for 20 intervals or 2 s, whichever is
    /// longer. One connection gives ``connectionEventKilobitsPerSecond(phy:dataLength:interval:maximumExchangesPerEvent:)``.
    /// Many connections at a short interval give less than ``referenceKilobitsPerSecond(phy:dataLength:)``:
    /// an event ends before another connection's anchor, so when the anchors are closer
    /// together than one exchange each event carries one exchange, and the next event starts
    /// at the first free anchor after it — the rest of the gap is idle air. At LE 2M with
    /// 251-byte PDUs, 100 connections at 30 ms reach about 0.75 of the reference; at
    /// ``sharedRadioInterval(links:phy:dataLength:exchangesPerEvent:)`` nearly all of it.
    public static func sharedRadioKilobitsPerSecond(links: Int, phy: PHY, dataLength: Int, interval: Duration) -> Double {
        precondition(links >= 1, "at least one connection")
        let exchange = AirTime.exchange(payload: dataLength, phy: phy)
        let horizon = max(interval * 20, .seconds(2))
        var radio = RadioSchedule()
        for link in 0..<links {
            radio.addConnection(link, interval: interval, maximumExchangesPerEvent: .max, at: .zero)
        }
        // Each connection keeps more exchanges submitted than an interval holds, and submits
        // the next one when one ends (the sender streams: the MD bit keeps the event open while
        // it fits). The earliest submission is always the next to place.
        let depth = Int(interval.nanoseconds / max(1, exchange.nanoseconds)) + 2
        var submissions = Heap<Submission>()
        for link in 0..<links {
            for order in 0..<depth { submissions.insert(Submission(time: .zero, order: link * depth + order, link: link)) }
        }
        var order = links * depth
        var first: Duration?
        var last = Duration.zero
        var carried = 0
        while let next = submissions.popMin() {
            let start = radio.place(exchange: exchange, on: next.link, direction: .centralToPeripheral, at: next.time)
            guard start + exchange <= horizon else { continue }
            first = min(first ?? start, start)
            last = max(last, start + exchange)
            carried += 1
            submissions.insert(Submission(time: start + exchange, order: order, link: next.link))
            order += 1
        }
        guard let first, last > first else { return 0 }
        let bits = Double(carried * attPayload(dataLength: dataLength) * 8)
        return bits / (last - first).secondsValue / 1000
    }

    /// The shortest connection interval, a multiple of 1.25 ms within 7.5 ms–4 s, at which
    /// `links` connections on one central's radio each have room for `exchangesPerEvent` full
    /// exchanges in every event.
    ///
    /// ``RadioSchedule`` gives each new connection the middle of the largest gap between the
    /// others' anchors, so with n connections the closest anchors are interval / 2^⌈log₂ n⌉
    /// apart. The interval makes that gap hold the exchanges. This is the physics of a central
    /// with many links: its connection events share one radio, so the interval must grow with
    /// the number of links (100 links at LE 2M with 251-byte PDUs need 178.75 ms for one exchange
    /// each per event; at 30 ms the radio is oversubscribed more than four times, and events are
    /// skipped).
    public static func sharedRadioInterval(links: Int, phy: PHY, dataLength: Int, exchangesPerEvent: Int = 1) -> Duration {
        precondition(links >= 1 && exchangesPerEvent >= 1, "at least one connection and one exchange")
        var slots: Int64 = 1
        while slots < Int64(links) { slots *= 2 }
        let exchange = Int64(AirTime.exchangeMicroseconds(payload: dataLength, phy: phy))
        let needed = slots * Int64(exchangesPerEvent) * exchange
        let unit: Int64 = 1250
        let rounded = (needed + unit - 1) / unit * unit
        let clamped = min(max(rounded, EmulatorConfiguration.minimumConnectionInterval.microsecondsRoundedDown),
                          EmulatorConfiguration.maximumConnectionInterval.microsecondsRoundedDown)
        return .microseconds(clamped)
    }

    /// An exchange a saturated connection has submitted, ordered by time, then by submission.
    private struct Submission: Comparable {
        let time: Duration
        let order: Int
        let link: Int
        static func < (a: Submission, b: Submission) -> Bool { (a.time, a.order) < (b.time, b.order) }
    }
}

extension Duration {
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
