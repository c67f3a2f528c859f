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
            if case .inCall(let id, let problem) = error {
                refuse(id, BLEActorSystemError.malformedRequest(problem.description), key: key)
            }
            return
        }
        switch request {
        case .cancel(let id):
            let task = state.withLock { $0.sessions[key]?.running[id] }
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
                return .malformedRequest("no actor is hosted on characteristic handle \(key.call)")
            }
            var session = state.sessions[key] ?? Session(fragmenter: Fragmenter(format: configuration.wireFormat,
                                                                             maximumMessageSize: configuration.maximumMessageSize))
            defer { state.sessions[key] = session }
            if let definition {
                guard session.methods[method] != nil || session.methods.count < maximumMethods else {
                    return .malformedRequest("more than \(maximumMethods) methods defined on one connection")
                }
                session.methods[method] = definition
            }
            guard let resolved = session.methods[method] else { return .unknownMethodID(method) }
            guard session.running[id] == nil else { return .malformedRequest("call id \(id) is already running") }
            guard session.running.count < maximumCalls else { return .tooManyConcurrentCalls(limit: maximumCalls) }
            // Created under the lock, so it is registered before it can finish and unregister.
            session.running[id] = Task {
                await runner(hosted, resolved, arguments, id, key)
                _ = self.state.withLock { $0.sessions[key]?.running.removeValue(forKey: id) }
            }
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
        let reply = BLEResultHandler.reply(to: error, id: id, encoder: configuration.encoder)
        Task { await self.send(reply, key: key) }
    }

    /// Sends a reply to one central whole, its fragments as notifications, waiting for room in
    /// the notification queue when it is full. Gives up when the central is gone.
    func send(_ reply: Reply, key: SessionKey) async {
        guard let (gate, characteristic) = state.withLock({ state -> (SerialGate, PublishedCharacteristic)? in
            guard let session = state.sessions[key], let hosted = state.hosted[key.call] else { return nil }
            return (session.gate, hosted.reply)
        }) else { return }
        do {
            try await gate.run {
                guard let length = await manager.maximumUpdateValueLength(for: key.central) else {
                    throw BleuError.notConnected(key.central)
                }
                var message = reply.encoded()
                if message.count > configuration.maximumMessageSize {
                    configuration.logger.warning("reply \(reply.id) of \(message.count) bytes exceeds the maximum message size")
                    message = BLEResultHandler.reply(to: BLEActorSystemError.messageTooLarge(size: message.count, maximum: configuration.maximumMessageSize),
                                                     id: reply.id, encoder: configuration.encoder).encoded()
                }
                let outgoing = try state.withLock { state throws -> OutgoingMessage in
                    guard state.sessions[key] != nil else { throw BleuError.notConnected(key.central) }
                    return try state.sessions[key]!.fragmenter.begin(message, maximumFragmentLength: length)
                }
                defer { state.withLock { $0.sessions[key]?.fragmenter.finish(outgoing) } }
                for fragment in outgoing {
                    let value = Data(fragment)
                    while true {
                        let generation = ready.generation
                        guard state.withLock({ $0.sessions[key] != nil }) else { throw BleuError.notConnected(key.central) }
                        if await manager.updateValue(value, for: characteristic, onSubscribedCentrals: [key.central]) { break }
                        try await ready.wait(after: generation)
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
