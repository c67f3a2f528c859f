import BleuCore
import Foundation

/// The one LE Create Connection a controller runs at a time.
struct ConnectAttempt {
    let id: UInt64
    let peer: UUID
    let address: BluetoothAddress
    let continuation: CheckedContinuation<ConnectionHandle, any Error>
    /// Why the attempt is being cancelled, once it is: the error the caller gets.
    var cancellation: BleuError?
}

/// The peers a radio knows and its connections to them: the peer directory, each link by its
/// handle, the one LE Create Connection the controller runs at a time and the callers queued
/// for it, and the callers waiting for a new central link's setup or for a link to close.
///
/// A value the radio owns. It resumes the continuations it holds; commands, timers and events
/// are the radio's.
struct ConnectionTable {
    /// What became of a connection the controller reported.
    enum Admission: Equatable {
        /// A peripheral link: ready at once.
        case ready
        /// Our attempt's link: its caller goes on to set it up.
        case awaitingSetup
        /// No attempt of ours asked for it: disconnect it.
        case unwanted
        /// The link won the race with our cancel, and its caller gave up: disconnect it.
        case abandoned
    }

    private(set) var peers: PeerDirectory
    private var links: [ConnectionHandle: HCILink] = [:]
    /// The running LE Create Connection, if any.
    private(set) var attempt: ConnectAttempt?
    private var lastAttemptID: UInt64 = 0
    /// Whether a caller holds the connect slot, and the callers waiting for it, in order.
    private var slotTaken = false
    private var slotWaiters: [CheckedContinuation<Void, Never>] = []
    /// Setups of new central links that `connect` waits for.
    private var setupWaiters: [ConnectionHandle: [CheckedContinuation<Void, any Error>]] = [:]
    /// Callers of `cancelConnection` waiting for the Disconnection Complete.
    private var closeWaiters: [ConnectionHandle: [CheckedContinuation<Void, Never>]] = [:]

    init(peers: PeerDirectory) {
        self.peers = peers
    }

    // MARK: Peers

    /// The peer's identifier, remembering it (and its name); connected peers are never forgotten
    /// to make room in the directory. `resolve` gives the identity a bond resolves the address to
    /// (``PeerDirectory/identify(_:type:name:isProtected:resolve:)``).
    mutating func identify(_ address: BluetoothAddress, type: AddressType, name: String? = nil,
                           resolve: () -> PairingAddress? = { nil }) -> UUID {
        let links = self.links
        return peers.identify(address, type: type, name: name, isProtected: { id in links.values.contains { $0.peer == id } },
                              resolve: resolve)
    }

    /// The peer `id` paired and gave its identity (``PeerDirectory/noteIdentity(_:of:)``).
    mutating func noteIdentity(_ identity: PairingAddress, of id: UUID) {
        peers.noteIdentity(identity, of: id)
    }

    /// Starts over with a directory for a new local address (the radio started).
    mutating func resetPeers(_ directory: PeerDirectory) {
        peers = directory
    }

    // MARK: Links

    var count: Int { links.count }
    var handles: [ConnectionHandle] { Array(links.keys) }
    var all: Dictionary<ConnectionHandle, HCILink>.Values { links.values }

    subscript(handle: ConnectionHandle) -> HCILink? { links[handle] }

    /// Our central link to `peer`, ready or not.
    func centralLink(to peer: UUID) -> HCILink? {
        links.values.first { $0.peer == peer && $0.role == .central }
    }

    /// A link to `peer` in either role.
    func anyLink(to peer: UUID) -> HCILink? {
        links.values.first { $0.peer == peer }
    }

    /// Whether our central link to `peer` is ready for the application.
    func isConnected(_ peer: UUID) -> Bool {
        centralLink(to: peer)?.isReady ?? false
    }

    mutating func setMTU(_ mtu: Int, on handle: ConnectionHandle) {
        links[handle]?.mtu = mtu
    }

    /// Marks the link ready; returns it.
    mutating func setReady(_ handle: ConnectionHandle) -> HCILink? {
        links[handle]?.isReady = true
        return links[handle]
    }

    mutating func markDisconnectRequested(_ handle: ConnectionHandle) {
        links[handle]?.disconnectRequested = true
    }

    /// A fresh LE signalling identifier for a request on the link (1 when there is no link).
    mutating func signalIdentifier(on handle: ConnectionHandle) -> UInt8 {
        links[handle]?.signalIdentifier() ?? 1
    }

