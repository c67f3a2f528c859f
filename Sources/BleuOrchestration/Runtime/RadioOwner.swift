import BleuCore
import Foundation

/// The one owner of the radio: it alone scans, connects and cancels connections, and it caps
/// how many connection attempts run at once so a fleet does not thrash the radio. Attempts
/// beyond the cap wait in arrival order. It also forwards the central's events, unchanged, to
/// whoever routes them (it makes no decision on them).
actor RadioOwner {
    nonisolated let central: any CentralManager
    let maximumAttempts: Int
    let connectTimeout: Duration

    private var inFlight: [UUID: Int] = [:]
    private var active = 0
    private var waiters: [(ticket: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextTicket: UInt64 = 0
    private var eventTask: Task<Void, Never>?

    /// Attempts started for a device that already had one under way (the engine must keep it at 0).
    private(set) var overlappingAttempts = 0
    /// The most attempts that ran at once.
    private(set) var peakAttempts = 0
    /// Attempts started so far.
    private(set) var attemptCount = 0

    init(central: any CentralManager, maximumAttempts: Int, connectTimeout: Duration) {
        self.central = central
        self.maximumAttempts = max(1, maximumAttempts)
        self.connectTimeout = connectTimeout
    }

    /// Starts forwarding the central's events to `route`, in order.
    func startEvents(_ route: @escaping @Sendable (CentralEvent) async -> Void) {
        guard eventTask == nil else { return }
        let events = central.events()
        eventTask = Task {
            for await event in events { await route(event) }
        }
    }

    func stopEvents() {
        eventTask?.cancel()
        eventTask = nil
    }

    /// Resolves a peripheral: whether the central knows it (seen in a scan, connected before,
    /// bonded or restored) and so can connect without scanning.
    func resolve(_ id: UUID) async throws {
        let known = await central.retrievePeripherals(withIdentifiers: [id])
        guard known.contains(where: { $0.id == id }) else { throw BleuError.peripheralNotFound(id) }
    }

    /// Connects, after waiting for a slot under the cap.
    func connect(_ id: UUID) async throws {
        try await acquire()
        defer { release(id) }
        if inFlight[id, default: 0] > 0 { overlappingAttempts += 1 }
        inFlight[id, default: 0] += 1
        attemptCount += 1
        try await central.connect(id, timeout: connectTimeout)
    }

    /// Cancels a connection or an attempt.
    func cancel(_ id: UUID) async {
        await central.cancelConnection(id)
    }

    /// Scans (ending any running scan).
    func scan(_ options: ScanOptions) async throws -> AsyncThrowingStream<Advertisement, any Error> {
        try await central.scan(options)
    }

    func stopScan() async {
        await central.stopScan()
    }

    /// The number of attempts under way now.
    var activeAttempts: Int { active }

    // MARK: The cap

    private func acquire() async throws {
        if active < maximumAttempts && waiters.isEmpty {
            active += 1
            peakAttempts = max(peakAttempts, active)
            return
        }
        nextTicket += 1
        let ticket = nextTicket
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: BleuError.cancelled)
                } else {
                    waiters.append((ticket, continuation))
                }
            }
        } onCancel: {
            Task { await self.abandon(ticket) }
        }
    }

    private func abandon(_ ticket: UInt64) {
        guard let index = waiters.firstIndex(where: { $0.ticket == ticket }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: BleuError.cancelled)
    }

    private func release(_ id: UUID) {
        inFlight[id, default: 1] -= 1
        if inFlight[id] == 0 { inFlight.removeValue(forKey: id) }
        if waiters.isEmpty {
            active -= 1
        } else {
            // The slot passes straight to the next waiter.
            waiters.removeFirst().continuation.resume()
        }
    }
}
