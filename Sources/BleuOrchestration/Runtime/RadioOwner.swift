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
    /// Disconnections this owner caused by cancelling a connected link, not reported yet.
    private var ownDisconnects: [UUID: Int] = [:]

    // The scan that resolves peripherals the central does not know (RadioOwner+Scan.swift).
    /// The fleet's identifier of a device an advertisement comes from (`nil`: not one of ours).
    let identify: @Sendable (Advertisement) -> UUID?
    /// The devices scans heard, by the fleet's identifier: bounded, kept across scans.
    var sightings: [UUID: Sighting] = [:]
    let scanService: BluetoothUUID
    let scanTimeout: Duration
    let clock: ElapsedClock
    var scanWaiters: [UUID: [(ticket: UInt64, continuation: CheckedContinuation<Void, any Error>)]] = [:]
    var seenInScan: Set<UUID> = []
    var scanning = false
    var scanGeneration: UInt64 = 0
    var scanTask: Task<Void, Never>?
    var nextScanTicket: UInt64 = 0

    /// A device as a scan of this radio last heard it.
    struct Sighting: Sendable, Hashable {
        /// The identifier the central knows it by.
        var peripheral: UUID
        var rssi: Int
        var at: Duration
    }

    init(central: any CentralManager, maximumAttempts: Int, connectTimeout: Duration, scanService: BluetoothUUID,
         scanTimeout: Duration, clock: ElapsedClock, identify: @escaping @Sendable (Advertisement) -> UUID? = { $0.peripheral }) {
        self.central = central
        self.identify = identify
        self.maximumAttempts = max(1, maximumAttempts)
        self.connectTimeout = connectTimeout
        self.scanService = scanService
        self.scanTimeout = scanTimeout
        self.clock = clock
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

    /// The radio leaves the fleet: no more events, and its scan ends (whoever waits on it fails).
    func retire() {
        stopEvents()
        scanTask?.cancel()
    }

    /// Whether the central knows a peripheral by this identifier (seen in a scan, connected
    /// before, bonded or restored).
    func knows(_ peripheral: UUID) async -> Bool {
        await central.retrievePeripherals(withIdentifiers: [peripheral]).contains { $0.id == peripheral }
    }

    /// The device as a scan last heard it, if that was no longer than `lifetime` ago or at
    /// `since` or later.
    func sighting(of device: UUID, within lifetime: Duration, since: Duration? = nil) -> Sighting? {
        guard let sighting = sightings[device] else { return nil }
        if let since, sighting.at >= since { return sighting }
        return clock.now() - sighting.at <= lifetime ? sighting : nil
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

    /// Cancels a connection or an attempt. Cancelling a connected link is remembered, so the
    /// disconnection it causes is told apart from one caused by anything else on the central.
    func cancel(_ id: UUID) async {
        if await central.isConnected(id) { ownDisconnects[id, default: 0] += 1 }
        await central.cancelConnection(id)
    }

    /// Whether a disconnection of `id` is the one a ``cancel(_:)`` of this owner caused (each
    /// counts once). Any other — a link lost, or cancelled by someone else on the central — is news.
    func takeOwnDisconnect(_ id: UUID) -> Bool {
        guard let count = ownDisconnects[id] else { return false }
        ownDisconnects[id] = count > 1 ? count - 1 : nil
        return true
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
