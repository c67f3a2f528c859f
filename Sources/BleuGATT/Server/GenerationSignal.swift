import BleuCore

/// A counter that tasks wait on: ``wait(after:)`` returns once the count has moved past the
/// value the waiter read before it decided to wait, so an advance between the read and the
/// wait is never missed. Waiters are resumed with an error when the signal fails, and with
/// `CancellationError` when their task is cancelled. Holds one entry per waiting task.
final class GenerationSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var failure: (any Error)?
        var nextWaiter = 0
        var waiters: [Int: (after: UInt64, continuation: CheckedContinuation<Void, any Error>)] = [:]
    }

    private let state = Locked(State())

    /// The current count: read it before the attempt whose failure makes you wait.
    var current: UInt64 { state.withLock { $0.generation } }

    /// Moves the count on and resumes every waiter.
    func advance() {
        let resumed = state.withLock { state in
            state.generation += 1
            defer { state.waiters.removeAll() }
            return state.waiters.values.map(\.continuation)
        }
        for continuation in resumed { continuation.resume() }
    }

    /// Resumes the tasks waiting now with `error`; later waiters wait as usual.
    func failWaiters(_ error: any Error) {
        let resumed = state.withLock { state in
            defer { state.waiters.removeAll() }
            return state.waiters.values.map(\.continuation)
        }
        for continuation in resumed { continuation.resume(throwing: error) }
    }

    /// Resumes every waiter, now and later, with `error`; a later ``advance()`` does not undo it.
    func fail(_ error: any Error) {
        let resumed = state.withLock { state in
            state.failure = error
            defer { state.waiters.removeAll() }
            return state.waiters.values.map(\.continuation)
        }
        for continuation in resumed { continuation.resume(throwing: error) }
    }

    /// Returns once the count is past `generation`; throws the failure, or `CancellationError`.
    func wait(after generation: UInt64) async throws {
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
