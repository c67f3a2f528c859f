import BleuCore
import Foundation
import Logging

extension PeripheralHost {
    /// How the host ends a stream it produces.
    enum StreamEnding: Sendable {
        /// The caller's iteration ends normally, after the elements already sent.
        case finished
        /// The caller's iteration throws this error.
        case failure(any Error)
    }

    /// Ends every stream the actor with `id` produces, for every central, with `ending`.
    func endStreams(of id: UUID, ending: StreamEnding) async {
        await end(where: { _, hosted in hosted.actor.id == id }, streams: { _ in ending }, calls: nil)
    }

    /// Ends, with a reply each, the streams (and with `calls` the running calls) of every
    /// session whose hosted actor matches: the sources and methods are cancelled, the callers
    /// told. Returns once the replies went out, or after ``BLEActorSystem/Configuration/callTimeout``
    /// when a central does not take notifications — no caller is left waiting, and neither is the host.
    func end(where matches: (UInt16, Hosted) -> Bool, streams ending: (Hosted) -> StreamEnding,
             calls failure: ((Hosted) -> any Error)?) async {
        let encoder = configuration.encoder
        let (replies, tasks, waiters) = state.withLock { state in
            var replies: [(Reply, SessionKey)] = []
            var tasks: [Task<Void, Never>] = []
            var waiters: [CheckedContinuation<Bool, Never>] = []
            for key in state.sessions.keys {
                guard let hosted = state.hosted[key.call], matches(key.call, hosted), var session = state.sessions[key] else { continue }
                for (id, stream) in session.streams.sorted(by: { $0.key < $1.key }) {
                    switch ending(hosted) {
                    case .finished: replies.append((.streamEnd(stream: id), key))
                    case .failure(let error): replies.append((ErrorEnvelope.reply(failing: id, with: error, encoder: encoder), key))
                    }
                    tasks += stream.task.map { [$0] } ?? []
                    waiters += stream.waiter.map { [$0] } ?? []
                }
                session.streams.removeAll()
                if let failure {
                    for (id, call) in session.running.sorted(by: { $0.key < $1.key }) {
                        // Answered here unless its method answered first; either way once.
                        let first = call.replied.withLock { replied in
                            defer { replied = true }
                            return !replied
                        }
                        if first { replies.append((ErrorEnvelope.reply(to: failure(hosted), call: id, encoder: encoder), key)) }
                        tasks.append(call.task)
                    }
                }
                state.sessions[key] = session
            }
            return (replies, tasks, waiters)
        }
        for task in tasks { task.cancel() }
        for waiter in waiters { waiter.resume(returning: false) }
        if !replies.isEmpty {
            configuration.logger.info("ending \(replies.count) calls and streams")
        }
        await sendAll(replies)
    }

    /// Sends the replies, each to its central; gives up on centrals that have not taken them
    /// after ``BLEActorSystem/Configuration/callTimeout`` (their senders stop waiting for room).
    private func sendAll(_ replies: [(Reply, SessionKey)]) async {
        guard !replies.isEmpty else { return }
        let keys = Set(replies.map(\.1))
        let clock = configuration.clock
        let timeout = configuration.callTimeout
        let watchdog = Task {
            guard (try? await clock.sleep(for: timeout)) != nil else { return }
            self.abandonSends(to: keys)
        }
        await withTaskGroup(of: Void.self) { group in
            for (reply, key) in replies {
                group.addTask { await self.send(reply, key: key) }
            }
        }
        watchdog.cancel()
        state.withLock { state in
            for key in keys { state.sessions[key]?.abandoned = false }
        }
    }

    private func abandonSends(to keys: Set<SessionKey>) {
        state.withLock { state in
            for key in keys { state.sessions[key]?.abandoned = true }
        }
        configuration.logger.warning("gave up sending \(keys.count) centrals their last replies: they took no notifications for \(configuration.callTimeout)")
        ready.signal()
    }
}
