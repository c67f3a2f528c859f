/// Deadlines of many waits watched by one task on an ``ElapsedClock``: each wait adds its
/// deadline with what to do when it passes, and removes it when it ends first.
///
/// A timer task per wait costs a task, a clock registration and a cancellation on every wait
/// (three scheduled jobs for a call that takes microseconds). Here one task sleeps until the
/// earliest deadline: a wait whose deadline is later than the one the task sleeps until (the
/// common case: waits of the same timeout, one after the other) only takes a lock to add and
/// one to remove, and the task wakes once per timeout period at most to find the next.
package final class Deadlines: Sendable {
    /// What ``add(at:_:)`` returns, to ``remove(_:)`` the deadline.
    package struct Token: Sendable, Hashable {
        fileprivate let value: UInt64
    }

    private struct Entry {
        var token: UInt64
        var deadline: Duration
        var expire: @Sendable () -> Void
    }

    private struct State {
        var next: UInt64 = 0
        var entries: [Entry] = []
        /// The deadline the watching task sleeps until, while one runs.
        var watching: Duration?
        var watcher: Task<Void, Never>?
        /// Which task is the watching one: a replaced task may still wake before its cancellation.
        var generation: UInt64 = 0
        var closed = false
    }

    private let clock: ElapsedClock
    private let state = Locked(State())

    package init(clock: ElapsedClock) {
        self.clock = clock
    }

    deinit {
        state.withLock { $0.watcher }?.cancel()
    }

    /// How many deadlines are registered (for tests of boundedness).
    package var count: Int { state.withLock { $0.entries.count } }

    /// Runs `expire` once `deadline` (elapsed time on the clock) passes, unless the deadline
    /// is removed first. After ``close()`` nothing is registered and `expire` never runs.
    package func add(at deadline: Duration, _ expire: @escaping @Sendable () -> Void) -> Token {
        let (token, stale) = state.withLock { state -> (UInt64, Task<Void, Never>?) in
            state.next &+= 1
            guard !state.closed else { return (state.next, nil) }
            state.entries.append(Entry(token: state.next, deadline: deadline, expire: expire))
            if let watching = state.watching, watching <= deadline { return (state.next, nil) }
            // No task watches, or it sleeps past this deadline: a new one sleeps until this one.
            let stale = state.watcher
            state.watching = deadline
            state.generation &+= 1
            let generation = state.generation
            state.watcher = Task { [weak self] in await self?.watch(from: deadline, generation: generation) }
            return (state.next, stale)
        }
        stale?.cancel()
        return Token(value: token)
    }

    /// Forgets a deadline; its `expire` does not run (if it has not already).
    package func remove(_ token: Token) {
        state.withLock { state in
            if let index = state.entries.firstIndex(where: { $0.token == token.value }) {
                state.entries.remove(at: index)
            }
        }
    }

    /// Forgets every deadline and stops watching; later deadlines are not registered.
    package func close() {
        let watcher = state.withLock { state -> Task<Void, Never>? in
            state.closed = true
            state.generation &+= 1
            state.entries.removeAll()
            state.watching = nil
            defer { state.watcher = nil }
            return state.watcher
        }
        watcher?.cancel()
    }

    /// The watching task: sleeps until the earliest deadline, runs the ones that passed, and
    /// goes on until none is left (or a task watching an earlier deadline replaces it).
    private func watch(from first: Duration, generation: UInt64) async {
        var target = first
        while true {
            do {
                try await clock.sleep(until: target)
            } catch {
                return  // cancelled: replaced by a task watching an earlier deadline, or closed
            }
            let now = clock.now()
            let (expired, next) = state.withLock { state -> ([@Sendable () -> Void], Duration?) in
                guard state.generation == generation, !state.closed else { return ([], nil) }
                var expired: [@Sendable () -> Void] = []
                state.entries.removeAll { entry in
                    guard entry.deadline <= now else { return false }
                    expired.append(entry.expire)
                    return true
                }
                let next = state.entries.map(\.deadline).min()
                state.watching = next
                if next == nil { state.watcher = nil }
                return (expired, next)
            }
            for expire in expired { expire() }
            guard let next else { return }
            target = next
        }
    }
}
