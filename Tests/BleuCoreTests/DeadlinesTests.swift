import Foundation
import Testing
@testable import BleuCore

@Suite("Deadlines")
struct DeadlinesTests {
    /// What expired, in order.
    final class Expired: Sendable {
        private let names = Locked<[String]>([])
        func record(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    /// Waits (yielding, bounded) until `condition` holds.
    private func until(_ condition: () -> Bool) async {
        for _ in 0..<100_000 {
            if condition() { return }
            await Task.yield()
        }
    }

    @Test("each deadline runs once it passes, in order, and only then")
    func inOrder() async {
        let clock = ManualClock()
        let deadlines = Deadlines(clock: ElapsedClock(clock))
        let expired = Expired()
        _ = deadlines.add(at: .seconds(1)) { expired.record("one") }
        _ = deadlines.add(at: .seconds(2)) { expired.record("two") }
        await until { clock.sleeperCount == 1 }
        #expect(clock.sleeperCount == 1, "one task watches both deadlines")
        clock.advance(by: .milliseconds(999))
        await until { clock.sleeperCount == 1 && clock.nextDeadline?.offset == .seconds(1) }
        #expect(expired.all.isEmpty)
        clock.advance(by: .milliseconds(501))
        await until { expired.all.count == 1 && clock.sleeperCount == 1 }
        #expect(expired.all == ["one"])
        #expect(deadlines.count == 1)
        clock.advance(by: .milliseconds(500))
        await until { expired.all.count == 2 }
        #expect(expired.all == ["one", "two"])
        await until { clock.sleeperCount == 0 }
        #expect(clock.sleeperCount == 0, "nothing watches once no deadline is left")
        #expect(deadlines.count == 0)
    }

    @Test("a removed deadline never runs; a later one after it still does")
    func removal() async {
        let clock = ManualClock()
        let deadlines = Deadlines(clock: ElapsedClock(clock))
        let expired = Expired()
        let first = deadlines.add(at: .seconds(1)) { expired.record("removed") }
        _ = deadlines.add(at: .seconds(3)) { expired.record("kept") }
        deadlines.remove(first)
        #expect(deadlines.count == 1)
        await until { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(2))
        // The watcher wakes at the removed deadline's time and sleeps again until the next.
        await until { clock.nextDeadline?.offset == .seconds(3) }
        #expect(expired.all.isEmpty)
        clock.advance(by: .seconds(1))
        await until { expired.all.count == 1 }
        #expect(expired.all == ["kept"])
    }

    @Test("a deadline earlier than the watched one is watched instead")
    func earlierReplaces() async {
        let clock = ManualClock()
        let deadlines = Deadlines(clock: ElapsedClock(clock))
        let expired = Expired()
        _ = deadlines.add(at: .seconds(10)) { expired.record("late") }
        await until { clock.nextDeadline?.offset == .seconds(10) }
        _ = deadlines.add(at: .seconds(1)) { expired.record("early") }
        await until { clock.nextDeadline?.offset == .seconds(1) && clock.sleeperCount == 1 }
        #expect(clock.sleeperCount == 1, "the task watching the later deadline was replaced")
        clock.advance(by: .seconds(1))
        await until { expired.all.count == 1 }
        #expect(expired.all == ["early"])
        await until { clock.nextDeadline?.offset == .seconds(10) }
        clock.advance(by: .seconds(9))
        await until { expired.all.count == 2 }
        #expect(expired.all == ["early", "late"])
    }

    @Test("after close nothing runs and nothing is registered")
    func closing() async {
        let clock = ManualClock()
        let deadlines = Deadlines(clock: ElapsedClock(clock))
        let expired = Expired()
        _ = deadlines.add(at: .seconds(1)) { expired.record("before") }
        await until { clock.sleeperCount == 1 }
        deadlines.close()
        _ = deadlines.add(at: .seconds(1)) { expired.record("after") }
        #expect(deadlines.count == 0)
        await until { clock.sleeperCount == 0 }
        #expect(clock.sleeperCount == 0, "the watching task ended")
        clock.advance(by: .seconds(5))
        for _ in 0..<100 { await Task.yield() }
        #expect(expired.all.isEmpty)
    }
}
