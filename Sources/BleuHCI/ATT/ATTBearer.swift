import BleuATT
import BleuCore

/// The client side of one ATT bearer: at most one request outstanding (Core Spec Vol 3 Part F
/// §3.3.2), each bounded by the 30-second transaction timeout, after which the bearer is dead
/// (§3.3.3: no further PDUs may be sent on it). Notifications and indications arrive on
/// ``notifications``; indications are confirmed automatically.
///
/// The bearer does not own the link: `send` puts PDUs on it, and the link owner feeds what
/// arrives to ``receive(_:)``.
///
/// The bearer is a state value behind one lock, not an actor: a response resumes the request
/// waiting for it directly, from whatever feeds the bearer (the radio, on its own executor),
/// and a request runs on its caller's executor (`nonisolated(nonsending)`), so neither way
/// adds an actor hop or a task.
public final class ATTBearer: Sendable {
    /// A value the server pushed.
    public struct Notification: Sendable, Hashable {
        public var handle: UInt16
        public var value: [UInt8]
        public var isIndication: Bool
    }

    /// Puts one PDU on the link. It runs on the caller's executor: a sender that only queues
    /// the PDU (as the radio's does) costs no hop.
    public typealias Send = nonisolated(nonsending) @Sendable ([UInt8]) async throws -> Void

    /// The outstanding request: its answer, once it came, waits here for the requester.
    private enum Outcome {
        case waiting(CheckedContinuation<ATTPDU, any Error>?)
        case done(Result<ATTPDU, any Error>)
    }

    private struct Pending {
        var id: UInt64
        var request: ATTOpcode
        var outcome: Outcome
    }

    private struct State {
        var pending: Pending?
        /// Requesters waiting for their turn, oldest first.
        var waiting: [CheckedContinuation<Void, Never>] = []
        var busy = false
        var nextID: UInt64 = 0
        /// Why the bearer ended (an ATT timeout, or the link's end): every later request fails with it.
        var endedWith: (any Error)?
        var droppedNotifications = 0
    }

    private let sendPDU: Send
    private let clock: any Clock<Duration>
    /// How long a request may wait for its response.
    public let timeout: Duration
    private let maxWaiting: Int
    private let state = Locked(State())

    /// What the server pushed, in order (bounded; the oldest are kept past `notificationLimit`).
    public let notifications: AsyncStream<Notification>
    private let notificationSink: AsyncStream<Notification>.Continuation

    public init(clock: any Clock<Duration> = ContinuousClock(), timeout: Duration = .seconds(30), maxWaiting: Int = 64,
                notificationLimit: Int = 1024, send: @escaping Send) {
        self.clock = clock
        self.timeout = timeout
        self.maxWaiting = maxWaiting
        self.sendPDU = send
        (notifications, notificationSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(notificationLimit))
    }

    /// Values the consumer of ``notifications`` left behind: its buffer was full, so they were
    /// dropped (and counted here) rather than buffered without bound.
    public var droppedNotifications: Int { state.withLock { $0.droppedNotifications } }

    private func deliver(_ notification: Notification) {
        if case .dropped = notificationSink.yield(notification) { state.withLock { $0.droppedNotifications += 1 } }
    }

    /// Sends a request and returns the server's response — an ``/BleuATT/ATTPDU/errorResponse(requestOpcode:handle:error:)``
    /// included. Waits for any earlier request to finish first. Throws ``/BleuCore/BleuError/timeout(_:after:)``
    /// when no response comes in time (and for every request after that).
    nonisolated(nonsending)
    public func request(_ pdu: ATTPDU) async throws -> ATTPDU {
        try await takeTurn()
        defer { endTurn() }
        let id = try state.withLock { state throws -> UInt64 in
            if let endedWith = state.endedWith { throw endedWith }
            state.nextID += 1
            state.pending = Pending(id: state.nextID, request: pdu.opcode, outcome: .waiting(nil))
            return state.nextID
        }
        // The transaction timer: owned by this request, cancelled when it ends either way.
        let timer = Task { [clock, timeout] in
            do { try await clock.sleep(for: timeout) } catch { return }
            self.timedOut(id)
        }
        defer { timer.cancel() }
        do {
            try await sendPDU(pdu.encoded)
        } catch {
            finish(id, .failure(error))
        }
        return try await outcome(of: id, pdu.opcode)
    }

