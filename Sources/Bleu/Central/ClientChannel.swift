import BleuCore
import BleuWire
import Foundation
import Logging

/// The central's end of one actor's service on one connection: sends requests on the call
/// characteristic (write without response, flow-controlled), matches replies from the reply
/// characteristic's notifications to waiting calls, and interns method names per connection.
final class ClientChannel: StreamReceiver {
    /// A call that ended before any of it was written (the channel closed while it waited for
    /// a slot): safe to send on another link, unlike one whose request went out.
    struct CallNotSent: Error {
        var cause: any Error
    }

    let actorID: UUID
    let peripheral: UUID
    private let call: RemoteCharacteristic
    private let manager: any CentralManager
    private let ready: ReadySignal
    private let limits: BLEActorSystem.Configuration
    private let gate = SerialGate()
    /// Calls in flight to the peripheral; more wait here rather than be refused there.
    private let inFlight: AsyncSemaphore
    private let state: Locked<State>
    private let subscription = Locked<ValueSubscription?>(nil)
    private let clock: ElapsedClock
    /// The calls' timeouts, watched by one task rather than a timer task per call.
    private let deadlines: Deadlines
    /// Control messages (credit grants, cancellations) waiting to go out, in order, on the lane
    /// the channel owns; see ``sendControl(_:)``. The lane (a stream and the task draining it)
    /// is made with the first control message: most links never send one, and a task waiting
    /// on an empty stream for each actor on each link was the largest share of a link's memory.
    private let controlLane = Locked(ControlLane.idle)
    private let lost = Locked(LostControlMessages())

    /// What the control lane carries: a message, or a marker resumed once everything before it
    /// went out (or was counted lost).
    private enum Control {
        case message(Request)
        case marker(CheckedContinuation<Void, Never>)
    }

    /// The control lane: not made yet, draining, or ended with the channel.
    private enum ControlLane {
        case idle
        case running(AsyncStream<Control>.Continuation, Task<Void, Never>)
        case closed
    }

    /// Call ids rotate through 0–127, so they take one byte on air; the pending-call limit
    /// stays below 128, so a free id always exists.
    private static let callIDMask: UInt32 = 0x7F

    private enum Pending {
        case waiting(CheckedContinuation<Reply, any Error>?)
        case done(Result<Reply, any Error>)
    }

    private struct State {
        var fragmenter: Fragmenter
        var reassembler: Reassembler<UUID, ElapsedInstant>
        var methods: [MethodDefinition: UInt32] = [:]
        /// Methods whose definition reached the peripheral; later calls send only the id.
        var defined: Set<UInt32> = []
        var nextCall: UInt32 = 0
        var calls: [UInt32: Pending] = [:]
        /// Ids of calls that ended here without their reply (timeout, cancellation), oldest
        /// first: the peripheral may still answer them, so they are not reused until it did —
        /// a late reply must not be taken for the answer to a newer call.
        var retired: [UInt32] = []
        /// Calls in flight or queued for a slot.
        var admitted = 0
        var closed: (any Error)?
        /// The longest fragment the link takes in a write without response.
        var fragmentLength = RefreshedLength()
        /// Streams the caller opened, and how many elements each consumed since its last credit.
        var streams: [UInt32: (inbox: StreamInbox, consumed: Int)] = [:]
    }

    init(actorID: UUID, peripheral: UUID, call: RemoteCharacteristic, manager: any CentralManager, ready: ReadySignal,
         configuration: BLEActorSystem.Configuration) {
        self.actorID = actorID
        self.peripheral = peripheral
        self.call = call
        self.manager = manager
        self.ready = ready
        self.limits = configuration
        let clock = ElapsedClock(configuration.clock)
        self.clock = clock
        self.deadlines = Deadlines(clock: clock)
        self.inFlight = AsyncSemaphore(configuration.maximumConcurrentCallsPerCentral)
        let limits = ReassemblyLimits(maximumMessageSize: configuration.maximumMessageSize,
                                      maximumBufferedBytes: 2 * configuration.maximumMessageSize + 64)
        state = Locked(State(fragmenter: Fragmenter(format: configuration.wireFormat, maximumMessageSize: configuration.maximumMessageSize),
                             reassembler: Reassembler(format: configuration.wireFormat, limits: limits)))
    }

