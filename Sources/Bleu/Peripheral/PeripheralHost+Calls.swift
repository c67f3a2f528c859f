import BleuCore
import BleuWire
import Foundation
import Logging

extension PeripheralHost {
    /// A whole request from a central: define and run a call, or cancel one. Every refusal is
    /// answered (when the call id could be read) and logged.
    func handle(_ message: [UInt8], key: SessionKey) {
        let request: Request
        do {
            request = try Request.decode(message)
        } catch {
            configuration.logger.warning("malformed request from \(key.central): \(error)")
            let kind = message.first ?? 0
            switch error {
            case .inCall(let id, let problem) where kind == Request.Kind.call.rawValue || kind == Request.Kind.define.rawValue:
                refuse(id, BLEActorSystemError.malformedRequest(.message(problem)), key: key)
            case .inCall(let id, let problem):
                // A cancel or credit carries a call or stream id, not a call to answer.
                refuseRequest(kind, id: id, reason: problem.description, key: key)
            case .beforeID(.unknownKind(let unknown)):
                // Every request has an id after its kind; answer with both, as ATT's Error
                // Response names the request it refuses, so the sender knows what failed.
                var reader = EnvelopeReader(Array(message.dropFirst()))
                if let id = try? reader.varint("id") {
                    refuseRequest(unknown, id: id, reason: "unknown request kind 0x\(String(unknown, radix: 16))", key: key)
                }
            default:
                break  // not even an id to answer: the caller's timeout ends its call
            }
            return
        }
        switch request {
        case .cancel(let id):
            let task = state.withLock { $0.sessions[key]?.running[id]?.task }
            task?.cancel()
        case .cancelStream(let id):
            cancelStream(id, key: key)
        case .streamCredit(let id, let credits):
            grant(credits, to: id, key: key)
        case .call(let id, let method, let arguments):
            start(id, method: method, definition: nil, arguments: arguments, key: key)
        case .define(let id, let method, let definition, let arguments):
            start(id, method: method, definition: definition, arguments: arguments, key: key)
        }
    }

    private func start(_ id: UInt32, method: UInt32, definition: MethodDefinition?, arguments: [[UInt8]], key: SessionKey) {
        let maximumMethods = configuration.maximumMethodsPerConnection
        let maximumCalls = configuration.maximumConcurrentCallsPerCentral
        let refusal: BLEActorSystemError? = state.withLock { state in
            guard let hosted = state.hosted[key.call], let runner = state.runner else {
                return .malformedRequest(.noActorOnHandle(key.call))
            }
            guard !state.closing.contains(key.call) else { return .hostingStopped(hosted.actor.id) }
            var session = state.sessions[key] ?? Session(fragmenter: Fragmenter(format: configuration.wireFormat,
                                                                             maximumMessageSize: configuration.maximumMessageSize))
            defer { state.sessions[key] = session }
            if let definition {
                guard session.methods[method] != nil || session.methods.count < maximumMethods else {
                    return .malformedRequest(.tooManyMethods(limit: maximumMethods))
                }
                session.methods[method] = definition
            }
            guard let resolved = session.methods[method] else { return .unknownMethodID(method) }
            guard session.running[id] == nil else { return .malformedRequest(.callIDInUse(id)) }
            guard session.running.count < maximumCalls else { return .tooManyConcurrentCalls(limit: maximumCalls) }
            // Created under the lock, so it is registered before it can finish and unregister.
            let replied = Locked(false)
            let task = Task {
                await runner(hosted, resolved, arguments, id, key, replied)
                _ = self.state.withLock { $0.sessions[key]?.running.removeValue(forKey: id) }
            }
            session.running[id] = RunningCall(task: task, replied: replied)
            return nil
        }
        if let refusal {
            configuration.logger.warning("refused call \(id) from \(key.central): \(refusal)")
            refuse(id, refusal, key: key)
        }
    }

    /// Answers a call with an actor-system error.
    func refuse(_ id: UInt32, _ error: BLEActorSystemError, key: SessionKey) {
        ensureSession(key)
        let reply = ErrorEnvelope.reply(to: error, call: id, encoder: configuration.encoder)
        Task { await self.send(reply, key: key) }
    }

