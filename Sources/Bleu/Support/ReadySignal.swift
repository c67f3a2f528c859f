import BleuCore

/// "The send queue has room again", as a counter of events: a sender reads ``generation``
/// before trying, and when the queue was full waits for a later generation — so an event that
/// arrives between the failed try and the wait is not missed. ``close(_:)`` fails the waiters
/// (the link went down).
final class ReadySignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var waiters: [(after: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var closed: (any Error)?
    }

    private let state = Locked(State())

    var generation: UInt64 { state.withLock { $0.generation } }

    /// The queue has room: wakes every waiter.
    func signal() {
        let waiters = state.withLock { state in
            state.generation += 1
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume() }
    }

    /// Waits until a generation after `generation` (returns at once if one came already).
    func wait(after generation: UInt64) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome: Result<Void, any Error>? = state.withLock { state in
                if let error = state.closed { return .failure(error) }
                if state.generation > generation { return .success(()) }
                state.waiters.append((generation, continuation))
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// Fails current and future waiters with `error`.
    func close(_ error: any Error) {
        let waiters = state.withLock { state in
            state.closed = error
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(throwing: error) }
    }
}

/// An asynchronous mutual exclusion with first-come, first-served order: messages of one
/// direction of one channel are sent whole, one after the other.
final class SerialGate: Sendable {
    private struct State {
        var busy = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// Runs `body` once every earlier caller finished.
    func run<T>(_ body: () async throws -> T) async throws -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = state.withLock { state in
                if state.busy {
                    state.waiters.append(continuation)
                    return false
                }
                state.busy = true
                return true
            }
            if now { continuation.resume() }
        }
        defer {
            let next: CheckedContinuation<Void, Never>? = state.withLock { state in
                if state.waiters.isEmpty {
                    state.busy = false
                    return nil
                }
                return state.waiters.removeFirst()
            }
            next?.resume()
        }
        return try await body()
    }
}

/// A counting semaphore for async callers, first come first served; a cancelled waiter leaves
/// the queue with `BleuError.cancelled`.
final class AsyncSemaphore: Sendable {
    private struct State {
        var available: Int
        var nextWaiter = 0
        var waiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    }

    private let state: Locked<State>

    init(_ permits: Int) {
        state = Locked(State(available: permits))
    }

    func acquire() async throws {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(BleuError.cancelled) }
                    if state.available > 0, state.waiters.isEmpty {
                        state.available -= 1
                        return .success(())
                    }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: BleuError.cancelled)
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if state.waiters.isEmpty {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume()
    }
}
