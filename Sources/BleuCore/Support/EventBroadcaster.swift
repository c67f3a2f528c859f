/// Fans events out to any number of `AsyncStream` subscribers, in order: the building block
/// backends use for ``CentralManager/events()`` and ``PeripheralManager/events()``.
///
/// Every subscriber receives every event yielded after it subscribed, in the order of the
/// `yield` calls. Each subscriber's buffer holds at most `bufferLimit` events; a subscriber
/// that falls further behind loses its oldest events. A stream whose consumer stops iterating
/// is removed.
///
/// Events are delivered under a lock, which is what keeps them in order. A stream's end never
/// waits for that lock: its consumer's task may end it while the runtime holds that task's own
/// lock (a cancellation), and a delivery holding ours may at that moment be waiting to wake the
/// same task — the two would wait on each other, and with them the threads of the cooperative
/// pool. An ended stream is noted on a lock of its own and dropped by the next delivery.
public final class EventBroadcaster<Event: Sendable>: Sendable {
    private struct State {
        var nextID = 0
        var continuations: [Int: AsyncStream<Event>.Continuation] = [:]
        var finished = false
    }

    /// The subscribers; held while delivering.
    private let state = Locked(State())
    /// Streams that ended since the last delivery. Taken inside `state`, never the other way.
    private let ended = Locked([Int]())
    private let bufferLimit: Int

    /// - Parameter bufferLimit: The most events one subscriber's buffer holds.
    public init(bufferLimit: Int = 4096) {
        precondition(bufferLimit > 0, "bufferLimit must be positive")
        self.bufferLimit = bufferLimit
    }

    /// A new stream of the events yielded from now on, preceded by `initial`.
    ///
    /// `initial` is computed and delivered under the same lock as `yield`, so no event can fall
    /// between it and the events that follow: pass the current state here.
    public func subscribe(initial: () -> [Event] = { [] }) -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self,
                                                            bufferingPolicy: .bufferingNewest(bufferLimit))
        let id: Int? = state.withLock { state in
            dropEnded(&state)
            for event in initial() { continuation.yield(event) }
            guard !state.finished else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.continuations[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [ended] _ in
            ended.withLock { $0.append(id) }
        }
        return stream
    }

    /// Delivers an event to every current subscriber.
    public func yield(_ event: Event) {
        state.withLock { state in
            dropEnded(&state)
            for continuation in state.continuations.values { continuation.yield(event) }
        }
    }

    /// Forgets the streams that ended; called holding `state`.
    private func dropEnded(_ state: inout State) {
        let gone = ended.withLock { ended in
            defer { ended.removeAll() }
            return ended
        }
        for id in gone { state.continuations.removeValue(forKey: id) }
    }

    /// Ends every stream; later subscribers get only their initial events.
    public func finish() {
        let continuations = state.withLock { state in
            state.finished = true
            defer { state.continuations.removeAll() }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    /// How many streams are subscribed.
    public var subscriberCount: Int {
        state.withLock { state in
            dropEnded(&state)
            return state.continuations.count
        }
    }
}
