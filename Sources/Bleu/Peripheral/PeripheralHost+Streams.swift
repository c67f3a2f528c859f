import BleuCore
import Foundation
import Logging

extension PeripheralHost {
    /// A stream id for a result being encoded, within ``BLEActorSystem/Configuration/maximumStreamsPerCentral``.
    func allocateStream(key: SessionKey) throws -> UInt32 {
        let maximum = configuration.maximumStreamsPerCentral
        return try state.withLock { state throws -> UInt32 in
            if let hosted = state.hosted[key.call], state.closing.contains(key.call) {
                throw BLEActorSystemError.hostingStopped(hosted.actor.id)
            }
            guard var session = state.sessions[key] else { throw BleuError.notConnected(key.central) }
            guard session.streams.count < maximum else {
                throw BleuError.limitReached(.streamsPerActor(maximum))
            }
            let id = session.nextStream
            session.nextStream = (session.nextStream &+ 1) & 0x0FFF_FFFF
            session.streams[id] = OutboundStream()
            state.sessions[key] = session
            return id
        }
    }

    /// Starts pulling the sources of streams whose reply went out; forgets them when it did not
    /// (the call had been answered already).
    func startStreams(_ streams: [(UInt32, StreamPump)], replied: Bool, key: SessionKey) {
        for (id, pump) in streams {
            state.withLock { state in
                guard state.sessions[key]?.streams[id] != nil else { return }
                guard replied, !state.closing.contains(key.call) else {
                    state.sessions[key]?.streams[id] = nil
                    return
                }
                state.sessions[key]?.streams[id]?.task = Task { await self.run(pump, stream: id, key: key) }
            }
        }
    }

    private func run(_ pump: StreamPump, stream id: UInt32, key: SessionKey) async {
        do {
            try await pump(configuration.encoder) { bytes in
                guard await self.takeCredit(for: id, key: key) else { throw CancellationError() }
                await self.send(.streamElement(stream: id, bytes), key: key)
            }
            guard removeStream(id, key: key) else { return }
            await send(.streamEnd(stream: id), key: key)
        } catch {
            // Gone already: the central cancelled it or left, or the host ended it with a reply
            // of its own.
            guard removeStream(id, key: key) else { return }
            // Still registered: the source itself failed, or was cancelled on this side. Either
            // way the caller must hear that the stream is over.
            let failure: any Error = error is CancellationError
                ? BLEActorSystemError.cancelledByPeripheral(stream: id)
                : error
            configuration.logger.info("stream \(id) to \(key.central) failed: \(failure)")
            await send(ErrorEnvelope.reply(failing: id, with: failure, encoder: configuration.encoder), key: key)
        }
    }

    /// Waits for a credit of the stream; `false` once the stream was cancelled or its central left.
    private func takeCredit(for id: UInt32, key: SessionKey) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let now: Bool? = state.withLock { state in
                guard var stream = state.sessions[key]?.streams[id] else { return false }
                if stream.credits > 0 {
                    stream.credits -= 1
                    state.sessions[key]?.streams[id] = stream
                    return true
                }
                stream.waiter = continuation
                state.sessions[key]?.streams[id] = stream
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// The central has room for more elements.
    func grant(_ credits: UInt32, to id: UInt32, key: SessionKey) {
        let waiter: CheckedContinuation<Bool, Never>? = state.withLock { state in
            guard var stream = state.sessions[key]?.streams[id] else { return nil }
            stream.credits = min(stream.credits + Int(credits), 1 << 20)
            let waiter = stream.waiter
            if waiter != nil {
                stream.waiter = nil
                stream.credits -= 1
            }
            state.sessions[key]?.streams[id] = stream
            return waiter
        }
        waiter?.resume(returning: true)
    }

    /// The central stopped consuming: the source's iteration is cancelled.
    func cancelStream(_ id: UInt32, key: SessionKey) {
        let stream = state.withLock { $0.sessions[key]?.streams.removeValue(forKey: id) }
        stream?.task?.cancel()
        stream?.waiter?.resume(returning: false)
    }

    /// Forgets a stream; `false` when it was gone already (cancelled).
    private func removeStream(_ id: UInt32, key: SessionKey) -> Bool {
        state.withLock { $0.sessions[key]?.streams.removeValue(forKey: id) } != nil
    }
}
