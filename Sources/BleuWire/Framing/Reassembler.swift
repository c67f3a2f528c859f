/// Reassembles messages from the fragments of many peers, within ``ReassemblyLimits``.
///
/// A value with no I/O and no clock of its own: the shell passes each received fragment with the
/// peer it came from and the current instant of whatever clock it injects, and calls
/// ``expire(now:)`` from a timer (``nextDeadline`` says when) so that messages whose fragments
/// stopped arriving are dropped. Call ``removePeer(_:)`` when a peer disconnects: the peer's
/// fragmenter starts afresh on a new connection.
///
/// ```swift
/// var reassembler = Reassembler<UUID, ContinuousClock.Instant>(format: .compact)
/// switch try reassembler.receive(value, from: peripheral, now: clock.now) {
/// case .message(let bytes): handle(bytes)
/// case .incomplete, .duplicate, .discarded: break
/// }
/// ```
public struct Reassembler<Peer: Hashable & Sendable, Instant: InstantProtocol & Sendable>: Sendable
where Instant.Duration == Duration {
    /// The framing the peers use.
    public let format: WireFormat
    /// The bounds applied from the next fragment on.
    public var limits: ReassemblyLimits
    /// What happened so far.
    public var statistics: ReassemblyStatistics { counts }

    // The per-fragment path is split in two. What depends on the caller's types — turning the
    // instant into an offset, finding the peer — is `@inlinable`, so that it is specialised for
    // the caller's `Peer` and `Instant` (in generic form, `Instant.duration(to:)` and a
    // dictionary lookup cost hundreds of instructions a fragment). The peers' state machines
    // (`CompactPeer`, `Bleu24Peer`) are not generic and stay compiled once, here.
    @usableFromInline var counts = ReassemblyStatistics()
    @usableFromInline var compactPeers: [Peer: CompactPeer] = [:]
    @usableFromInline var bleu24Peers: [Peer: Bleu24Peer] = [:]
    /// The peer of the latest fragment and its entry, so that a run of fragments from one peer
    /// looks it up once. Cleared whenever a table gains or loses an entry (which may move the
    /// others); changing an entry's value in place keeps every index valid.
    @usableFromInline var recentCompact: (peer: Peer, entry: Dictionary<Peer, CompactPeer>.Index)?
    @usableFromInline var recentBleu24: (peer: Peer, entry: Dictionary<Peer, Bleu24Peer>.Index)?
    /// The first instant seen; per-peer state keeps times as offsets from it, so that it needs no
    /// generic clock type (and is compiled once, fully specialised).
    @usableFromInline var origin: Instant?

    /// `now` as an offset from ``origin``.
    @inlinable
    mutating func offset(_ now: Instant) -> Duration {
        // Optional chaining borrows the stored origin where `if let` would copy it out, which
        // for a resilient instant type (`ContinuousClock.Instant`) goes through value witnesses.
        if let offset = origin?.duration(to: now) { return offset }
        origin = now
        return .zero
    }

    /// A reassembler holding nothing yet, for fragments in `format`, within `limits`.
    public init(format: WireFormat = .compact, limits: ReassemblyLimits = ReassemblyLimits()) {
        self.format = format
        self.limits = limits
    }

    /// Takes one fragment from `peer`, received at `now`.
    ///
    /// - Returns: the completed message, or what became of the fragment.
    /// - Throws: ``WireError``: ``WireError/malformedFragment(_:)`` saying what is wrong with it,
    ///   ``WireError/checksumMismatch(expected:computed:message:)``, or a limit
    ///   (``WireError/messageTooLarge(size:maximum:)``, ``WireError/tooManyMessagesInFlight(limit:)``,
    ///   ``WireError/bufferLimitExceeded(bytes:limit:)``, ``WireError/tooManyPeers(limit:)``). Every
    ///   refusal frees what was held for that message; later fragments of a refused message are
    ///   ``ReassemblyOutcome/discarded``.
    @inlinable
    public mutating func receive<Bytes: Sequence<UInt8>>(_ fragment: Bytes, from peer: Peer, now: Instant) throws(WireError) -> ReassemblyOutcome {
        let at = offset(now)
        let result: Result<ReassemblyOutcome, WireError>? = fragment.withContiguousStorageIfAvailable { buffer in
            Result { () throws(WireError) in try receive(UnsafeRawBufferPointer(buffer), from: peer, at: at) }
        }
        if let result { return try result.get() }
        let copy = Array(fragment)
        return try copy.withUnsafeBytes { buffer in
            Result { () throws(WireError) in try receive(buffer, from: peer, at: at) }
        }.get()
    }

    /// One fragment from a peer, at offset `at`: its entry (from the latest fragment's when the
    /// peer is the same), then the peer's state machine.
    @inlinable
    mutating func receive(_ fragment: UnsafeRawBufferPointer, from peer: Peer, at: Duration) throws(WireError) -> ReassemblyOutcome {
        do throws(WireError) {
            switch format {
            case .compact:
                let entry: Dictionary<Peer, CompactPeer>.Index
                if let recent = recentCompact, recent.peer == peer {
                    entry = recent.entry
                } else if let found = compactPeers.index(forKey: peer) {
                    entry = found
                    recentCompact = (peer, found)
                } else {
                    return try receiveFromNewPeer(fragment, from: peer, at: at)
                }
                return try compactPeers.values[entry].receive(fragment, now: at, limits: limits, statistics: &counts)
            case .bleu24:
                let entry: Dictionary<Peer, Bleu24Peer>.Index
                if let recent = recentBleu24, recent.peer == peer {
                    entry = recent.entry
                } else if let found = bleu24Peers.index(forKey: peer) {
                    entry = found
                    recentBleu24 = (peer, found)
                } else {
                    return try receiveFromNewPeer(fragment, from: peer, at: at)
                }
                return try bleu24Peers.values[entry].receive(fragment, now: at, limits: limits, statistics: &counts)
            }
        } catch {
            counts.rejections += 1
            throw error
        }
    }

    /// The first fragment from a peer without an entry: checked for length before the peer takes
    /// a place in the table (making room if it must).
    @usableFromInline
    mutating func receiveFromNewPeer(_ fragment: UnsafeRawBufferPointer, from peer: Peer, at: Duration) throws(WireError) -> ReassemblyOutcome {
        let minimum = format == .compact ? format.minimumFragmentLength : format.headerLength
        guard fragment.count >= minimum else {
            throw WireError.malformedFragment(.tooShort(length: fragment.count, minimum: minimum))
        }
        try makeRoom()
        forgetRecentEntries()
        switch format {
        case .compact:
            compactPeers[peer] = CompactPeer()
            return try compactPeers[peer]!.receive(fragment, now: at, limits: limits, statistics: &counts)
        case .bleu24:
            bleu24Peers[peer] = Bleu24Peer()
            return try bleu24Peers[peer]!.receive(fragment, now: at, limits: limits, statistics: &counts)
        }
    }

    /// Drops the cached entries: a table is about to gain or lose one.
    private mutating func forgetRecentEntries() {
        recentCompact = nil
        recentBleu24 = nil
    }

    /// Before a new peer is added: evicts an idle peer if the table is full, else refuses.
    private mutating func makeRoom() throws(WireError) {
        guard peerCount >= limits.maximumPeers else { return }
        forgetRecentEntries()
        if let idle = compactPeers.first(where: { $0.value.isIdle })?.key {
            compactPeers[idle] = nil
        } else if let idle = bleu24Peers.first(where: { $0.value.isIdle })?.key {
            bleu24Peers[idle] = nil
        } else {
            throw .tooManyPeers(limit: limits.maximumPeers)
        }
    }

    /// Drops incomplete messages that received no fragment for ``ReassemblyLimits/timeout`` or
    /// longer, freeing their bytes, and returns them.
    @inlinable
    public mutating func expire(now: Instant) -> [ReassemblyTimeout<Peer>] {
        // Callers ask on every fragment, and nearly always nothing is half received: answered
        // without converting the instant or copying the peers' keys, and inlined so that the
        // check is specialised for the caller's `Peer` (in generic form it looked up the tables'
        // metadata and witnesses, about 4,000 instructions a message).
        guard compactPeers.values.contains(where: { !$0.isIdle }) || bleu24Peers.values.contains(where: { !$0.isIdle }) else {
            return []
        }
        return expireIncomplete(now: now)
    }

    /// ``expire(now:)`` once some peer has a message half received.
    @usableFromInline
    mutating func expireIncomplete(now: Instant) -> [ReassemblyTimeout<Peer>] {
        var expired: [ReassemblyTimeout<Peer>] = []
        let now = offset(now)
        forgetRecentEntries()
        for peer in Array(compactPeers.keys) {
            for (id, bytes) in compactPeers[peer]!.expire(now: now, timeout: limits.timeout) {
                expired.append(ReassemblyTimeout(peer: peer, message: id, receivedBytes: bytes))
            }
        }
        for peer in Array(bleu24Peers.keys) {
            for (id, bytes) in bleu24Peers[peer]!.expire(now: now, timeout: limits.timeout) {
                expired.append(ReassemblyTimeout(peer: peer, message: id, receivedBytes: bytes))
            }
        }
        counts.messagesTimedOut += expired.count
        return expired
    }

    /// When the earliest incomplete message times out, if any: schedule ``expire(now:)`` then.
    public var nextDeadline: Instant? {
        let compact = compactPeers.values.compactMap { $0.nextDeadline(timeout: limits.timeout) }
        let bleu24 = bleu24Peers.values.compactMap { $0.nextDeadline(timeout: limits.timeout) }
        guard let origin, let earliest = (compact + bleu24).min() else { return nil }
        return origin.advanced(by: earliest)
    }

    /// Forgets everything about `peer`, such as when it disconnects.
    public mutating func removePeer(_ peer: Peer) {
        forgetRecentEntries()
        compactPeers[peer] = nil
        bleu24Peers[peer] = nil
    }

    /// Peers with reassembly state.
    public var peerCount: Int { compactPeers.count + bleu24Peers.count }

    /// Bytes held for `peer`'s incomplete messages, as ``ReassemblyLimits/maximumBufferedBytes``
    /// counts them: the payload received (compact), or each message's buffer up to its furthest
    /// fragment (bleu24).
    public func bufferedBytes(for peer: Peer) -> Int {
        compactPeers[peer]?.bufferedBytes ?? bleu24Peers[peer]?.bufferedBytes ?? 0
    }

    /// Heap bytes allocated for `peer`'s incomplete messages (buffer capacities and bleu24's
    /// fragment bitsets): at most about twice ``bufferedBytes(for:)``, as arrays grow by doubling.
    func allocatedBytes(for peer: Peer) -> Int {
        compactPeers[peer]?.allocatedBytes ?? bleu24Peers[peer]?.allocatedBytes ?? 0
    }

    /// `peer`'s incomplete messages.
    public func messagesInFlight(for peer: Peer) -> Int {
        compactPeers[peer]?.messagesInFlight ?? bleu24Peers[peer]?.messagesInFlight ?? 0
    }
}
