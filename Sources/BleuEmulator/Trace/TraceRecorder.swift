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

    /// Numbers an event and keeps it (when the recorder keeps any); returns it numbered.
    mutating func record(_ event: LinkTraceEvent) -> LinkTraceEvent {
        var event = event
        event.sequence = nextSequence
        nextSequence += 1
        guard capacity > 0 else { return event }
        if events.count == capacity { events.removeFirst() }
        events.append(event)
        return event
    }

    mutating func removeAll() {
        events.removeAll()
    }
}
