import Bleu
import BleuCore
import Distributed
import Foundation

/// Streams readings: a fixed number, endlessly, or until it fails. It counts the elements its
/// sources produced, so tests can check back-pressure and cancellation.
public distributed actor StreamingSensorActor: PeripheralActor {
    public typealias ActorSystem = BLEActorSystem
    private let counter = ProductionCounter()

    public init(actorSystem: BLEActorSystem) {
        self.actorSystem = actorSystem
    }

    /// `count` readings: 20.0, 20.5, 21.0, …
    public distributed func readings(count: Int) -> BLEStream<Double> {
        BLEStream(Readings(limit: count, failAfter: nil, counter: counter).map { 20 + Double($0) / 2 })
    }

    /// 0, 1, 2, … until the consumer stops.
    public distributed func endless() -> BLEStream<Int> {
        BLEStream(Readings(limit: nil, failAfter: nil, counter: counter))
    }

    /// `count` integers, then ``ExampleFailure`` (code 9).
    public distributed func failing(after count: Int) -> BLEStream<Int> {
        BLEStream(Readings(limit: nil, failAfter: count, counter: counter))
    }

    /// Elements produced by every source so far.
    public distributed func produced() -> Int { counter.value }

    /// Sources whose iteration ended (finished, failed or cancelled).
    public distributed func endedSources() -> Int { counter.ended }
}

/// Counts what the sources did.
final class ProductionCounter: Sendable {
    private let state = Locked((produced: 0, ended: 0))
    var value: Int { state.withLock { $0.produced } }
    var ended: Int { state.withLock { $0.ended } }
    func produce() { state.withLock { $0.produced += 1 } }
    func end() { state.withLock { $0.ended += 1 } }
}

/// 0, 1, 2, … pulled one at a time (so the producer goes no faster than its consumer).
struct Readings: AsyncSequence, Sendable {
    typealias Element = Int
    let limit: Int?
    let failAfter: Int?
    let counter: ProductionCounter

    struct AsyncIterator: AsyncIteratorProtocol {
        let source: Readings
        var next = 0
        var ended = false
        /// Counts the source as ended when its iteration is dropped early (cancelled).
        private let lifetime: Lifetime

        init(source: Readings) {
            self.source = source
            self.lifetime = Lifetime(counter: source.counter)
        }

        final class Lifetime: Sendable {
            let counter: ProductionCounter
            let ended = Locked(false)
            init(counter: ProductionCounter) { self.counter = counter }
            func end() {
                if ended.withLock({ ended in defer { ended = true }; return !ended }) { counter.end() }
            }
            deinit { end() }
        }

        mutating func next() async throws -> Int? {
            guard !ended else { return nil }
            if Task.isCancelled || (source.limit.map { next >= $0 } ?? false) {
                ended = true
                lifetime.end()
                return nil
            }
            if let failAfter = source.failAfter, next >= failAfter {
                ended = true
                lifetime.end()
                throw ExampleFailure(code: 9, reason: "the sensor failed after \(failAfter) readings")
            }
            await Task.yield()
            defer { next += 1 }
            source.counter.produce()
            return next
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: self) }
}
