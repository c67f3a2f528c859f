import BleuCore
import Foundation

/// One caller of an async operation, waiting for the CoreBluetooth callback that completes it.
///
/// The operation's pending table (on the manager's queue) holds the waiter in the order the
/// operations were issued, and the callback resumes the first one. A waiter completes once:
/// its caller's cancellation completes it with ``/BleuCore/BleuError/cancelled`` but leaves it
/// in its table, where the callback still finds it, so a late callback completes the
/// operation it belongs to rather than the next one.
final class Waiter<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var outcome: Result<Value, any Error>?
    }

    private let state = Locked(State())

    /// Whether the caller still waits: not completed, not cancelled.
    var isWaiting: Bool {
        state.withLock { $0.outcome == nil }
    }

    /// Takes the caller's continuation, resuming it at once if the waiter already completed.
    func install(_ continuation: CheckedContinuation<Value, any Error>) {
        let early: Result<Value, any Error>? = state.withLock { state in
            if let outcome = state.outcome { return outcome }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    /// Completes the operation; later completions are ignored.
    func resume(_ result: Result<Value, any Error>) {
        let continuation: CheckedContinuation<Value, any Error>? = state.withLock { state in
            guard state.outcome == nil else { return nil }
            state.outcome = result
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
    }

    func succeed(_ value: Value) {
        resume(.success(value))
    }

    func fail(_ error: BleuError) {
        resume(.failure(error))
    }
}

extension Waiter where Value == Void {
    func succeed() {
        resume(.success(()))
    }
}

/// The manager's serial queue, where CoreBluetooth calls its delegate and where every
/// CoreBluetooth object the manager holds is used.
struct ManagerQueue: Sendable {
    let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Starts an operation on the queue and waits for a callback to complete it: `start` runs
    /// there with the waiter (unless the caller was cancelled first) and either completes it at
    /// once or files it in a pending table. Cancelling the calling task completes the wait with
    /// ``/BleuCore/BleuError/cancelled`` and then runs `cancelled` on the queue, to undo what
    /// the operation started, if anything.
    func wait<Value: Sendable>(_ start: @escaping @Sendable (Waiter<Value>) -> Void,
                               cancelled: @escaping @Sendable (Waiter<Value>) -> Void = { _ in }) async throws -> Value {
        let waiter = Waiter<Value>()
        let queue = queue
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiter.install(continuation)
                queue.async {
                    if waiter.isWaiting { start(waiter) }
                }
            }
        } onCancel: {
            waiter.fail(.cancelled)
            queue.async { cancelled(waiter) }
        }
    }

    /// Runs `body` on the queue and returns its result.
    func run<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }

    /// Runs `body` on the queue, blocking the caller until it ran: only for synchronous API
    /// that cannot wait (``/BleuCore/CentralManager/events()``). Never called on the queue.
    func sync<Value>(_ body: () -> Value) -> Value {
        dispatchPrecondition(condition: .notOnQueue(queue))
        return queue.sync(execute: body)
    }

    func async(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }

    func asyncAfter(_ delay: Duration, _ body: @escaping @Sendable () -> Void) {
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: max(0, delay.nanoseconds))), execute: body)
    }
}
