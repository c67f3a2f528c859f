import BleuCore
import Foundation

/// Pulls a radio's value stream and decodes each value as the consumer asks for it, so a typed
/// stream adds no buffer of its own. Ends the subscription (calls `release`, once) when the
/// radio's stream ends or fails, when a value does not decode, or when the typed stream is
/// dropped (this object's `deinit`: the consumer stopped iterating or was cancelled).
///
/// `@unchecked Sendable` is sound: `iterator` is the only mutable state outside a lock, and it
/// is touched only in ``next()`` by the caller that moved `busy` from `false` to `true` under
/// `state`'s lock (and back after), so never by two tasks at once; a concurrent second caller
/// gets an error instead. `decode` and `release` are `@Sendable`.
final class DecodedValues<Value: Sendable>: @unchecked Sendable {
    private var iterator: AsyncThrowingStream<Data, any Error>.AsyncIterator
    private let state = Locked((busy: false, finished: false))
    private let decode: @Sendable (Data) throws(GATTCodecError) -> Value
    private let release: @Sendable () -> Void

    init(_ raw: AsyncThrowingStream<Data, any Error>, decode: @escaping @Sendable (Data) throws(GATTCodecError) -> Value,
         release: @escaping @Sendable () -> Void) {
        iterator = raw.makeAsyncIterator()
        self.decode = decode
        self.release = release
    }

    deinit {
        finish()
    }

    /// The next decoded value; `nil` once the subscription ended.
    func next() async throws -> Value? {
        let claimed: Bool? = state.withLock { state in
            if state.finished { return nil }
            if state.busy { return false }
            state.busy = true
            return true
        }
        guard let claimed else { return nil }
        guard claimed else {
            throw BleuError.invalidState(.singleConsumer)
        }
        defer { state.withLock { $0.busy = false } }
        let data: Data
        do {
            guard let next = try await iterator.next() else {
                finish()
                return nil
            }
            data = next
        } catch {
            finish()
            throw error
        }
        do {
            return try decode(data)
        } catch {
            finish()
            throw GATTError.decodingFailed(error)
        }
    }

    /// Marks the stream finished and releases the subscription, the first time only.
    private func finish() {
        let first = state.withLock { state -> Bool in
            defer { state.finished = true }
            return !state.finished
        }
        if first { release() }
    }
}
