import Foundation
import BleuCore
@testable import BleuEmulator

/// Runs `body` while moving a manual clock forward until it finishes: virtual time for the
/// realistic link model, without sleeping. Each step goes to the next sleeper's deadline, or
/// `step` ahead if that comes first, after letting other tasks run. Model timestamps do not
/// depend on the steps (timers run at their own times); reactions of other tasks happen at
/// the clock's time when they run, usually the deadline of what they react to.
func drive<T: Sendable>(_ clock: ManualClock, step: Duration = .microseconds(250), limit: Duration = .seconds(120),
                        _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let finished = Locked(false)
    let task = Task {
        defer { finished.withLock { $0 = true } }
        return try await body()
    }
    var elapsed = Duration.zero
    while !finished.withLock({ $0 }), elapsed < limit {
        for _ in 0..<8 { await Task.yield() }
        if finished.withLock({ $0 }) { break }
        let now = clock.now
        let target = min(clock.nextDeadline ?? now.advanced(by: step), now.advanced(by: step))
        clock.advance(to: max(target, now.advanced(by: .nanoseconds(1))))
        elapsed += now.duration(to: clock.now)
    }
    if elapsed >= limit { task.cancel() }
    return try await task.value
}

/// Moves a manual clock forward by `duration` in steps, letting other tasks run between steps.
func run(_ clock: ManualClock, for duration: Duration, step: Duration = .microseconds(250)) async {
    var elapsed = Duration.zero
    while elapsed < duration {
        for _ in 0..<8 { await Task.yield() }
        clock.advance(by: min(step, duration - elapsed))
        elapsed += step
    }
    for _ in 0..<8 { await Task.yield() }
}
