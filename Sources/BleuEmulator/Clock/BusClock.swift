/// The bus's view of its clock: the time since the bus was created, and a way to sleep until
/// such a time. Erases the concrete clock type.
struct BusClock: Sendable {
    /// The time since the bus's origin.
    let now: @Sendable () -> Duration
    /// Sleeps until the given time since the origin.
    let sleep: @Sendable (Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        now = { origin.duration(to: clock.now) }
        sleep = { try await clock.sleep(until: origin.advanced(by: $0), tolerance: nil) }
    }
}
