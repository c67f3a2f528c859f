import BleuATT
import BleuCore
import DequeModule

/// Fans a manager's events out to its event streams, in order, each stream with a bounded
/// buffer that drops its oldest events past the bound (the radio protocols' contract).
///
/// Unlike a plain `AsyncStream` buffer it knows when a consumer takes an event: an event may
/// carry a receipt (the link a write command came over), and the hub reports the receipt once
/// every stream has taken or dropped that event. The emulator frees a write-without-response
/// slot that way, so a fast central cannot outrun the peripheral's application.
///
/// Lock order: the engine's lock may be held while calling ``yield(_:receipt:)``,
/// ``setPrefix(_:)`` and ``finish()``, never the other way round: receipts a consumer completes
/// are reported through `onReceipts` after the hub's lock is released.
final class EventHub<Event: Sendable>: Sendable {
    /// Takes each event as it is yielded, with a closure to call once the event has been
    /// handled (which settles its receipt). It runs inside the engine: it must not block or
    /// call back into the bus synchronously.
    typealias Sink = @Sendable (Event, _ handled: @escaping @Sendable () -> Void) -> Void

    private struct Entry {
        var event: Event
        var receipt: UInt64?
    }

    private struct Subscriber {
        var buffer: Deque<Entry> = []
        var waiter: CheckedContinuation<Event?, Never>?
        /// Set for a pushed subscriber, which buffers nothing.
        var sink: Sink?
    }

    private struct State {
        var prefix: [Event] = []
        var subscribers: [Int: Subscriber] = [:]
        var nextSubscriber = 0
        var nextReceipt: UInt64 = 0
        /// Receipt → (link, streams still holding it).
        var receipts: [UInt64: (link: LinkID, holders: Int)] = [:]
        var finished = false
    }

    private let state = Locked(State())
    private let limit: Int
    private let onReceipts: @Sendable ([LinkID]) -> Void

    /// - Parameters:
    ///   - limit: the most events one stream buffers.
    ///   - onReceipts: called, outside any lock, with the links of receipts that consumers completed.
    init(limit: Int, onReceipts: @escaping @Sendable ([LinkID]) -> Void) {
        self.limit = max(1, limit)
        self.onReceipts = onReceipts
    }

    /// The events every new stream starts with (the current state, the restoration).
    func setPrefix(_ prefix: [Event]) {
        state.withLock { $0.prefix = prefix }
    }

    /// A new stream: the prefix, then every event yielded from now on.
    func subscribe() -> AsyncStream<Event> {
        let id: Int? = state.withLock { state in
            guard !state.finished else { return nil }
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[id] = Subscriber(buffer: Deque(state.prefix.map { Entry(event: $0, receipt: nil) }))
            return id
        }
        guard let id else {
            let prefix = state.withLock { $0.prefix }
            return AsyncStream { continuation in
                for event in prefix { continuation.yield(event) }
                continuation.finish()
            }
        }
        let release = Release { [weak self] in self?.remove(id) }
        return AsyncStream(unfolding: { [weak self] in
            withExtendedLifetime(release) {}
            return await self?.next(id)
        })
    }

    /// A pushed subscriber: `sink` gets the prefix at once, then every event yielded from now
    /// on, in order. Call it while holding the engine's lock so no event slips in between.
    /// Returns its number for ``unsubscribe(_:)``.
    func subscribe(sink: @escaping Sink) -> Int {
        state.withLock { state in
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            for event in state.prefix { sink(event, {}) }
            if !state.finished { state.subscribers[id] = Subscriber(sink: sink) }
            return id
        }
    }

    /// Removes a subscriber; events it had not handled settle their receipts.
    func unsubscribe(_ id: Int) {
        remove(id)
    }

