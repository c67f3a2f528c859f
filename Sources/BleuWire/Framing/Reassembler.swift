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
    public private(set) var statistics = ReassemblyStatistics()
    private var compactPeers: [Peer: CompactPeer] = [:]
    private var bleu24Peers: [Peer: Bleu24Peer] = [:]
    /// The first instant seen; per-peer state keeps times as offsets from it, so that it needs no
    /// generic clock type (and is compiled once, fully specialised).
    private var origin: Instant?

    /// `now` as an offset from ``origin``.
    private mutating func offset(_ now: Instant) -> Duration {
        guard let origin else {
            origin = now
            return .zero
        }
        return origin.duration(to: now)
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
    public mutating func receive<Bytes: Sequence<UInt8>>(_ fragment: Bytes, from peer: Peer, now: Instant) throws(WireError) -> ReassemblyOutcome {
        let result: Result<ReassemblyOutcome, WireError>? = fragment.withContiguousStorageIfAvailable { buffer in
            Result { () throws(WireError) in try receive(UnsafeRawBufferPointer(buffer), from: peer, now: now) }
        }
        if let result { return try result.get() }
        let copy = Array(fragment)
        return try copy.withUnsafeBytes { buffer in
            Result { () throws(WireError) in try receive(buffer, from: peer, now: now) }
        }.get()
    }

    private mutating func receive(_ fragment: UnsafeRawBufferPointer, from peer: Peer, now: Instant) throws(WireError) -> ReassemblyOutcome {
        do throws(WireError) {
            let minimum = format == .compact ? format.minimumFragmentLength : format.headerLength
            guard fragment.count >= minimum else {
                throw WireError.malformedFragment(.tooShort(length: fragment.count, minimum: minimum))
            }
            switch format {
            // One hash of the peer per fragment: its entry is found once and mutated in place.
            case .compact:
                var entry = compactPeers.index(forKey: peer)
                if entry == nil {
                    try makeRoom()
                    compactPeers[peer] = CompactPeer()
                    entry = compactPeers.index(forKey: peer)
                }
                let at = offset(now)
                return try compactPeers.values[entry!].receive(fragment, now: at, limits: limits, statistics: &statistics)
            case .bleu24:
                var entry = bleu24Peers.index(forKey: peer)
                if entry == nil {
                    try makeRoom()
                    bleu24Peers[peer] = Bleu24Peer()
                    entry = bleu24Peers.index(forKey: peer)
                }
                let at = offset(now)
                return try bleu24Peers.values[entry!].receive(fragment, now: at, limits: limits, statistics: &statistics)
            }
        } catch {
            statistics.rejections += 1
            throw error
        }
    }

    /// Before a new peer is added: evicts an idle peer if the table is full, else refuses.
    private mutating func makeRoom() throws(WireError) {
        guard peerCount >= limits.maximumPeers else { return }
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
    public mutating func expire(now: Instant) -> [ReassemblyTimeout<Peer>] {
        // Callers ask on every fragment, and nearly always nothing is half received: answered
        // without converting the instant or copying the peers' keys.
        guard compactPeers.values.contains(where: { !$0.isIdle }) || bleu24Peers.values.contains(where: { !$0.isIdle }) else {
            return []
        }
        var expired: [ReassemblyTimeout<Peer>] = []
        let now = offset(now)
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
        statistics.messagesTimedOut += expired.count
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