    /// Answers a request that is not a call (an unknown kind, a malformed cancel or credit),
    /// naming its kind and id.
    func refuseRequest(_ kind: UInt8, id: UInt32, reason: String, key: SessionKey) {
        ensureSession(key)
        Task { await self.send(.refused(id: id, request: kind, reason: reason), key: key) }
    }

    /// The longest notification the session's central takes, as the radio said it within the
    /// last ``RefreshedLength/period``; `nil` when the central is not connected.
    private func notificationLength(for key: SessionKey) async -> Int? {
        let now = clock.now()
        if let kept = state.withLock({ $0.sessions[key]?.notificationLength.current(at: now) }) { return kept }
        guard let length = await manager.maximumUpdateValueLength(for: key.central) else { return nil }
        state.withLock { $0.sessions[key]?.notificationLength.keep(length, at: now) }
        return length
    }

    /// Sends a reply to one central whole, its fragments as notifications, waiting for room in
    /// the notification queue when it is full. Gives up when the central is gone.
    func send(_ reply: Reply, key: SessionKey) async {
        guard let (gate, characteristic) = state.withLock({ state -> (SerialGate, PublishedCharacteristic)? in
            guard let session = state.sessions[key], let hosted = state.hosted[key.call] else { return nil }
            return (session.gate, hosted.reply)
        }) else { return }
        // Whether the central still takes replies (and, for an element, its stream still runs:
        // an element queued behind the stream's end is not sent).
        let wanted = { [state] () -> Bool in
            state.withLock { state in
                guard let session = state.sessions[key], !session.abandoned else { return false }
                if case .streamElement(let stream, _) = reply { return session.streams[stream] != nil }
                return true
            }
        }
        do {
            try await gate.run {
                guard wanted() else { throw BleuError.notConnected(key.central) }
                guard let length = await notificationLength(for: key) else { throw BleuError.notConnected(key.central) }
                var message = reply.encoded()
                if message.count > configuration.maximumMessageSize {
                    configuration.logger.warning("reply \(reply.id) of \(message.count) bytes exceeds the maximum message size")
                    let tooLarge = BLEActorSystemError.messageTooLarge(size: message.count, maximum: configuration.maximumMessageSize)
                    switch reply {
                    case .streamElement(let stream, _):
                        // The element cannot go; the stream ends with the error instead.
                        _ = state.withLock { $0.sessions[key]?.streams.removeValue(forKey: stream) }?.task?.cancel()
                        message = ErrorEnvelope.reply(failing: stream, with: tooLarge, encoder: configuration.encoder).encoded()
                    default:
                        message = ErrorEnvelope.reply(to: tooLarge, call: reply.id, encoder: configuration.encoder).encoded()
                    }
                }
                let outgoing = try state.withLock { state throws -> OutgoingMessage in
                    guard state.sessions[key] != nil else { throw BleuError.notConnected(key.central) }
                    return try state.sessions[key]!.fragmenter.begin(message, maximumFragmentLength: length)
                }
                defer { state.withLock { $0.sessions[key]?.fragmenter.finish(outgoing) } }
                for fragment in outgoing.slices {
                    try await manager.updateValue(Data(fragment), for: characteristic, onSubscribedCentrals: [key.central],
                                                  ready: ready) {
                        guard state.withLock({ $0.sessions[key].map { !$0.abandoned } ?? false }) else {
                            throw BleuError.notConnected(key.central)
                        }
                    }
                }
            }
        } catch {
            configuration.logger.info("reply \(reply.id) to \(key.central) not sent: \(error)")
        }
    }

    /// Makes sure a session exists for the central, so a refusal can be sent before any call ran.
    private func ensureSession(_ key: SessionKey) {
        state.withLock { state in
            guard state.sessions[key] == nil, state.hosted[key.call] != nil else { return }
            state.sessions[key] = Session(fragmenter: Fragmenter(format: configuration.wireFormat,
                                                                 maximumMessageSize: configuration.maximumMessageSize))
        }
    }
}
