import BleuCore
import Foundation
import Synchronization

/// A client's end of a connection to a hub: numbers requests, matches the hub's replies to
/// them, routes pushed elements to their sinks, and answers passkey requests. It knows nothing
/// of sockets: a transport feeds it the bytes that arrive (``receive(_:)``, from one thread at
/// a time) and sends what it hands to `send`.
///
/// Replies, pushed elements and stream ends are delivered on the transport's thread, in the
/// order the hub sent them — the order the medium produced them. Like the engine's own
/// completions they must not block: a synchronous call (``now(_:)``) made from them would wait
/// for bytes that thread alone can read, so it stops the process with a message instead.
package final class HubClient: Sendable {
    /// A pushed stream's sink: an element (with the closure to call once it is handled, for
    /// an event that carries a receipt) or its end.
    typealias Sink = @Sendable (PushedDelivery) -> Void

    enum PushedDelivery: Sendable {
        case element(HubElement, handled: @Sendable () -> Void)
        case end(BleuError?)
    }

    private struct State {
        var decoder = HubFrameDecoder()
        var pending: [UInt64: Completion<HubValue>] = [:]
        var sinks: [UInt32: Sink] = [:]
        var passkeyHandlers: [UInt32: PasskeyHandler] = [:]
        /// The channel ends this client holds, by the hub's number: one object per channel.
        var channels: [UInt32: WeakChannel] = [:]
        /// Why the connection ended, once it has.
        var closed: BleuError?
        /// The hub's welcome (its configuration and seed), once it came.
        var welcome: (configuration: EmulatorConfiguration, seed: UInt64)?
        /// Waits for the welcome.
        var greeting: CheckedContinuation<Void, any Error>?
    }

    /// The hub's configuration, as its welcome said (the default before it).
    package var configuration: EmulatorConfiguration { state.withLock { $0.welcome?.configuration ?? .default } }
    /// The hub's seed.
    package var seed: UInt64 { state.withLock { $0.welcome?.seed ?? 0 } }
    private let state = Locked(State())
    private let sendBytes: @Sendable ([UInt8]) -> Void
    private let closeTransport: @Sendable () -> Void
    private let requestCounter = Atomic<UInt64>(1)
    private let numberCounter = Atomic<UInt32>(1)
    /// Whether the calling thread is the one the transport delivers on (see ``now(_:)``).
    private let isTransportThread: @Sendable () -> Bool

    /// - Parameters:
    ///   - send: writes bytes to the hub, in call order.
    ///   - close: closes the transport (after a malformed frame from the hub).
    ///   - isTransportThread: whether the calling thread is the one that calls ``receive(_:)``.
    package init(send: @escaping @Sendable ([UInt8]) -> Void, close: @escaping @Sendable () -> Void,
                 isTransportThread: @escaping @Sendable () -> Bool) {
        sendBytes = send
        closeTransport = close
        self.isTransportThread = isTransportThread
    }

    /// Says hello (with `token`, for a hub that asks for one) and waits for the hub's
    /// welcome. Throws ``/BleuCore/BleuError/InvalidState/hubConnectionLost(reason:)`` with the
    /// hub's reason when it refuses, or when the connection ends first.
    package func greet(token: String?) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let closed: BleuError? = state.withLock { state in
                if let closed = state.closed { return closed }
                state.greeting = continuation
                sendBytes(HubProtocol.hello(token: token))
                return nil
            }
            if let closed { continuation.resume(throwing: closed) }
        }
    }

    /// A new request number (also the operation numbers of a bus on this client).
    func newRequestID() -> UInt64 {
        requestCounter.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// A new number for a manager, a stream or a channel of this client.
    func newNumber() -> UInt32 {
        numberCounter.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    // MARK: Requests

    /// Sends a request and calls `completion` with the hub's reply. Requests reach the hub,
    /// and start there, in the order they are sent.
    func begin(_ request: HubRequest, id: UInt64? = nil, completion: @escaping Completion<HubValue>) {
        let id = id ?? newRequestID()
        let closed: BleuError? = state.withLock { state in
            if let closed = state.closed { return closed }
            state.pending[id] = completion
            // Sent under the lock, so requests leave in the order they were numbered and
            // registered, and no reply can arrive before its completion is in place.
            sendBytes(HubProtocol.request(id, request))
            return nil
        }
        if let closed { completion(.failure(closed)) }
    }

    /// Sends a request that has no reply.
    func post(_ request: HubRequest) {
        state.withLock { state in
            guard state.closed == nil else { return }
            sendBytes(HubProtocol.request(0, request))
        }
    }

    /// Sends a request and waits for its reply; the caller's cancellation sends
    /// ``HubRequest/cancel(request:)`` (the hub then fails the operation as a local bus would).
    func call(_ request: HubRequest, id: UInt64? = nil) async throws -> HubValue {
        let id = id ?? newRequestID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HubValue, any Error>) in
                begin(request, id: id) { continuation.resume(with: $0) }
            }
        } onCancel: {
            post(.cancel(request: id))
        }
    }

    /// Sends a request and blocks the calling thread until the reply arrives: the path of the
    /// synchronous calls CoreBluetooth's API has (`state`, `updateValue`, …). Not from a
    /// delivery (see the type's note).
    func now(_ request: HubRequest) throws -> HubValue {
        precondition(!isTransportThread(),
                     "a synchronous call on a hub's bus from inside a completion or a pushed element would wait forever; hand the work to a queue")
        let reply = ReplyBox()
        begin(request) { reply.fill($0) }
        return try reply.wait().get()
    }

    // MARK: Streams and passkeys

    /// Routes the pushed elements of stream `number` to `sink`.
    func setSink(_ number: UInt32, _ sink: Sink?) {
        state.withLock { $0.sinks[number] = sink }
    }

    /// A pulled stream: each element is one ``HubRequest/next(stream:)``; letting go of the
    /// stream releases it at the hub.
    func pulled<Element: Sendable>(_ number: UInt32, _ extract: @escaping @Sendable (HubElement) -> Element?)
        -> AsyncThrowingStream<Element, any Error>
    {
        let release = Release { [weak self] in self?.post(.release(stream: number)) }
        return AsyncThrowingStream(unfolding: { [weak self] in
            withExtendedLifetime(release) {}
            guard let self, case .element(let element) = try await self.call(.next(stream: number)) else { return nil }
            return extract(element)
        })
    }

    /// A pulled stream that never fails (events).
    func pulledEvents<Event: Sendable>(_ number: UInt32, _ extract: @escaping @Sendable (HubElement) -> Event?) -> AsyncStream<Event> {
        let release = Release { [weak self] in self?.post(.release(stream: number)) }
        return AsyncStream(unfolding: { [weak self] in
            withExtendedLifetime(release) {}
            guard let self, case .element(let element)? = try? await self.call(.next(stream: number)) else { return nil }
            return extract(element)
        })
    }

    /// This client's end of a channel the hub numbered: the same object for as long as anyone
    /// holds it (two event streams may report one channel), closed when the last holder lets go.
    func channel(_ channel: HubChannel) -> RemoteL2CAPChannel {
        state.withLock { state in
            if let existing = state.channels[channel.number]?.channel {
                existing.handle.crossed()
                return existing
            }
            let end = RemoteL2CAPChannel(client: self, channel: channel)
            end.handle.crossed()
            state.channels = state.channels.filter { $0.value.channel != nil }
            state.channels[channel.number] = WeakChannel(channel: end)
            return end
        }
    }

    /// Answers the hub's passkey requests for central `manager` with `handler`.
    func setPasskeyHandler(_ handler: PasskeyHandler?, for manager: UInt32) {
        state.withLock { $0.passkeyHandlers[manager] = handler }
    }

    // MARK: The transport's side

    /// Takes bytes from the hub. A malformed frame closes the connection.
    package func receive(_ bytes: some Collection<UInt8>) {
        let frames: [(HubProtocol.Kind, [UInt8])]
        do {
            frames = try state.withLock { state throws(PacketDecodingError) in try state.decoder.feed(bytes) }
        } catch {
            fail(.invalidState(.hubConnectionLost(reason: "the hub sent a malformed frame: \(error)")))
            closeTransport()
            return
        }
        for (kind, payload) in frames {
            do throws(PacketDecodingError) {
                switch kind {
                case .welcome:
                    let welcome = try HubProtocol.decodeWelcome(payload)
                    guard welcome.version == HubProtocol.version else {
                        fail(.invalidState(.hubConnectionLost(reason: "the hub speaks protocol version \(welcome.version), this client \(HubProtocol.version)")))
                        closeTransport()
                        return
                    }
                    let greeting: CheckedContinuation<Void, any Error>? = state.withLock { state in
                        guard state.welcome == nil else { return nil }
                        state.welcome = (welcome.configuration, welcome.seed)
                        defer { state.greeting = nil }
                        return state.greeting
                    }
                    guard let greeting else { throw PacketDecodingError("hub welcome", .invalidValue(field: "second welcome", value: 1)) }
                    greeting.resume()
                case .refused:
                    let reason = try HubProtocol.decodeRefused(payload)
                    fail(.invalidState(.hubConnectionLost(reason: "the hub refused this client: \(reason)")))
                    closeTransport()
                    return
                case .reply:
                    let (id, reply) = try HubProtocol.decodeReply(payload)
                    let completion = state.withLock { $0.pending.removeValue(forKey: id) }
                    switch reply {
                    case .success(let value): completion?(.success(value))
                    case .failure(let error): completion?(.failure(error))
                    }
                case .push:
                    deliver(try HubProtocol.decodePush(payload))
                default:
                    throw PacketDecodingError("hub frame", .unknownType(UInt32(kind.rawValue)))
                }
            } catch {
                fail(.invalidState(.hubConnectionLost(reason: "the hub sent a malformed frame: \(error)")))
                closeTransport()
                return
            }
        }
    }

    /// The transport closed: every waiting call fails, every pushed stream ends, later calls
    /// fail at once.
    package func connectionClosed(reason: String) {
        fail(.invalidState(.hubConnectionLost(reason: reason)))
    }

    private func fail(_ error: BleuError) {
        let (pending, sinks, greeting): ([Completion<HubValue>], [Sink], CheckedContinuation<Void, any Error>?) = state.withLock { state in
            guard state.closed == nil else { return ([], [], nil) }
            state.closed = error
            defer {
                state.pending.removeAll()
                state.sinks.removeAll()
                state.passkeyHandlers.removeAll()
                state.greeting = nil
            }
            return (Array(state.pending.values), Array(state.sinks.values), state.greeting)
        }
        greeting?.resume(throwing: error)
        for completion in pending { completion(.failure(error)) }
        for sink in sinks { sink(.end(error)) }
    }

    private func deliver(_ push: HubPush) {
        switch push {
        case .element(let stream, let element, let receipt):
            guard let sink = state.withLock({ $0.sinks[stream] }) else {
                if let receipt { post(.handled(receipt: receipt)) }
                return
            }
            guard let receipt else {
                sink(.element(element, handled: {}))
                return
            }
            sink(.element(element, handled: { [weak self] in self?.post(.handled(receipt: receipt)) }))
        case .end(let stream, let error):
            let sink = state.withLock { $0.sinks.removeValue(forKey: stream) }
            sink?(.end(error))
        case .passkeyRequest(let id, let manager, let request):
            let handler = state.withLock { $0.passkeyHandlers[manager] }
            Task { [weak self] in
                let passkey = await handler?(request)
                self?.post(.passkeyEntered(request: id, passkey: passkey))
            }
        }
    }
}

/// A reply that a blocked thread waits for.
// @unchecked: `result` is only touched under `condition`'s lock.
private final class ReplyBox: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<HubValue, any Error>?

    func fill(_ result: Result<HubValue, any Error>) {
        condition.lock()
        self.result = result
        condition.signal()
        condition.unlock()
    }

    func wait() -> Result<HubValue, any Error> {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return result!
    }
}

/// A channel end the client does not keep alive by itself.
struct WeakChannel {
    weak var channel: RemoteL2CAPChannel?
}
