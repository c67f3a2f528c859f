import BleuCore
import Foundation
import Testing

@testable import Bleu

/// The actor system's small synchronisation types: each has a path that takes no continuation
/// when nothing waits, and a path that queues; both must keep their guarantees.
@Suite("Synchronisation primitives", .timeLimit(.minutes(1)))
struct SynchronizationTests {
    /// Waits (yielding, bounded) until `condition` holds.
    private func until(_ condition: () -> Bool) async {
        for _ in 0..<100_000 {
            if condition() { return }
            await Task.yield()
        }
    }

    @Test("SerialGate: a free gate is taken at once; a busy one queues callers, first come first served, one at a time")
    func gateOrder() async throws {
        let gate = SerialGate()
        let log = Locked<[String]>([])
        let (release, holding) = AsyncStream.makeStream(of: Void.self)
        var releaseIterator = release.makeAsyncIterator()
        let entered = Locked(false)
        let holder = Task {
            try await gate.run {
                log.withLock { $0.append("holder in") }
                entered.withLock { $0 = true }
                _ = await releaseIterator.next()
                log.withLock { $0.append("holder out") }
            }
        }
        await until { entered.withLock { $0 } }
        var waiters: [Task<Void, any Error>] = []
        for index in 0..<3 {
            waiters.append(Task {
                try await gate.run { log.withLock { $0.append("waiter \(index)") } }
            })
            // Each waiter queues before the next is started.
            await until { gate.waitingCount == index + 1 }
        }
        #expect(log.withLock { $0 } == ["holder in"], "no waiter ran while the gate was held")
        holding.yield()
        try await holder.value
        for waiter in waiters { try await waiter.value }
        #expect(log.withLock { $0 } == ["holder in", "holder out", "waiter 0", "waiter 1", "waiter 2"])
        #expect(gate.waitingCount == 0)
        // Free again: taken without waiting.
        let value = try await gate.run { 42 }
        #expect(value == 42)
    }

    @Test("AsyncSemaphore: permits are taken at once while free; a waiter gets the released one; a cancelled waiter leaves with cancelled and takes none")
    func semaphore() async throws {
        let semaphore = AsyncSemaphore(1)
        try await semaphore.acquire()
        let acquired = Locked(false)
        let waiter = Task {
            try await semaphore.acquire()
            acquired.withLock { $0 = true }
        }
        let cancelled = Task { try await semaphore.acquire() }
        await until { semaphore.waitingCount == 2 }
        #expect(!acquired.withLock { $0 }, "no permit was free")
        cancelled.cancel()
        await #expect(throws: BleuError.cancelled) { try await cancelled.value }
        #expect(semaphore.waitingCount == 1)
        semaphore.release()
        try await waiter.value
        #expect(acquired.withLock { $0 })
        // The waiter holds the only permit: a new caller waits until it is released.
        let third = Task { try await semaphore.acquire() }
        await until { semaphore.waitingCount == 1 }
        #expect(semaphore.waitingCount == 1)
        semaphore.release()
        try await third.value
        semaphore.release()
        // One permit free again, taken at once; a task already cancelled takes none.
        try await semaphore.acquire()
        semaphore.release()
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await semaphore.acquire()
        }
        await #expect(throws: BleuError.cancelled) { try await early.value }
        try await semaphore.acquire()
        #expect(semaphore.waitingCount == 0)
    }
}
