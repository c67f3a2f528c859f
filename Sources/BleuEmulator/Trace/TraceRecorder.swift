import DequeModule

/// The bus's bounded record of link events: the newest `capacity` of them.
struct TraceRecorder: Sendable {
    private(set) var events: Deque<LinkTraceEvent> = []
    private var nextSequence = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    var isEnabled: Bool { capacity > 0 }

    /// Records an event; the sequence number is assigned here.
    mutating func record(_ event: LinkTraceEvent) {
        guard capacity > 0 else { return }
        var event = event
        event.sequence = nextSequence
        nextSequence += 1
        if events.count == capacity { events.removeFirst() }
        events.append(event)
    }

    mutating func removeAll() {
        events.removeAll()
    }
}