    /// Delivers an event to every stream. With a `receipt` link, returns `false` when no stream
    /// holds the event (so the caller settles the receipt itself); the links of receipts
    /// completed by dropping old events come back in `completed`.
    @discardableResult
    func yield(_ event: Event, receipt link: LinkID? = nil) -> (held: Bool, completed: [LinkID]) {
        var resume: [CheckedContinuation<Event?, Never>] = []
        var pushes: [(sink: Sink, receipt: UInt64?)] = []
        let result: (Bool, [LinkID]) = state.withLock { state in
            guard !state.finished, !state.subscribers.isEmpty else { return (false, []) }
            var receipt: UInt64?
            if let link {
                receipt = state.nextReceipt
                state.nextReceipt += 1
                state.receipts[receipt!] = (link, state.subscribers.count)
            }
            var completed: [LinkID] = []
            for id in Array(state.subscribers.keys) {
                var subscriber = state.subscribers[id]!
                if let sink = subscriber.sink {
                    pushes.append((sink, receipt))
                } else if let waiter = subscriber.waiter {
                    subscriber.waiter = nil
                    resume.append(waiter)
                    if let receipt { _ = Self.settle(receipt, in: &state) }
                } else {
                    if subscriber.buffer.count >= limit, let dropped = subscriber.buffer.popFirst(),
                       let old = dropped.receipt, let done = Self.settle(old, in: &state) {
                        completed.append(done)
                    }
                    subscriber.buffer.append(Entry(event: event, receipt: receipt))
                }
                state.subscribers[id] = subscriber
            }
            return (receipt.map { state.receipts[$0] != nil } ?? true, completed)
        }
        for waiter in resume { waiter.resume(returning: event) }
        for push in pushes {
            guard let receipt = push.receipt else {
                push.sink(event, {})
                continue
            }
            push.sink(event, { [weak self] in self?.handled(receipt) })
        }
        return result
    }

    /// A pushed subscriber handled an event that carried a receipt.
    private func handled(_ receipt: UInt64) {
        let done = state.withLock { Self.settle(receipt, in: &$0) }
        if let done { onReceipts([done]) }
    }

    /// Ends every stream after the events it holds; later streams get only the prefix.
    func finish() {
        let waiters: [CheckedContinuation<Event?, Never>] = state.withLock { state in
            state.finished = true
            var waiters: [CheckedContinuation<Event?, Never>] = []
            for id in Array(state.subscribers.keys) where state.subscribers[id]!.waiter != nil {
                waiters.append(state.subscribers[id]!.waiter!)
                state.subscribers[id]!.waiter = nil
            }
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }

    /// How many streams are open.
    var subscriberCount: Int {
        state.withLock { $0.subscribers.count }
    }

    private func next(_ id: Int) async -> Event? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Event?, Never>) in
                var completed: [LinkID] = []
                let immediate: Event?? = state.withLock { state in
                    guard var subscriber = state.subscribers[id] else { return .some(nil) }
                    if let entry = subscriber.buffer.popFirst() {
                        state.subscribers[id] = subscriber
                        if let receipt = entry.receipt, let done = Self.settle(receipt, in: &state) { completed.append(done) }
                        return .some(entry.event)
                    }
                    if state.finished || Task.isCancelled || subscriber.waiter != nil { return .some(nil) }
                    subscriber.waiter = continuation
                    state.subscribers[id] = subscriber
                    return .none
                }
                if case .some(let event) = immediate { continuation.resume(returning: event) }
                if !completed.isEmpty { onReceipts(completed) }
            }
        } onCancel: {
            remove(id)
        }
    }

    private func remove(_ id: Int) {
        var completed: [LinkID] = []
        let waiter: CheckedContinuation<Event?, Never>? = state.withLock { state in
            guard let subscriber = state.subscribers.removeValue(forKey: id) else { return nil }
            for entry in subscriber.buffer {
                if let receipt = entry.receipt, let done = Self.settle(receipt, in: &state) { completed.append(done) }
            }
            return subscriber.waiter
        }
        waiter?.resume(returning: nil)
        if !completed.isEmpty { onReceipts(completed) }
    }

    /// One stream let go of an event with a receipt; returns the receipt's link once none holds it.
    private static func settle(_ receipt: UInt64, in state: inout State) -> LinkID? {
        guard var entry = state.receipts[receipt] else { return nil }
        entry.holders -= 1
        if entry.holders > 0 {
            state.receipts[receipt] = entry
            return nil
        }
        state.receipts.removeValue(forKey: receipt)
        return entry.link
    }
}

/// Runs a closure when released: ties cleanup to the lifetime of a stream's closure, so a
/// stream whose consumer let go of it is removed.
final class Release: Sendable {
    private let action: @Sendable () -> Void

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = action
    }

    deinit {
        action()
    }
}
