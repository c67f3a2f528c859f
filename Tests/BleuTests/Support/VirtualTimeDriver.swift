import BleuCore
import Foundation

/// Runs a world in virtual time: moves a ``ManualClock`` on to its next deadline whenever the
/// world has been idle for a moment — nothing new in `progress`, no sleeper added or woken on
/// the clock — so time passes only while everything waits on a timer.
///
/// Idle is judged from outside, so a task that is ready but not yet running when the world
/// looks idle (a loaded machine) sees the clock move on by at most `maximumStep` per
/// misjudgement: what depends on virtual time is late by that much, never by a far timeout.
final class VirtualTimeDriver: Sendable {
    let clock: ManualClock
    let maximumStep: Duration
    private let progress: @Sendable () -> UInt64
    private let task = Locked<Task<Void, Never>?>(nil)

    /// - Parameters:
    ///   - progress: A number that moves on whenever the world does something (the emulator
    ///     bus's activity, say, plus the test's own counters).
    init(clock: ManualClock, maximumStep: Duration, progress: @escaping @Sendable () -> UInt64) {
        self.clock = clock
        self.maximumStep = maximumStep
        self.progress = progress
    }

    deinit {
        task.withLock { $0 }?.cancel()
    }

    /// Starts moving the clock; ``stop()`` ends it.
    func start() {
        let clock = clock
        let maximumStep = maximumStep
        let progress = progress
        let driver = Task {
            struct Mark: Equatable {
                var progress: UInt64
                var sleepers: Int
                var deadline: ManualClock.Instant?
            }
            var last: Mark?
            var quiet = 0
            let poll = Duration.microseconds(500)
            while !Task.isCancelled {
                let mark = Mark(progress: progress(), sleepers: clock.sleeperCount, deadline: clock.nextDeadline)
                if mark == last {
                    quiet += 1
                } else {
                    last = mark
                    quiet = 0
                }
                // Three polls without a change: about 1.5 ms of a world with nothing to do.
                if quiet >= 3, let next = mark.deadline {
                    clock.advance(to: min(next, clock.now.advanced(by: maximumStep)))
                    last = nil
                    quiet = 0
                }
                do {
                    try await Task.sleep(for: poll)
                } catch {
                    return
                }
            }
        }
        task.withLock { $0 = driver }
    }

    /// Stops moving the clock.
    func stop() {
        task.withLock { $0 }?.cancel()
    }
}
