import BleuCore

/// The receiving end of one stream: a bounded queue of encoded elements, and the consumer
/// waiting on it. A remote stream's producer sends only as many elements as it was given
/// credits for, so the queue never holds more than its capacity; a producer that overruns it
/// ends the stream with ``BleuCore/BleuError/bufferOverflow(_:)``.
final class StreamInbox: Sendable {
    enum Event: Sendable {
        case element([UInt8])
        case end
        case failure(any Error)
    }

    private struct State {
        var queue: [[UInt8]] = []
        var ending: Event?
        var consumer: CheckedContinuation<Event, Never>?
        /// A local producer waiting for room.
        var producer: CheckedContinuation<Bool, Never>?
        var cancelled = false
    }

    let capacity: Int
    private let state = Locked(State())
    /// Called once when the consumer stops before the end (to tell the producer).
    private let onCancel: @Sendable () -> Void
    /// Called after the consumer took an element (to give the producer credit).
    private let onDequeue: @Sendable () -> Void

    init(capacity: Int, onCancel: @escaping @Sendable () -> Void, onDequeue: @escaping @Sendable () -> Void = {}) {
        self.capacity = max(1, capacity)
        self.onCancel = onCancel
        self.onDequeue = onDequeue
    }

    /// A remote element arrived. Returns `false` (and fails the stream) past the capacity.
    @discardableResult
    func push(_ element: [UInt8]) -> Bool {
        let (consumer, overflow): (CheckedContinuation<Event, Never>?, Bool) = state.withLock { state in
            guard state.ending == nil, !state.cancelled else { return (nil, false) }
            if let consumer = state.consumer {
                state.consumer = nil
                return (consumer, false)
            }
            guard state.queue.count < capacity else { return (nil, true) }
            state.queue.append(element)
            return (nil, false)
        }
        if overflow {
            finish(.failure(BleuError.bufferOverflow(.streamCredit(capacity))))
            return false
        }
        consumer?.resume(returning: .element(element))
        return true
    }

    /// A local producer's element: waits while the queue is full. Returns `false` once the
    /// consumer is gone.
    func pushWaiting(_ element: [UInt8]) async -> Bool {
        while true {
            let outcome: Bool? = state.withLock { state in
                if state.cancelled || state.ending != nil { return false }
                if state.consumer != nil || state.queue.count < capacity { return true }
                return nil
            }
            if outcome == false { return false }
            if outcome == true { return push(element) }
            let proceed = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now: Bool? = state.withLock { state in
                    if state.cancelled || state.ending != nil { return false }
                    if state.consumer != nil || state.queue.count < capacity { return true }
                    state.producer = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
            if !proceed { return false }
        }
    }

    /// The stream ended (normally, or with an error) after the elements already queued.
    func finish(_ ending: Event) {
        let (consumer, producer) = state.withLock { state -> (CheckedContinuation<Event, Never>?, CheckedContinuation<Bool, Never>?) in
            guard state.ending == nil else { return (nil, nil) }
            state.ending = ending
            defer {
                state.consumer = nil
                state.producer = nil
            }
            return (state.consumer, state.producer)
        }
        consumer?.resume(returning: ending)
        producer?.resume(returning: false)
    }

    /// The next event for the consumer; cancelling the waiting task cancels the stream.
    func next() async -> Event {
        let event = await take()
        if case .element = event { onDequeue() }
        return event
    }

    private func take() async -> Event {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Event, Never>) in
                let (now, producer): (Event?, CheckedContinuation<Bool, Never>?) = state.withLock { state in
                    if state.cancelled { return (.end, nil) }
                    if !state.queue.isEmpty {
                        let producer = state.producer
                        state.producer = nil
                        return (.element(state.queue.removeFirst()), producer)
                    }
                    if let ending = state.ending { return (ending, nil) }
                    state.consumer = continuation
                    let producer = state.producer
                    state.producer = nil
                    return (nil, producer)
                }
                producer?.resume(returning: true)
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// The consumer stopped: drops what is queued and tells the producer (once), unless the
    /// stream had ended anyway.
    func cancel() {
        let (notify, consumer, producer) = state.withLock { state -> (Bool, CheckedContinuation<Event, Never>?, CheckedContinuation<Bool, Never>?) in
            guard !state.cancelled else { return (false, nil, nil) }
            state.cancelled = true
            state.queue.removeAll()
            defer {
                state.consumer = nil
                state.producer = nil
            }
            return (state.ending == nil, state.consumer, state.producer)
        }
        consumer?.resume(returning: .end)
        producer?.resume(returning: false)
        if notify { onCancel() }
    }
}
