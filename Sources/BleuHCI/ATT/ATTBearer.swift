import BleuATT
import BleuCore

/// The client side of one ATT bearer: at most one request outstanding (Core Spec Vol 3 Part F
/// §3.3.2), each bounded by the 30-second transaction timeout, after which the bearer is dead
/// (§3.3.3: no further PDUs may be sent on it). Notifications and indications arrive on
/// ``notifications``; indications are confirmed automatically.
///
/// The bearer does not own the link: `send` puts PDUs on it, and the link owner feeds what
/// arrives to ``receive(_:)``.
public actor ATTBearer {
    /// A value the server pushed.
    public struct Notification: Sendable, Hashable {
        public var handle: UInt16
        public var value: [UInt8]
        public var isIndication: Bool
    }

    private let sendPDU: @Sendable ([UInt8]) async throws -> Void
    private let clock: any Clock<Duration>
    /// How long a request may wait for its response.
    public let timeout: Duration
    private var pending: (id: UInt64, request: ATTOpcode, continuation: CheckedContinuation<ATTPDU, any Error>)?
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var busy = false
    private var nextID: UInt64 = 0
    /// Why the bearer ended (an ATT timeout, or the link's end): every later request fails with it.
    private var endedWith: (any Error)?
    private let maxWaiting: Int

    /// What the server pushed, in order (bounded; the oldest are kept past `notificationLimit`).
    public nonisolated let notifications: AsyncStream<Notification>
    private let notificationSink: AsyncStream<Notification>.Continuation

    public init(clock: any Clock<Duration> = ContinuousClock(), timeout: Duration = .seconds(30), maxWaiting: Int = 64,
                notificationLimit: Int = 1024, send: @escaping @Sendable ([UInt8]) async throws -> Void) {
        self.clock = clock
        self.timeout = timeout
        self.maxWaiting = maxWaiting
        self.sendPDU = send
        (notifications, notificationSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(notificationLimit))
    }

    /// Values the consumer of ``notifications`` left behind: its buffer was full, so they were
    /// dropped (and counted here) rather than buffered without bound.
    public private(set) var droppedNotifications = 0

    private func deliver(_ notification: Notification) {
        if case .dropped = notificationSink.yield(notification) { droppedNotifications += 1 }
    }

    /// Sends a request and returns the server's response — an ``/BleuATT/ATTPDU/errorResponse(requestOpcode:handle:error:)``
    /// included. Waits for any earlier request to finish first. Throws ``/BleuCore/BleuError/timeout(_:after:)``
    /// when no response comes in time (and for every request after that).
    public func request(_ pdu: ATTPDU) async throws -> ATTPDU {
        if let endedWith { throw endedWith }
        if busy {
            guard waiting.count < maxWaiting else {
                throw BleuError.limitReached(.queuedOperations(maxWaiting))
            }
            await withCheckedContinuation { waiting.append($0) }
            if let endedWith { throw endedWith }
        }
        busy = true
        defer {
            busy = false
            if !waiting.isEmpty { waiting.removeFirst().resume() }
        }
        nextID += 1
        let id = nextID
        let timer = Task { [clock, timeout] in
            do { try await clock.sleep(for: timeout) } catch { return }
            self.timedOut(id)
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            pending = (id, pdu.opcode, continuation)
            let bytes = pdu.encoded
            Task {
                do {
                    try await sendPDU(bytes)
                } catch {
                    self.fail(id, error)
                }
            }
        }
    }

    /// Sends a command or confirmation: no response expected.
    public func send(_ pdu: ATTPDU) async throws {
        if let endedWith { throw endedWith }
        try await sendPDU(pdu.encoded)
    }

    /// Feeds a PDU from the server. Returns `false` when it is not for the client side (a request
    /// the local server must answer).
    @discardableResult
    public func receive(_ bytes: [UInt8]) async -> Bool {
        guard let pdu = try? ATTPDU(decoding: bytes) else {
            return ATTOpcode(rawValue: bytes.first ?? 0).method == .request ? false : true
        }
        switch pdu {
        case let .handleValueNotification(handle, value):
            deliver(Notification(handle: handle, value: value, isIndication: false))
        case let .multipleHandleValueNotification(entries):
            for e in entries { deliver(Notification(handle: e.handle, value: e.value, isIndication: false)) }
        case let .handleValueIndication(handle, value):
            deliver(Notification(handle: handle, value: value, isIndication: true))
            do {
                try await sendPDU(ATTPDU.handleValueConfirmation.encoded)
            } catch {
                // Only a closed link refuses the confirmation, and then no server waits for it.
            }
        default:
            guard pdu.opcode.method == .response else { return false }
            guard let current = pending else { return true }  // a late or unsolicited response: ignored
            if case let .errorResponse(request, _, _) = pdu, request != current.request { return true }
            pending = nil
            current.continuation.resume(returning: pdu)
        }
        return true
    }

    private func timedOut(_ id: UInt64) {
        guard let current = pending, current.id == id else { return }
        pending = nil
        let error = BleuError.timeout(.attRequest(opcode: current.request.rawValue), after: timeout)
        endedWith = error
        current.continuation.resume(throwing: error)
        notificationSink.finish()
    }

    private func fail(_ id: UInt64, _ error: any Error) {
        guard let current = pending, current.id == id else { return }
        pending = nil
        current.continuation.resume(throwing: error)
    }

    /// Ends the bearer (the link dropped): the outstanding request fails with `error`.
    public func close(_ error: any Error) {
        endedWith = endedWith ?? error
        if let current = pending {
            pending = nil
            current.continuation.resume(throwing: error)
        }
        for waiter in waiting { waiter.resume() }
        waiting = []
        notificationSink.finish()
    }
}
