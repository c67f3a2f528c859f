import DequeModule

/// When Link Layer exchanges go on air for the connections of one central's radio: a pure
/// value, fed with submissions and answering with air slots.
///
/// The rules (see Docs/EmulatorLinkModel.md):
/// - A connection has anchor points every connection interval. Data goes in connection
///   events that start at an anchor; an event holds back-to-back exchanges (one data packet,
///   T_IFS, its empty acknowledgement, T_IFS) and ends before the connection's next anchor, or
///   earlier at the next anchor of another connection of the same radio, or after
///   `maximumExchangesPerEvent` exchanges.
/// - A packet joins the latest event of its connection when that event has not started yet, or
///   when the sender is still streaming in that direction (the previous packet is still on air:
///   the MD bit keeps the event open) and it still fits. Otherwise it waits for the next
///   anchor. So an answer to a request goes one event later, and an acknowledged operation
///   completes at most once per two connection intervals.
/// - One radio: events of different connections never overlap. A new event that would overlap
///   another connection's event is skipped to the next anchor, as a controller skips a
///   conflicting event. New connections get anchors in the middle of the largest free gap.
public struct RadioSchedule: Sendable {
    /// Which way a packet goes.
    public enum Direction: Int, Sendable, Hashable, CaseIterable {
        case centralToPeripheral = 0
        case peripheralToCentral = 1
    }

    /// A connection event that carries data.
    public struct Event: Sendable, Hashable {
        /// The anchor the event starts at.
        public var start: Duration
        /// When its last exchange ends.
        public var end: Duration
        /// How many exchanges it holds.
        public var exchanges: Int
    }

    struct Connection: Sendable {
        var firstAnchor: Duration
        var interval: Duration
        var maximumExchanges: Int
        /// Events with data, oldest first; the last one is kept even when past.
        var events: Deque<Event> = []
        /// When the last packet sent each way ends.
        var lastEnd: [Duration?] = [nil, nil]
    }

    private var connections: [Int: Connection] = [:]

    public init() {}

    /// Adds a connection created at `time` and returns its first anchor: `time` itself on an
    /// idle radio, else the middle of the largest gap between the other connections' anchors.
    @discardableResult
    public mutating func addConnection(_ id: Int, interval: Duration, maximumExchangesPerEvent: Int,
                                       at time: Duration) -> Duration {
        precondition(interval > .zero, "the connection interval must be positive")
        let period = interval.nanoseconds
        let phases = connections.values.map { positiveModulo($0.firstAnchor.nanoseconds, period) }.sorted()
        var first = time
        if !phases.isEmpty {
            var bestStart = phases[phases.count - 1]
            var bestGap = phases[0] + period - phases[phases.count - 1]
            for (a, b) in zip(phases, phases.dropFirst()) where b - a > bestGap {
                bestStart = a
                bestGap = b - a
            }
            let phase = positiveModulo(bestStart + bestGap / 2, period) / 1000 * 1000
            let now = time.nanoseconds
            var candidate = now - positiveModulo(now, period) + phase
            if candidate < now { candidate += period }
            first = .nanoseconds(candidate)
        }
        connections[id] = Connection(firstAnchor: first, interval: interval,
                                     maximumExchanges: max(1, maximumExchangesPerEvent))
        return first
    }

    /// Removes a connection; its future events are forgotten.
    public mutating func removeConnection(_ id: Int) {
        connections.removeValue(forKey: id)
    }

    /// The first anchor of connection `id` at or after `time`.
    public func anchor(of id: Int, atOrAfter time: Duration) -> Duration? {
        connections[id].map { nextAnchor($0, atOrAfter: time) }
    }

    /// Places an exchange of length `exchange` sent `direction` on connection `id`, submitted
    /// at `time`, and returns when it starts on air (it ends `exchange` later).
    public mutating func place(exchange: Duration, on id: Int, direction: Direction, at time: Duration) -> Duration {
        guard var connection = connections[id] else { return time }
        while connection.events.count > 1, let first = connection.events.first, first.end <= time {
            connection.events.removeFirst()
        }
        let start: Duration
        if let joined = join(&connection, id: id, exchange: exchange, direction: direction, at: time) {
            start = joined
        } else {
            start = openEvent(&connection, id: id, exchange: exchange, at: time)
        }
        connection.lastEnd[direction.rawValue] = start + exchange
        connections[id] = connection
        return start
    }

    private func join(_ connection: inout Connection, id: Int, exchange: Duration,
                      direction: Direction, at time: Duration) -> Duration? {
        guard var last = connection.events.last, last.exchanges < connection.maximumExchanges else { return nil }
        let streaming = (connection.lastEnd[direction.rawValue] ?? .zero) > time
        guard streaming || last.start >= time else { return nil }
        let start = last.end
        guard start + exchange <= limit(ofEventAt: last.start, in: connection, id: id) else { return nil }
        last.end = start + exchange
        last.exchanges += 1
        connection.events[connection.events.count - 1] = last
        return start
    }

    private func openEvent(_ connection: inout Connection, id: Int, exchange: Duration, at time: Duration) -> Duration {
        var earliest = time
        if let last = connection.events.last { earliest = max(earliest, last.end) }
        var anchor = nextAnchor(connection, atOrAfter: earliest)
        if let last = connection.events.last, anchor <= last.start { anchor = last.start + connection.interval }
        while conflicts(start: anchor, end: anchor + exchange, except: id) {
            anchor += connection.interval
        }
        connection.events.append(Event(start: anchor, end: anchor + exchange, exchanges: 1))
        return anchor
    }

    /// Where an event starting at `start` must end: the connection's next anchor, or the next
    /// anchor of another connection on the radio if that comes first.
    private func limit(ofEventAt start: Duration, in connection: Connection, id: Int) -> Duration {
        var limit = start + connection.interval
        for (other, peer) in connections where other != id {
            let next = nextAnchor(peer, atOrAfter: start + .nanoseconds(1))
            limit = min(limit, next)
        }
        return limit
    }

    private func conflicts(start: Duration, end: Duration, except id: Int) -> Bool {
        for (other, peer) in connections where other != id {
            for event in peer.events.reversed() {
                if event.end <= start { break }
                if event.start < end { return true }
            }
        }
        return false
    }

    private func nextAnchor(_ connection: Connection, atOrAfter time: Duration) -> Duration {
        if time <= connection.firstAnchor { return connection.firstAnchor }
        let period = connection.interval.nanoseconds
        let offset = (time - connection.firstAnchor).nanoseconds
        let count = (offset + period - 1) / period
        return connection.firstAnchor + .nanoseconds(count * period)
    }

    private func positiveModulo(_ value: Int64, _ period: Int64) -> Int64 {
        let r = value % period
        return r < 0 ? r + period : r
    }
}
