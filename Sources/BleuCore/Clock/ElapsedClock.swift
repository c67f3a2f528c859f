/// An injected clock read as the time since an origin, with a way to sleep until such a time.
/// It erases the clock's type, so engines hold one value whatever clock a caller passes:
/// `ContinuousClock` in production, a ``ManualClock`` in tests, where timeouts, backoff and the
/// emulator's link timing then run in virtual time.
///
/// The one "time since origin" helper of the package: the emulator's scheduler, the actor
/// system's reassembly timeouts, the orchestrator's backoff and the HCI radio's timers use it.
package struct ElapsedClock: Sendable {
    private let read: @Sendable () -> Duration
    private let sleepUntil: @Sendable (Duration) async throws -> Void

    /// Wraps `clock`, of any type; its origin is now.
    package init(_ clock: any Clock<Duration>) {
        (read, sleepUntil) = Self.wrap(clock)
    }

    private static func wrap<C: Clock<Duration>>(_ clock: C)
        -> (@Sendable () -> Duration, @Sendable (Duration) async throws -> Void) {
        let origin = clock.now
        return ({ origin.duration(to: clock.now) },
                { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) })
    }

    /// The time since the origin.
    package func now() -> Duration { read() }

    /// Now, as an instant (for code generic over `InstantProtocol`, such as BleuWire's reassemblers).
    package var instant: ElapsedInstant { ElapsedInstant(offset: read()) }

    /// Sleeps until `deadline` (time since the origin); throws when the task is cancelled.
    package func sleep(until deadline: Duration) async throws { try await sleepUntil(deadline) }

    /// Sleeps for `duration` from now; throws when the task is cancelled.
    package func sleep(for duration: Duration) async throws { try await sleepUntil(read() + duration) }
}

/// An instant of an ``ElapsedClock``: the time since its origin.
package struct ElapsedInstant: InstantProtocol, Sendable, Hashable {
    package var offset: Duration

    package init(offset: Duration) { self.offset = offset }

    package func advanced(by duration: Duration) -> ElapsedInstant { ElapsedInstant(offset: offset + duration) }
    package func duration(to other: ElapsedInstant) -> Duration { other.offset - offset }
    package static func < (lhs: ElapsedInstant, rhs: ElapsedInstant) -> Bool { lhs.offset < rhs.offset }
}
