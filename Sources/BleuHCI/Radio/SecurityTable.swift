import BleuATT
import BleuCore
import Foundation

/// The Security Manager's state on each link of an ``HCIRadio``: how the link is protected,
/// the pairing or encryption in progress, who waits for it, and the Security Manager timer. A
/// value the radio owns; it resumes the continuations it holds.
struct SecurityTable {
    /// What waits for a link to reach a level (``HCIRadio/pair(_:minimum:)``).
    struct Waiter {
        let minimum: SecurityLevel
        let continuation: CheckedContinuation<Void, any Error>
    }

    /// One link's security.
    struct Link {
        let role: PairingSession.Role
        /// How the link is protected now.
        var security = LinkSecurity.unencrypted
        /// The pairing in progress.
        var session: PairingSession?
        /// Numbers each pairing (and each wait for the delegate's consent), so an answer that
        /// arrives after its pairing ended is dropped.
        var generation: UInt64 = 0
        /// A peer's Pairing Request (or Security Request) waits for the delegate's consent.
        var awaitingConsent = false
        /// Encryption with a bond's key in progress: what the link gets once it is encrypted.
        var pendingEncryption: LinkSecurity?
        var waiters: [Waiter] = []
        /// The Security Manager timer expired: no SMP PDU goes out on this link any more and no
        /// pairing starts (Vol 3 Part H §3.4).
        var timedOut = false
        /// The running Security Manager timer.
        var timer: Task<Void, Never>?

        /// Whether a pairing, an encryption or a peer's request is in progress.
        var isBusy: Bool { session != nil || awaitingConsent || pendingEncryption != nil }
    }

    private var links: [ConnectionHandle: Link] = [:]
    /// Out-of-band data: this radio's (handed out), and what each peer handed over.
    var localOutOfBand: LocalOutOfBand?
    var peerOutOfBand: [UUID: OutOfBandData] = [:]
    var outOfBandTemporaryKeys: [UUID: [UInt8]] = [:]

    /// What a pairing with `peer` may use out of band.
    func outOfBand(for peer: UUID) -> PairingOutOfBand {
        PairingOutOfBand(local: localOutOfBand, peer: peerOutOfBand[peer], temporaryKey: outOfBandTemporaryKeys[peer])
    }
    /// Peers whose pairing attempts are held back after failures.
    var attempts = RepeatedAttempts()

    subscript(handle: ConnectionHandle) -> Link? {
        get { links[handle] }
        set { links[handle] = newValue }
    }

    mutating func linkOpened(_ handle: ConnectionHandle, role: PairingSession.Role) {
        links[handle] = Link(role: role)
    }

    /// The link went down: its timer stops and what waits on it fails with `error`.
    mutating func linkClosed(_ handle: ConnectionHandle, error: any Error) {
        guard let link = links.removeValue(forKey: handle) else { return }
        link.timer?.cancel()
        for waiter in link.waiters { waiter.continuation.resume(throwing: error) }
    }

    /// A fresh generation for the link's next pairing or consent.
    mutating func nextGeneration(_ handle: ConnectionHandle) -> UInt64 {
        links[handle]?.generation += 1
        return links[handle]?.generation ?? 0
    }

    /// The link's protection changed: waiters whose minimum it meets go on. When nothing is in
    /// progress any more, the others fail with `shortfall`.
    mutating func setSecurity(_ security: LinkSecurity, on handle: ConnectionHandle, shortfall: @autoclosure () -> any Error) {
        guard var link = links[handle] else { return }
        link.security = security
        let met = link.waiters.filter { $0.minimum <= security.level }
        let unmet = link.waiters.filter { $0.minimum > security.level }
        link.waiters = unmet
        if !link.isBusy {
            if !unmet.isEmpty {
                let error = shortfall()
                for waiter in unmet { waiter.continuation.resume(throwing: error) }
            }
            link.waiters = []
        }
        links[handle] = link
        for waiter in met { waiter.continuation.resume() }
    }

    /// Everything waiting on the link fails with `error`.
    mutating func failWaiters(on handle: ConnectionHandle, _ error: any Error) {
        guard let waiters = links[handle]?.waiters else { return }
        links[handle]?.waiters = []
        for waiter in waiters { waiter.continuation.resume(throwing: error) }
    }
}

/// The peers whose pairing attempts are held back (Vol 3 Part H §2.3.6, Repeated Attempts):
/// after each failed pairing with a peer, a new Pairing Request or Security Request from it is
/// refused for a while, twice as long after each further failure up to a limit, so a device in
/// range cannot try passkeys quickly. A successful pairing clears the peer's record.
struct RepeatedAttempts {
    /// Peers with failures remembered at most; the oldest record goes first.
    static let capacity = 64

    private struct Record {
        var failures: Int
        /// Set while held back: the number of the hold, so a release from an older one is ignored.
        var hold: UInt64?
        var order: UInt64
    }

    private var records: [BluetoothAddress: Record] = [:]
    private var counter: UInt64 = 0

    /// Whether requests from `peer` are refused now.
    func isHeld(_ peer: BluetoothAddress) -> Bool { records[peer]?.hold != nil }

    /// A pairing with `peer` failed: it is held back. Returns the hold's number and how many
    /// failures in a row it has.
    mutating func failed(_ peer: BluetoothAddress) -> (hold: UInt64, failures: Int) {
        counter += 1
        var record = records[peer] ?? Record(failures: 0, order: counter)
        record.failures += 1
        record.hold = counter
        record.order = counter
        records[peer] = record
        if records.count > Self.capacity, let oldest = records.min(by: { $0.value.order < $1.value.order })?.key {
            records[oldest] = nil
        }
        return (counter, record.failures)
    }

    /// The hold numbered `hold` on `peer` ends (its failures stay counted).
    mutating func release(_ peer: BluetoothAddress, hold: UInt64) {
        if records[peer]?.hold == hold { records[peer]?.hold = nil }
    }

    /// A pairing with `peer` succeeded: its record goes.
    mutating func succeeded(_ peer: BluetoothAddress) {
        records[peer] = nil
    }

    /// How long a peer with `failures` failures in a row is held back: `base` after the first,
    /// doubling after each further one, at most `limit`.
    static func delay(failures: Int, base: Duration, limit: Duration) -> Duration {
        let doublings = min(max(failures - 1, 0), 30)
        return min(base * (1 << doublings), limit)
    }
}