    deinit {
        if case .running(let control, let task) = controlLane.withLock({ $0 }) {
            control.finish()
            task.cancel()
        }
    }

    /// Takes replies from the reply characteristic: subscribes with `subscribe`, which hands
    /// this channel's receiver to the radio (each value is taken as the radio delivers it, with
    /// no task of the channel's own in between).
    func start(_ subscribe: (@escaping @Sendable (ValueDelivery) -> Void) async throws -> ValueSubscription) async throws {
        let subscription = try await subscribe { [weak self] delivery in
            guard let self else { return }
            switch delivery {
            case .value(let value): self.received(value)
            case .end(nil): self.close(BleuError.disconnected(self.peripheral, .localHostTerminated))
            case .end(let error?): self.close(error)
            }
        }
        self.subscription.withLock { $0 = subscription }
        // Closed meanwhile: `close` found no subscription to cancel.
        if isClosed { subscription.cancel() }
    }

    var isClosed: Bool { state.withLock { $0.closed != nil } }

    /// Calls in flight or waiting for a slot (for tests).
    var admittedCalls: Int { state.withLock { $0.admitted } }

    /// Calls a method and waits for its reply, at most `timeout`; a timeout error reports
    /// `budget`, the whole call's timeout (of which waiting for the link took the rest).
    func call(_ definition: MethodDefinition, arguments: [[UInt8]], timeout: Duration, budget: Duration,
              method name: @escaping @Sendable () -> String) async throws -> Reply {
        let admitted = state.withLock { state in
            guard state.admitted < limits.maximumPendingCallsPerActor else { return false }
            state.admitted += 1
            return true
        }
        guard admitted else { throw BLEActorSystemError.tooManyConcurrentCalls(limit: limits.maximumPendingCallsPerActor) }
        defer { state.withLock { $0.admitted -= 1 } }
        try await inFlight.acquire()
        defer { inFlight.release() }
        let (id, request, method) = try state.withLock { state throws -> (UInt32, Request, UInt32) in
            // Nothing of this call went out: it may be sent on the next link.
            if let error = state.closed { throw CallNotSent(cause: error) }
            // Pending calls stay below the id space; when retired ids fill the rest, the oldest
            // (whose reply is the least likely still to come) is given up.
            if state.calls.count + state.retired.count > Int(Self.callIDMask), !state.retired.isEmpty {
                limits.logger.debug("reusing call id \(state.retired[0]) of \(peripheral): no late reply came for it")
                state.retired.removeFirst()
            }
            var id = state.nextCall
            while state.calls[id] != nil || state.retired.contains(id) { id = (id &+ 1) & Self.callIDMask }
            state.nextCall = (id &+ 1) & Self.callIDMask
            state.calls[id] = .waiting(nil)
            let method: UInt32
            if let known = state.methods[definition] {
                method = known
            } else {
                guard state.methods.count < limits.maximumMethodsPerConnection else {
                    state.calls[id] = nil
                    throw BleuError.limitReached(.methodsPerConnection(limits.maximumMethodsPerConnection))
                }
                method = UInt32(state.methods.count)
                state.methods[definition] = method
            }
            let request: Request = state.defined.contains(method)
                ? .call(id: id, method: method, arguments: arguments)
                : .define(id: id, method: method, definition: definition, arguments: arguments)
            return (id, request, method)
        }
        let deadline = deadlines.add(at: clock.now() + timeout) { [weak self] in
            self?.finish(id, .failure(BleuError.timeout(.remoteCall(method: name()), after: budget)))
        }
        defer { deadlines.remove(deadline) }
        return try await withTaskCancellationHandler {
            do {
                try await send(request.encoded())
            } catch {
                finish(id, .failure(error))
            }
            let reply = try await outcome(of: id) { .remoteCall(method: name()) }
            // The definition is known there once a call of it was answered by the method
            // itself (a refusal by the system may mean the definition never arrived).
            if case .define = request {
                if case .error(_, let payload) = reply, ErrorEnvelope.systemError(in: payload, decoder: limits.decoder) != nil {} else {
                    state.withLock { _ = $0.defined.insert(method) }
                }
            }
            return reply
        } onCancel: {
            finish(id, .failure(BleuError.cancelled))
        }
    }

