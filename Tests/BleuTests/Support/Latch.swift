import Bleu
import Distributed
import Foundation

/// Lets a test know that a remote method is running, and when it ended.
final class Latch: Sendable {
    let entered: AsyncStream<Void>
    let ended: AsyncStream<Bool>
    private let enteredSink: AsyncStream<Void>.Continuation
    private let endedSink: AsyncStream<Bool>.Continuation

    init() {
        (entered, enteredSink) = AsyncStream.makeStream(of: Void.self)
        (ended, endedSink) = AsyncStream.makeStream(of: Bool.self)
    }

    func enter() { enteredSink.yield() }
    /// `true` when the method saw its task cancelled.
    func end(cancelled: Bool) { endedSink.yield(cancelled) }
}

/// A method that runs until its task is cancelled.
distributed actor BlockingActor: PeripheralActor {
    typealias ActorSystem = BLEActorSystem
    let latch: Latch

    init(actorSystem: BLEActorSystem, latch: Latch) {
        self.actorSystem = actorSystem
        self.latch = latch
    }

    distributed func block() async -> Int {
        latch.enter()
        let (never, _) = AsyncStream.makeStream(of: Int.self)
        for await _ in never {}
        latch.end(cancelled: Task.isCancelled)
        return -1
    }

    distributed func quick() -> Int { 7 }
}

/// A protocol with a generic method, which the runtime cannot execute through the stub.
/// Public, as `@Resolvable` protocols must be for release builds without `-enable-testing`
/// (the release test run enables testing, which would hide an internal one's problem).
@Resolvable
public protocol Wrapping: PeripheralActor {
    distributed func wrap<T: Codable & Sendable>(_ value: T) async throws -> [T]
    distributed func name() async throws -> String
}

distributed actor Wrapper: Wrapping {
    typealias ActorSystem = BLEActorSystem
    distributed func wrap<T: Codable & Sendable>(_ value: T) async throws -> [T] { [value] }
    distributed func name() async throws -> String { "wrapper" }
}
