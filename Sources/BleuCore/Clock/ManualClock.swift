/// A clock that moves only when told to: give it to an `EmulatorBus` to run the realistic
/// link model in virtual time, then ``advance(by:)`` it. Sleepers wake in deadline order.
///
/// ```swift
/// let clock = ManualClock()
/// let bus = EmulatorBus(configuration: .default, clock: clock)
/// // ... start operations, then:
/// clock.advance(by: .milliseconds(30))   // one connection interval passes
/// ```
public final class ManualClock: Clock, Sendable {
    /// A point on a manual clock: the time since the clock was created.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        /// The time since the clock's origin.
        public var offset: Duration

        public init(offset: Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
    }

    private let state = Locked(State())

    public init() {}

    /// The current instant; it changes only through ``advance(by:)`` and ``advance(to:)``.
    public var now: Instant {
        state.withLock { $0.now }
    }

    public var minimumResolution: Duration { .nanoseconds(1) }

    /// How many tasks are sleeping on the clock.
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    /// The earliest deadline a task sleeps until, if any.
    public var nextDeadline: Instant? {
        state.withLock { $0.sleepers.values.map(\.deadline).min() }
    }

    /// Suspends until the clock reaches `deadline`. Throws `CancellationError` when the task is
    /// cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id: Int? = state.withLock { state in
            guard deadline > state.now else { return nil }
            defer { state.nextID += 1 }
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let resumeNow { continuation.resume(with: resumeNow) }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration` and wakes every sleeper whose deadline passed,
    /// earliest first.
    public func advance(by duration: Duration) {
        let target = state.withLock { $0.now.advanced(by: max(.zero, duration)) }
        advance(to: target)
    }

    /// Moves the clock to `instant` (never backwards) and wakes every sleeper whose deadline
    /// passed, earliest first.
    public func advance(to instant: Instant) {
        let due: [Sleeper] = state.withLock { state in
            state.now = max(state.now, instant)
            let now = state.now
            let ids = state.sleepers.filter { $0.value.deadline <= now }.sorted { $0.value.deadline < $1.value.deadline }.map(\.key)
            return ids.compactMap { state.sleepers.removeValue(forKey: $0) }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
