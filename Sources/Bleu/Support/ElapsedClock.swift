/// The configured clock read as the time since an origin: what the reassemblers' timeouts
/// run on, so a test's manual clock drives them too.
struct ElapsedClock: Sendable {
    private let read: @Sendable () -> Duration

    init(_ clock: any Clock<Duration>) {
        read = Self.reader(clock)
    }

    private static func reader<C: Clock>(_ clock: C) -> @Sendable () -> Duration where C.Duration == Duration {
        let origin = clock.now
        return { origin.duration(to: clock.now) }
    }

    /// Now, as an instant of this clock.
    var now: ElapsedInstant { ElapsedInstant(offset: read()) }
}

/// An instant of an ``ElapsedClock``: the time since its origin.
struct ElapsedInstant: InstantProtocol, Sendable, Hashable {
    var offset: Duration

    func advanced(by duration: Duration) -> ElapsedInstant { ElapsedInstant(offset: offset + duration) }
    func duration(to other: ElapsedInstant) -> Duration { other.offset - offset }
    static func < (lhs: ElapsedInstant, rhs: ElapsedInstant) -> Bool { lhs.offset < rhs.offset }
}
