import BleuCore

/// An asynchronous mutual exclusion with first-come, first-served order: messages of one
/// direction of one channel are sent whole, one after the other.
final class SerialGate: Sendable {
    private struct State {
        var busy = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// Callers waiting for the gate (for tests).
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Runs `body` once every earlier caller finished.
    func run<T>(_ body: () async throws -> T) async throws -> T {
        // A free gate (every message of a sequential caller) is taken without a continuation.
        let taken = state.withLock { state in
            if state.busy { return false }
            state.busy = true
            return true
        }
        if !taken { await wait() }
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

    /// Waits for the gate: taken at once if it was freed meanwhile, else handed over by the
    /// caller before, in order.
    private func wait() async {
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
    }
}