    /// Waits for a call's outcome and forgets the call.
    private func outcome(of id: UInt32, _ operation: () -> BleuError.Operation) async throws -> Reply {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Reply, any Error>) in
            let now: Result<Reply, any Error>? = state.withLock { state in
                switch state.calls[id] {
                case .done(let result)?:
                    state.calls[id] = nil
                    return result
                case .waiting?:
                    state.calls[id] = .waiting(continuation)
                    return nil
                case nil:
                    return .failure(BleuError.invalidState(.unexpectedOutcome(operation())))
                }
            }
            if let now { continuation.resume(with: now) }
        }
    }

    /// Completes a call once; later outcomes are ignored. A call that ends without a reply
    /// (timeout, cancellation) tells the peripheral it is no longer wanted.
    private func finish(_ id: UInt32, _ result: Result<Reply, any Error>) {
        let abandoned: Bool
        if case .failure(let error) = result, !(error is CallNotSent), !(error is BleuError && isDisconnect(error)) {
            abandoned = true
        } else {
            abandoned = false
        }
        let waiter: CheckedContinuation<Reply, any Error>?? = state.withLock { state in
            switch state.calls[id] {
            case .waiting(let continuation)?:
                if continuation != nil {
                    state.calls[id] = nil
                } else {
                    state.calls[id] = .done(result)
                }
                if abandoned { state.retired.append(id) }
                return .some(continuation)
            case .done?, nil:
                return .none
            }
        }
        guard case .some(let continuation) = waiter else { return }
        continuation?.resume(with: result)
        if abandoned {
            sendControl(.cancel(id: id))
        }
    }

    /// A reply to a call: completes it, unless it is the late reply of a call that ended
    /// without it, which frees that call's id instead.
    private func answer(_ id: UInt32, _ reply: Reply) {
        let late = state.withLock { state -> Bool in
            guard let index = state.retired.firstIndex(of: id) else { return false }
            state.retired.remove(at: index)
            return true
        }
        if late {
            limits.logger.debug("a late reply to call \(id) from \(peripheral), which had ended; dropped")
        } else {
            finish(id, .success(reply))
        }
    }

    private func isDisconnect(_ error: any Error) -> Bool {
        switch error as? BleuError {
        case .disconnected?, .notConnected?: true
        default: isClosed
        }
    }

    /// Sends one message whole: its fragments back to back, each waiting for room in the
    /// link's write-without-response queue.
    func send(_ message: [UInt8]) async throws {
        var written = 0
        do {
            try await sendFragments(of: message, counting: &written)
        } catch let error as BleuError where written == 0 && isDisconnect(error) {
            // Refused before a byte went out (no link any more): the message was not sent.
            throw CallNotSent(cause: error)
        }
    }

    private func sendFragments(of message: [UInt8], counting written: inout Int) async throws {
        try await gate.run {
            let now = clock.now()
            let (closed, kept) = state.withLock { ($0.closed, $0.fragmentLength.current(at: now)) }
            if let closed { throw CallNotSent(cause: closed) }
            let length: Int
            if let kept {
                length = kept
            } else {
                length = try await manager.maximumWriteValueLength(for: peripheral, type: .withoutResponse)
                state.withLock { $0.fragmentLength.keep(length, at: now) }
            }
            let outgoing: OutgoingMessage
            do {
                outgoing = try state.withLock { state throws(WireError) in
                    try state.fragmenter.begin(message, maximumFragmentLength: length)
                }
            } catch let error as WireError {
                if case .messageTooLarge(let size, let maximum) = error {
                    throw BLEActorSystemError.messageTooLarge(size: size, maximum: maximum)
                }
                throw error
            }
            defer { state.withLock { $0.fragmenter.finish(outgoing) } }
            for fragment in outgoing.slices {
                try await write(Data(fragment))
                written += 1
            }
        }
    }

    private func write(_ fragment: Data) async throws {
        try await manager.writeWithoutResponse(fragment, to: call, ready: ready)
    }

    private func received(_ value: Data) {
        let outcome: Result<Reply?, any Error> = state.withLock { state in
            do {
                let now = clock.instant
                for expired in state.reassembler.expire(now: now) {
                    limits.logger.warning("a reply from \(peripheral) timed out after \(expired.receivedBytes) bytes")
                }
                guard case .message(let bytes) = try state.reassembler.receive(value, from: peripheral, now: now) else {
                    return .success(nil)
                }
                return .success(try Reply.decode(bytes))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let reply?):
            switch reply {
            case .value, .void, .error, .remoteError:
                answer(reply.id, reply)
            case .refused(let id, let request, let reason):
                limits.logger.warning("\(peripheral) refused a request of kind 0x\(String(request, radix: 16)) (id \(id)): \(reason)")
                if request == Request.Kind.call.rawValue || request == Request.Kind.define.rawValue {
                    answer(id, reply)
                }
            case .streamElement(let id, let bytes):
                if let inbox = state.withLock({ $0.streams[id]?.inbox }) {
                    inbox.push(bytes)
                } else {
                    limits.logger.debug("an element of unknown stream \(id) from \(peripheral); cancelling it")
                    sendControl(.cancelStream(stream: id))
                }
            case .streamEnd(let id):
                state.withLock { $0.streams.removeValue(forKey: id) }?.inbox.finish(.end)
            case .streamFailed(let id, let type, let message):
                state.withLock { $0.streams.removeValue(forKey: id) }?.inbox
                    .finish(.failure(RemoteCallError(typeName: type, message: message)))
            case .streamError(let id, let payload):
                state.withLock { $0.streams.removeValue(forKey: id) }?.inbox
                    .finish(.failure(ErrorEnvelope.rebuild(payload, decoder: limits.decoder, registry: limits.remoteTypes, declared: nil)))
            }
        case .success(nil):
            break
        case .failure(let error):
            limits.logger.warning("dropped a reply fragment from \(peripheral): \(error)")
        }
    }

    /// Fails every waiting call with `error` and refuses new ones.
    func close(_ error: any Error) {
        let waiting: [(UInt32, CheckedContinuation<Reply, any Error>?)] = state.withLock { state in
            guard state.closed == nil else { return [] }
            state.closed = error
            var waiting: [(UInt32, CheckedContinuation<Reply, any Error>?)] = []
            for (id, pending) in state.calls {
                if case .waiting(let continuation) = pending {
                    waiting.append((id, continuation))
                    state.calls[id] = continuation == nil ? .done(.failure(error)) : nil
                }
            }
            return waiting
        }
        for (_, continuation) in waiting { continuation?.resume(throwing: error) }
        let streams = state.withLock { state in
            defer { state.streams.removeAll() }
            return state.streams.values.map(\.inbox)
        }
        for inbox in streams { inbox.finish(.failure(error)) }
        deadlines.close()
        subscription.withLock { $0 }?.cancel()
        // What is queued still goes through the lane, and is counted lost if it cannot go out.
        let lane = controlLane.withLock { lane in
            defer { lane = .closed }
            return lane
        }
        if case .running(let control, _) = lane { control.finish() }
    }

    // MARK: Control messages

    /// Control messages that could not be sent, by kind.
    var lostControlMessages: LostControlMessages { lost.withLock { $0 } }

    /// Queues a control message for the peripheral: sent in order with the other control
    /// messages on the channel's lane, and counted lost (``lostControlMessages``) and logged
    /// if it cannot be sent. Never waits.
    func sendControl(_ request: Request) {
        guard let control = controlContinuation(starting: true),
              case .enqueued = control.yield(.message(request)) else {
            return controlLost(request, BleuError.invalidState(.channelClosed))
        }
    }

    /// Returns once every control message queued before the call was sent or counted lost.
    func controlSent() async {
        // No lane: nothing was ever queued.
        guard let control = controlContinuation(starting: false) else { return }
        await withCheckedContinuation { continuation in
            if case .terminated = control.yield(.marker(continuation)) { continuation.resume() }
        }
    }

    /// Whether the channel has made its control lane (for tests: not until a control message).
    var hasControlLane: Bool {
        if case .running = controlLane.withLock({ $0 }) { return true }
        return false
    }

    /// The control lane's input: made now when `starting` and there is none yet; `nil` when the
    /// channel closed, or when there is none and `starting` is false.
    private func controlContinuation(starting: Bool) -> AsyncStream<Control>.Continuation? {
        controlLane.withLock { lane in
            switch lane {
            case .running(let control, _):
                return control
            case .closed:
                return nil
            case .idle:
                guard starting else { return nil }
                let (stream, control) = AsyncStream.makeStream(of: Control.self)
                let task = Task { [weak self] in
                    for await item in stream {
                        switch item {
                        case .message(let request):
                            guard let self else { return }
                            await self.deliverControl(request)
                        case .marker(let continuation):
                            continuation.resume()
                        }
                    }
                }
                lane = .running(control, task)
                return control
            }
        }
    }

    private func deliverControl(_ request: Request) async {
        do {
            try await send(request.encoded())
        } catch {
            controlLost(request, error)
        }
    }

    private func controlLost(_ request: Request, _ error: any Error) {
        let kind = lost.withLock { $0.count(request) }
        let consequence = switch kind {
        case .creditGrant: "the stream's producer may stall waiting for credits"
        case .cancel: "the peripheral may still run the call"
        case .streamCancel: "the peripheral may keep producing the stream until the link ends"
        case nil: "unexpected control message"
        }
        // On a closed channel the peripheral's side ended too: worth a trace, not a warning.
        limits.logger.log(level: isClosed ? .debug : .warning,
                          "could not send \(kind?.rawValue ?? "a control message") to \(peripheral): \(error); \(consequence)")
    }

    // MARK: Streams

    var elementDecoder: CBORDecoder { limits.decoder }

    /// Opens a stream a reply announced: registers its inbox and grants the first credits.
    func openStream(_ id: UInt32) -> StreamInbox {
        let capacity = limits.streamBufferLimit
        let inbox = StreamInbox(capacity: capacity, onCancel: { [weak self] in
            guard let self else { return }
            self.state.withLock { _ = $0.streams.removeValue(forKey: id) }
            self.sendControl(.cancelStream(stream: id))
        }, onDequeue: { [weak self] in
            guard let self else { return }
            let threshold = max(1, capacity / 2)
            let grant: Int? = self.state.withLock { state in
                guard let entry = state.streams[id] else { return nil }
                let consumed = entry.consumed + 1
                state.streams[id] = (entry.inbox, consumed >= threshold ? 0 : consumed)
                return consumed >= threshold ? consumed : nil
            }
            if let grant {
                self.sendControl(.streamCredit(stream: id, credits: UInt32(grant)))
            }
        })
        let closed: (any Error)? = state.withLock { state in
            if let closed = state.closed { return closed }
            state.streams[id] = (inbox, 0)
            return nil
        }
        if let closed {
            inbox.finish(.failure(closed))
        } else {
            sendControl(.streamCredit(stream: id, credits: UInt32(capacity)))
        }
        return inbox
    }
}

/// Control messages a central could not send to a peripheral, counted by kind: each one the
/// peripheral never got (a credit grant, a cancellation) changes what it does, so none is
/// dropped silently.
struct LostControlMessages: Sendable, Hashable {
    enum Kind: String, Sendable {
        case creditGrant = "a stream credit grant"
        case cancel = "a call cancellation"
        case streamCancel = "a stream cancellation"
    }

    /// ``Request/streamCredit(stream:credits:)`` messages.
    var creditGrants = 0
    /// ``Request/cancel(id:)`` messages.
    var cancels = 0
    /// ``Request/cancelStream(stream:)`` messages.
    var streamCancels = 0

    /// Counts `request` under its kind, which it returns (`nil` for a request that is no control message).
    mutating func count(_ request: Request) -> Kind? {
        switch request {
        case .streamCredit:
            creditGrants += 1
            return .creditGrant
        case .cancel:
            cancels += 1
            return .cancel
        case .cancelStream:
            streamCancels += 1
            return .streamCancel
        default:
            return nil
        }
    }
}
