/// Bounds on what a ``Reassembler`` holds. Each incomplete message counts the bytes it holds
/// against its peer — compact: the payload received; bleu24: its buffer, which reaches the end
/// of the furthest fragment received, so fragments held out of order are charged with the gaps
/// before them — and exceeding any bound refuses the fragment and frees that message. The heap a
/// peer's messages take is then at most about twice ``maximumBufferedBytes`` (arrays grow by
/// doubling), plus a bit per bleu24 fragment and a small fixed cost per message in flight. A
/// compact message of several fragments starts with the room of the peer's previous one, taken
/// only from what the other slots leave of ``maximumBufferedBytes``: at most one budget more.
public struct ReassemblyLimits: Sendable, Hashable {
    /// The largest message accepted, in bytes.
    public var maximumMessageSize: Int
    /// Incomplete messages held per peer at once (the compact format has 8 slots at most).
    public var maximumMessagesInFlight: Int
    /// Bytes held per peer across its incomplete messages (see above for how they count).
    public var maximumBufferedBytes: Int
    /// Peers tracked at once. When full, a new peer takes the place of an idle one (no message in
    /// progress), else it is refused.
    public var maximumPeers: Int
    /// An incomplete message that receives no fragment for this long is dropped by
    /// ``Reassembler/expire(now:)``.
    public var timeout: Duration

    /// - Parameters:
    ///   - maximumMessageSize: default 64 KiB.
    ///   - maximumMessagesInFlight: default 8.
    ///   - maximumBufferedBytes: default 256 KiB.
    ///   - maximumPeers: default 64.
    ///   - timeout: default 10 seconds.
    public init(maximumMessageSize: Int = 64 * 1024, maximumMessagesInFlight: Int = 8,
                maximumBufferedBytes: Int = 256 * 1024, maximumPeers: Int = 64, timeout: Duration = .seconds(10)) {
        self.maximumMessageSize = maximumMessageSize
        self.maximumMessagesInFlight = maximumMessagesInFlight
        self.maximumBufferedBytes = maximumBufferedBytes
        self.maximumPeers = maximumPeers
        self.timeout = timeout
    }
}

/// What a fragment did.
public enum ReassemblyOutcome: Sendable, Hashable {
    /// The fragment completed a message whose CRC-32 matched: here are its bytes.
    case message([UInt8])
    /// The fragment was kept; the message needs more.
    case incomplete
    /// The fragment repeats one already received (or the end of a message already delivered) and
    /// was dropped.
    case duplicate
    /// The fragment belongs to a message refused earlier and was dropped.
    case discarded
}

/// A message dropped by ``Reassembler/expire(now:)`` because its fragments stopped arriving.
public struct ReassemblyTimeout<Peer: Hashable & Sendable>: Sendable, Hashable {
    /// The peer that sent the message.
    public var peer: Peer
    /// The message's slot or UUID.
    public var message: MessageID
    /// Payload bytes received before it timed out.
    public var receivedBytes: Int
}

/// Counts of what a ``Reassembler`` did, for metrics.
public struct ReassemblyStatistics: Sendable, Hashable {
    /// Messages completed with a matching CRC-32.
    public var messagesDelivered = 0
    /// Fragments dropped as repeats (``ReassemblyOutcome/duplicate``).
    public var duplicatesDropped = 0
    /// Fragments of refused messages dropped (``ReassemblyOutcome/discarded``).
    public var fragmentsDiscarded = 0
    /// Fragments refused with a ``WireError``.
    public var rejections = 0
    /// Incomplete compact messages replaced by a new message in the same slot.
    public var messagesAbandoned = 0
    /// Messages dropped by ``Reassembler/expire(now:)``.
    public var messagesTimedOut = 0
}
