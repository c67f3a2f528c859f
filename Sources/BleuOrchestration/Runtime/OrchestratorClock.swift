/// The injected clock, reduced to what the engine needs: the time since its origin and a way
/// to sleep until such a time. Wraps any `Clock` whose durations are `Duration`, such as
/// `ContinuousClock` or a test's manual clock, so backoff never waits in real time in tests.
struct OrchestratorClock: Sendable {
    private let nowSinceOrigin: @Sendable () -> Duration
    private let sleepUntil: @Sendable (Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        nowSinceOrigin = { origin.duration(to: clock.now) }
        sleepUntil = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
    }

    /// The time since the clock was wrapped.
    func now() -> Duration { nowSinceOrigin() }

    /// Sleeps until `deadline` (time since the origin); throws when the task is cancelled.
    func sleep(until deadline: Duration) async throws { try await sleepUntil(deadline) }
}
