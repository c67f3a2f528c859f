import BleuCore

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

    /// Callers waiting for a permit (for tests).
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    func acquire() async throws {
        if Task.isCancelled { throw BleuError.cancelled }
        // A free permit and nobody waiting (every call of a sequential caller): taken without
        // a continuation or a cancellation handler.
        let id: Int? = state.withLock { state in
            if state.available > 0, state.waiters.isEmpty {
                state.available -= 1
                return nil
            }
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        guard let id else { return }
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