    // MARK: Connecting

    /// Takes the connect slot when it is free; `false` when the caller must ``waitForSlot(_:)``.
    mutating func takeSlot() -> Bool {
        guard !slotTaken else { return false }
        slotTaken = true
        return true
    }

    mutating func waitForSlot(_ waiter: CheckedContinuation<Void, Never>) {
        slotWaiters.append(waiter)
    }

    /// Hands the slot to the next waiter, or frees it.
    mutating func releaseSlot() {
        if slotWaiters.isEmpty {
            slotTaken = false
        } else {
            slotWaiters.removeFirst().resume()
        }
    }

    mutating func nextAttemptID() -> UInt64 {
        lastAttemptID += 1
        return lastAttemptID
    }

    mutating func begin(_ attempt: ConnectAttempt) {
        self.attempt = attempt
    }

    /// Marks attempt `id` cancelled, with the error its caller gets; returns it when it was
    /// running and not cancelled yet.
    mutating func cancelAttempt(_ id: UInt64, because reason: BleuError) -> ConnectAttempt? {
        guard var attempt, attempt.id == id, attempt.cancellation == nil else { return nil }
        attempt.cancellation = reason
        self.attempt = attempt
        return attempt
    }

    /// Ends attempt `id` (when it still runs) with `error`.
    mutating func failAttempt(_ id: UInt64, _ error: any Error) {
        guard let attempt, attempt.id == id else { return }
        self.attempt = nil
        attempt.continuation.resume(throwing: error)
    }

    /// The controller reports that the running attempt failed with `status`.
    mutating func attemptFailed(status: UInt8) {
        guard let attempt else { return }
        self.attempt = nil
        attempt.continuation.resume(throwing: attempt.cancellation
            ?? BleuError.connectionFailed(attempt.peer, reason: .link(DisconnectReason(hciCode: status))))
    }

    /// Adds a link the controller reported, and says what becomes of it. A central link ends
    /// the running attempt to its address: its caller gets the handle, or its cancellation
    /// when it gave up meanwhile.
    mutating func admit(_ link: HCILink) -> Admission {
        links[link.handle] = link
        switch link.role {
        case .peripheral:
            links[link.handle]?.isReady = true
            return .ready
        case .central:
            guard let attempt, attempt.address == link.address else { return .unwanted }
            self.attempt = nil
            if let cancellation = attempt.cancellation {
                attempt.continuation.resume(throwing: cancellation)
                return .abandoned
            }
            attempt.continuation.resume(returning: link.handle)
            return .awaitingSetup
        }
    }

    /// Waits for the setup of `handle` (call while it is not ready).
    mutating func waitForSetup(_ handle: ConnectionHandle, _ waiter: CheckedContinuation<Void, any Error>) {
        setupWaiters[handle, default: []].append(waiter)
    }

    /// The setup of `handle` is done: its waiters go on.
    mutating func setupFinished(_ handle: ConnectionHandle) {
        for waiter in setupWaiters.removeValue(forKey: handle) ?? [] { waiter.resume() }
    }

    // MARK: Closing

    mutating func waitUntilClosed(_ handle: ConnectionHandle, _ waiter: CheckedContinuation<Void, Never>) {
        closeWaiters[handle, default: []].append(waiter)
    }

    /// Removes a link that went down; returns it, `nil` when there was none. Then call
    /// ``releaseWaiters(of:failingSetupWith:)``.
    mutating func remove(_ handle: ConnectionHandle) -> HCILink? {
        links.removeValue(forKey: handle)
    }

    /// The waiters on a link that went down: its setup fails with `error`, closing is done.
    mutating func releaseWaiters(of handle: ConnectionHandle, failingSetupWith error: BleuError) {
        for waiter in setupWaiters.removeValue(forKey: handle) ?? [] { waiter.resume(throwing: error) }
        for waiter in closeWaiters.removeValue(forKey: handle) ?? [] { waiter.resume() }
    }

    /// The controller is gone: the running attempt fails with `error`, queued callers go on
    /// (to find the radio off).
    mutating func controllerLost(_ error: BleuError) {
        if let attempt {
            self.attempt = nil
            attempt.continuation.resume(throwing: error)
        }
        for waiter in slotWaiters { waiter.resume() }
        slotWaiters = []
    }
}
