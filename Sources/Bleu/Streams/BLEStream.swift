import BleuCore
import BleuWire
import Foundation

/// A stream of values a distributed method returns: an `AsyncSequence` on the caller's side,
/// `Codable` so it can be a result, with only a stream id on the wire. Elements follow as
/// notifications of the actor's reply characteristic.
///
/// ```swift
/// distributed func heartRate() -> BLEStream<Int> {
///     BLEStream(AsyncStream { continuation in ... })
/// }
/// // central
/// for try await bpm in try await monitor.heartRate() { print(bpm) }
/// ```
///
/// - Back-pressure: the caller grants credits for as many elements as its buffer holds
///   (``BLEActorSystem/Configuration/streamBufferLimit``) and more as it consumes them; the
///   peripheral pulls the next element from the source only with a credit and room in its
///   notification queue. Nothing is buffered without bound on either side.
/// - Cancellation: the caller stopping its iteration (or cancelling its task) cancels the
///   source's iteration on the peripheral; the source ending ends the caller's iteration.
/// - A disconnection ends the caller's iteration with ``/BleuCore/BleuError/disconnected(_:_:)``;
///   a source that throws ends it with that error — as itself when it is `Codable` and its type
///   exists on the caller's side, else as a ``RemoteCallError`` carrying the type name and
///   message. The hosting side can end an actor's streams itself
///   (``BLEActorSystem/endStreams(of:throwing:)``); stopping hosting ends them with
///   ``BLEActorSystemError/hostingStopped(_:)``.
///
/// A stream is consumed once, by one iterator.
public struct BLEStream<Element: Codable & Sendable>: AsyncSequence, Codable, Sendable {
    public typealias Failure = any Error

    private enum Storage: Sendable {
        case local(StreamPump)
        case remote(StreamInbox, CBORDecoder)
    }

    private let storage: Storage

    /// A stream of the elements of `sequence`, iterated on the hosting side as the caller consumes.
    public init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == Element {
        storage = .local { encoder, emit in
            for try await element in sequence {
                try await emit(try encoder.encodeBytes(element))
            }
        }
    }

    // MARK: Codable

    public func encode(to encoder: any Encoder) throws {
        guard case .local(let pump) = storage, let registrar = encoder.userInfo[.bleuStreamRegistrar] as? StreamRegistrar else {
            throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath, debugDescription:
                "a BLEStream can only be the result of a distributed method of an actor hosted by BLEActorSystem"))
        }
        var container = encoder.singleValueContainer()
        try container.encode(try registrar.register(pump))
    }

    public init(from decoder: any Decoder) throws {
        let id = try decoder.singleValueContainer().decode(UInt32.self)
        guard let receiver = decoder.userInfo[.bleuStreamReceiver] as? any StreamReceiver else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription:
                "a BLEStream can only be decoded from a BLEActorSystem reply"))
        }
        storage = .remote(receiver.openStream(id), receiver.elementDecoder)
    }

    // MARK: AsyncSequence

    public func makeAsyncIterator() -> Iterator {
        switch storage {
        case .remote(let inbox, let decoder):
            return Iterator(inbox: inbox, decoder: decoder, producer: nil)
        case .local(let pump):
            let task = Locked<Task<Void, Never>?>(nil)
            let inbox = StreamInbox(capacity: 1, onCancel: { task.withLock { $0 }?.cancel() })
            let encoder = CBOREncoder(keyEncoding: .integersWhenAvailable)
            task.withLock { slot in
                slot = Task {
                    do {
                        try await pump(encoder) { bytes in
                            guard await inbox.pushWaiting(bytes) else { throw CancellationError() }
                        }
                        inbox.finish(.end)
                    } catch {
                        inbox.finish(.failure(error))
                    }
                }
            }
            return Iterator(inbox: inbox, decoder: CBORDecoder(), producer: task)
        }
    }

    /// Iterates a ``BLEStream``; dropping it before the end cancels the stream.
    public struct Iterator: AsyncIteratorProtocol {
        private let box: Box
        private let decoder: CBORDecoder

        final class Box: Sendable {
            let inbox: StreamInbox
            let producer: Locked<Task<Void, Never>?>?
            let done = Locked(false)

            init(inbox: StreamInbox, producer: Locked<Task<Void, Never>?>?) {
                self.inbox = inbox
                self.producer = producer
            }

            deinit {
                if !done.withLock({ $0 }) { inbox.cancel() }
            }
        }

        init(inbox: StreamInbox, decoder: CBORDecoder, producer: Locked<Task<Void, Never>?>?) {
            box = Box(inbox: inbox, producer: producer)
            self.decoder = decoder
        }

        public mutating func next() async throws -> Element? {
            guard !box.done.withLock({ $0 }) else { return nil }
            switch await box.inbox.next() {
            case .element(let bytes):
                do {
                    return try decoder.decode(Element.self, from: bytes)
                } catch {
                    box.done.withLock { $0 = true }
                    box.inbox.cancel()
                    throw BLEActorSystemError.serialization(.streamElement(expected: "\(Element.self)", reason: "\(error)"))
                }
            case .end:
                box.done.withLock { $0 = true }
                return nil
            case .failure(let error):
                box.done.withLock { $0 = true }
                throw error
            }
        }
    }
}

/// Produces a local stream's encoded elements through `emit`, which waits for room.
typealias StreamPump = @Sendable (_ encoder: CBOREncoder, _ emit: @escaping @Sendable ([UInt8]) async throws -> Void) async throws -> Void

/// Collects the streams a result carries while it is encoded; the host starts them once the
/// reply is on its way.
final class StreamRegistrar: Sendable {
    private let allocate: @Sendable () throws -> UInt32
    private let registered = Locked<[(UInt32, StreamPump)]>([])

    init(allocate: @escaping @Sendable () throws -> UInt32) {
        self.allocate = allocate
    }

    func register(_ pump: @escaping StreamPump) throws -> UInt32 {
        let id = try allocate()
        registered.withLock { $0.append((id, pump)) }
        return id
    }

    /// The streams registered so far, once.
    func take() -> [(UInt32, StreamPump)] {
        registered.withLock { registered in
            defer { registered.removeAll() }
            return registered
        }
    }
}

/// The caller's side of a connection, which opens the streams a reply carries.
protocol StreamReceiver: Sendable {
    func openStream(_ id: UInt32) -> StreamInbox
    var elementDecoder: CBORDecoder { get }
}

extension CodingUserInfoKey {
    static let bleuStreamRegistrar = CodingUserInfoKey(rawValue: "bleu.streamRegistrar")!
    static let bleuStreamReceiver = CodingUserInfoKey(rawValue: "bleu.streamReceiver")!
}
