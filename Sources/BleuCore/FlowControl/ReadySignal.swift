/// "Something tasks wait for has happened again", as a count of events: the radio's queue has
/// room again (its main use), or a server hosted another service. A waiter reads
/// ``generation`` before the attempt that may find the condition unmet (the queue full, the
/// handle unknown), then ``wait(after:)`` returns once a later event came — so an event between
/// the failed attempt and the wait is never missed. Whoever watches for the events calls
/// ``signal()``.
///
/// Waiters are resumed with an error when the signal fails (``failWaiters(_:)`` for those
/// waiting now, ``close(_:)`` for good), and with `CancellationError` when their task is
/// cancelled. Holds one entry per waiting task.
package final class ReadySignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var failure: (any Error)?
        var nextWaiter = 0
        var waiters: [Int: (after: UInt64, continuation: CheckedContinuation<Void, any Error>)] = [:]
    }

    private let state = Locked(State())

    package init() {}

    /// The count of ready events so far: read it before the attempt whose failure makes you wait.
    package var generation: UInt64 { state.withLock { $0.generation } }

    /// A ready event: moves the count on and resumes every waiter.
    package func signal() {
        let resumed = state.withLock { state in
            state.generation += 1
            defer { state.waiters.removeAll() }
            return state.waiters.values.map(\.continuation)
        }
        for continuation in resumed { continuation.resume() }
    }

    /// Resumes the tasks waiting now with `error`; later waiters wait as usual.
    package func failWaiters(_ error: any Error) {
        let resumed = state.withLock { state in
            defer { state.waiters.removeAll() }
            return state.waiters.values.map(\.continuation)
        }
        for continuation in resumed { continuation.resume(throwing: error) }
    }

    /// Resumes every waiter, now and later, with `error`; a later ``signal()`` does not undo it.
    package func close(_ error: any Error) {
        let resumed = state.withLock { state in
            state.failure = error
            defer { state.waiters.removeAll() }
            return state.waiters.values.map(\.continuation)
        }
        for continuation in resumed { continuation.resume(throwing: error) }
    }

    /// Returns once the count is past `generation`; throws the failure, or `CancellationError`.
    package func wait(after generation: UInt64) async throws {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wait, resume, fail(any Error) }
                let outcome: Outcome = state.withLock { state in
                    if let failure = state.failure { return .fail(failure) }
                    if state.generation > generation || Task.isCancelled { return .resume }
                    state.waiters[id] = (generation, continuation)
                    return .wait
                }
                switch outcome {
                case .wait: break
                case .resume: continuation.resume()
                case .fail(let error): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }
}
