import Foundation
import Testing
@testable import BleuCore

@Suite("EventBroadcaster")
struct EventBroadcasterTests {
    @Test("every subscriber receives every later event, in order, after its initial events")
    func fanOut() async {
        let broadcaster = EventBroadcaster<Int>()
        let a = broadcaster.subscribe(initial: { [-1] })
        let b = broadcaster.subscribe()
        for i in 0..<100 { broadcaster.yield(i) }
        broadcaster.finish()
        var receivedA: [Int] = []
        for await value in a { receivedA.append(value) }
        var receivedB: [Int] = []
        for await value in b { receivedB.append(value) }
        #expect(receivedA == [-1] + Array(0..<100))
        #expect(receivedB == Array(0..<100))
    }

    @Test("a subscriber that stops iterating is removed")
    func removal() async {
        let broadcaster = EventBroadcaster<Int>()
        let task = Task {
            for await _ in broadcaster.subscribe() {}
        }
        while broadcaster.subscriberCount == 0 { await Task.yield() }
        task.cancel()
        await task.value
        #expect(broadcaster.subscriberCount == 0)
    }

    /// A stream may end while a delivery holds the broadcaster's lock: its consumer's task is
    /// cancelled by a thread that holds that task's runtime lock, while the delivery waits for
    /// the same lock to wake the task. The end must not wait for the delivery (the two threads
    /// would wait on each other). `initial` runs under the delivery lock, so a stream dropped
    /// there ends exactly then; waiting for the lock there stops the process (the lock checks).
    @Test("a stream that ends during a delivery does not wait for it, and is removed")
    func endDuringDelivery() async {
        let broadcaster = EventBroadcaster<Int>()
        var first: AsyncStream<Int>? = broadcaster.subscribe()
        #expect(first != nil)
        #expect(broadcaster.subscriberCount == 1)
        let second = broadcaster.subscribe(initial: {
            first = nil
            return [-1]
        })
        #expect(broadcaster.subscriberCount == 1)
        broadcaster.yield(0)
        broadcaster.finish()
        var received: [Int] = []
        for await value in second { received.append(value) }
        #expect(received == [-1, 0])
    }

    @Test("a slow subscriber keeps the newest events up to the bound")
    func bound() async {
        let broadcaster = EventBroadcaster<Int>(bufferLimit: 10)
        let stream = broadcaster.subscribe()
        for i in 0..<100 { broadcaster.yield(i) }
        broadcaster.finish()
        var received: [Int] = []
        for await value in stream { received.append(value) }
        #expect(received == Array(90..<100))
    }

    @Test("subscribing after finish yields only the initial events")
    func afterFinish() async {
        let broadcaster = EventBroadcaster<String>()
        broadcaster.finish()
        var received: [String] = []
        for await value in broadcaster.subscribe(initial: { ["state"] }) { received.append(value) }
        #expect(received == ["state"])
    }
}

@Suite("SeededRandomNumberGenerator")
struct SeededRandomNumberGeneratorTests {
    @Test("the same seed gives the same sequence; different seeds differ")
    func determinism() {
        var a = SeededRandomNumberGenerator(seed: 42)
        var b = SeededRandomNumberGenerator(seed: 42)
        var c = SeededRandomNumberGenerator(seed: 43)
        let sa = (0..<100).map { _ in a.next() }
        let sb = (0..<100).map { _ in b.next() }
        let sc = (0..<100).map { _ in c.next() }
        #expect(sa == sb)
        #expect(sa != sc)
        #expect(Set(sa).count == 100)
    }

    @Test("xoshiro256** reference output for SplitMix64-expanded seed 0")
    func reference() {
        // First SplitMix64 outputs from state 0 (Vigna's reference): these seed the state.
        var rng = SeededRandomNumberGenerator(seed: 0)
        let first = rng.next()
        // s1 = 0x6E789E6AA1B965F4 → rotl(s1 * 5, 7) * 9
        let s1: UInt64 = 0x6E78_9E6A_A1B9_65F4
        let x = s1 &* 5
        #expect(first == ((x << 7) | (x >> 57)) &* 9)
    }

    @Test("roughly uniform")
    func uniform() {
        var rng = SeededRandomNumberGenerator(seed: 7)
        var buckets = [Int](repeating: 0, count: 10)
        for _ in 0..<100_000 { buckets[Int.random(in: 0..<10, using: &rng)] += 1 }
        #expect(buckets.allSatisfy { (9_000...11_000).contains($0) })
    }
}