    /// Waits until no other request is outstanding.
    nonisolated(nonsending)
    private func takeTurn() async throws {
        enum Turn { case now, queued, full, ended(any Error) }
        var turn = Turn.now
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            turn = state.withLock { state in
                if let endedWith = state.endedWith { return .ended(endedWith) }
                guard state.busy else {
                    state.busy = true
                    return .now
                }
                guard state.waiting.count < maxWaiting else { return .full }
                state.waiting.append(continuation)
                return .queued
            }
            if case .queued = turn { return }
            continuation.resume()
        }
        switch turn {
        case .now: return
        case .full: throw BleuError.limitReached(.queuedOperations(maxWaiting))
        case .ended(let error): throw error
        case .queued:
            // The turn was handed over (``endTurn()`` left `busy` set), or the bearer ended.
            let ended = state.withLock { state -> (any Error)? in
                guard let endedWith = state.endedWith else { return nil }
                return endedWith
            }
            if let ended {
                endTurn()
                throw ended
            }
        }
    }

    /// Hands the turn to the oldest waiting requester, or frees it.
    private func endTurn() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }

    /// Waits for the outcome of request `id` (which may have come already) and forgets it.
    nonisolated(nonsending)
    private func outcome(of id: UInt64, _ request: ATTOpcode) async throws -> ATTPDU {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ATTPDU, any Error>) in
            let now = state.withLock { state -> Result<ATTPDU, any Error>? in
                guard var pending = state.pending, pending.id == id else {
                    return .failure(state.endedWith ?? BleuError.invalidState(.unexpectedOutcome(.attRequest(opcode: request.rawValue))))
                }
                switch pending.outcome {
                case .done(let result):
                    state.pending = nil
                    return result
                case .waiting:
                    pending.outcome = .waiting(continuation)
                    state.pending = pending
                    return nil
                }
            }
            if let now { continuation.resume(with: now) }
        }
    }

    /// Ends request `id` with `result`, once: resumes its requester if it waits already.
    private func finish(_ id: UInt64, _ result: Result<ATTPDU, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<ATTPDU, any Error>? in
            guard let pending = state.pending, pending.id == id, case .waiting(let continuation) = pending.outcome
            else { return nil }
            if let continuation {
                state.pending = nil
                return continuation
            }
            state.pending?.outcome = .done(result)
            return nil
        }
        waiter?.resume(with: result)
    }

    /// Sends a command or confirmation: no response expected.
    nonisolated(nonsending)
    public func send(_ pdu: ATTPDU) async throws {
        if let endedWith = state.withLock({ $0.endedWith }) { throw endedWith }
        try await sendPDU(pdu.encoded)
    }

    /// Feeds a PDU from the server. Returns `false` when it is not for the client side (a request
    /// the local server must answer). Confirms an indication before it returns.
    @discardableResult
    nonisolated(nonsending)
    public func receive(_ bytes: [UInt8]) async -> Bool {
        guard case .handleValueIndication(let handle, let value)? = try? ATTPDU(decoding: bytes) else {
            return take(bytes)
        }
        deliver(Notification(handle: handle, value: value, isIndication: true))
        do {
            try await sendPDU(ATTPDU.handleValueConfirmation.encoded)
        } catch {
            // Only a closed link refuses the confirmation, and then no server waits for it.
        }
        return true
    }

    /// Takes a response or a notification from the server, synchronously: a response resumes
    /// the request waiting for it. Returns `false` for a PDU the local server must answer.
    /// Indications need a confirmation sent: feed them to ``receive(_:)``.
    func take(_ bytes: [UInt8]) -> Bool {
        guard let pdu = try? ATTPDU(decoding: bytes) else {
            return ATTOpcode(rawValue: bytes.first ?? 0).method == .request ? false : true
        }
        switch pdu {
        case let .handleValueNotification(handle, value):
            deliver(Notification(handle: handle, value: value, isIndication: false))
        case let .multipleHandleValueNotification(entries):
            for e in entries { deliver(Notification(handle: e.handle, value: e.value, isIndication: false)) }
        case .handleValueIndication:
            return true  // see receive(_:)
        default:
            guard pdu.opcode.method == .response else { return false }
            let current = state.withLock { $0.pending }
            // No request outstanding: a late or unsolicited response, ignored.
            guard let current else { return true }
            if case let .errorResponse(request, _, _) = pdu, request != current.request { return true }
            finish(current.id, .success(pdu))
        }
        return true
    }

    private func timedOut(_ id: UInt64) {
        let error = state.withLock { state -> BleuError? in
            guard let pending = state.pending, pending.id == id, case .waiting = pending.outcome else { return nil }
            let error = BleuError.timeout(.attRequest(opcode: pending.request.rawValue), after: timeout)
            state.endedWith = error
            return error
        }
        guard let error else { return }
        finish(id, .failure(error))
        notificationSink.finish()
    }

    /// Ends the bearer (the link dropped): the outstanding request fails with `error`, and so
    /// does every request waiting for its turn and every later one.
    public func close(_ error: any Error) {
        let (id, waiting) = state.withLock { state -> (UInt64?, [CheckedContinuation<Void, Never>]) in
            state.endedWith = state.endedWith ?? error
            defer { state.waiting = [] }
            return (state.pending?.id, state.waiting)
        }
        if let id { finish(id, .failure(error)) }
        for waiter in waiting { waiter.resume() }
        notificationSink.finish()
    }
}
