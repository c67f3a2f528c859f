/// One peer's compact-format reassembly: 8 slots, each idle, assembling a message, or discarding
/// the rest of a refused one. Times are offsets from the reassembler's first instant.
///
/// A fragment is handled on its slot alone, reached once (`receive(_:_:…)` takes it `inout`, with
/// the peer's two counters beside it): the common case — the next fragment of a message in
/// progress — is a few comparisons and one append.
@usableFromInline
struct CompactPeer: Sendable {
    enum State: Sendable {
        /// `lastFinal` is the final sequence number of the slot's last delivered message, so that
        /// a repeat of that fragment is recognised as a duplicate.
        case idle(lastFinal: UInt8?)
        case assembling
        case discarding
    }

    struct Slot: Sendable {
        var state = State.idle(lastFinal: nil)
        /// Message bytes and CRC received so far (kept outside `state` so appends are in place).
        var buffer: [UInt8] = []
        var lastSequence: UInt8 = 0
        var lastLength = 0
        var lastActivity: Duration?
    }

    /// What the peer's messages in progress hold, across its slots.
    struct Holdings: Sendable {
        var bufferedBytes = 0
        var messagesInFlight = 0
        /// The byte count (CRC included) of the peer's last delivered message of more than one
        /// fragment: a sender's messages tend to repeat their size, so the next one starts with
        /// that much room rather than growing fragment by fragment.
        var lastSize = 0
    }

    private(set) var slots = [Slot](repeating: Slot(), count: CompactHeader.slotCount)
    private var holdings = Holdings()

    var bufferedBytes: Int { holdings.bufferedBytes }
    var messagesInFlight: Int { holdings.messagesInFlight }

    /// Heap bytes the slots' buffers hold (what ``bufferedBytes`` bounds, as allocated).
    var allocatedBytes: Int { slots.reduce(0) { $0 + $1.buffer.capacity } }

    /// No message in progress: the peer's entry may be evicted (losing only duplicate detection).
    @usableFromInline
    var isIdle: Bool { holdings.messagesInFlight == 0 }

    @usableFromInline
    mutating func receive(_ fragment: UnsafeRawBufferPointer, now: Duration, limits: ReassemblyLimits,
                          statistics: inout ReassemblyStatistics) throws(WireError) -> ReassemblyOutcome {
        let minimum = WireFormat.compact.minimumFragmentLength
        guard fragment.count >= minimum else {
            throw .malformedFragment(.tooShort(length: fragment.count, minimum: minimum))
        }
        let header = CompactHeader(fragment.load(as: UInt8.self))
        let payload = UnsafeRawBufferPointer(rebasing: fragment[CompactHeader.length...])
        let index = Int(header.slot)
        let outcome = try Self.receive(header, payload, now: now, limits: limits, statistics: &statistics,
                                       slot: &slots[index], holdings: &holdings)
        if header.isFirst, !header.isLast, case .incomplete = outcome { reserve(index, limits: limits) }
        return outcome
    }

    /// Gives a message just begun on slot `index` the room of the peer's last one, as far as the
    /// peer's buffer budget allows: what the reservations add leaves the capacity of every slot
    /// together within ``ReassemblyLimits/maximumBufferedBytes``, however the sender sizes its
    /// messages.
    private mutating func reserve(_ index: Int, limits: ReassemblyLimits) {
        let wanted = holdings.lastSize
        guard wanted > slots[index].buffer.capacity else { return }
        let room = min(wanted, limits.maximumBufferedBytes - (allocatedBytes - slots[index].buffer.capacity))
        if room > slots[index].buffer.capacity { slots[index].buffer.reserveCapacity(room) }
    }

    @inline(__always)
    private static func receive(_ header: CompactHeader, _ payload: UnsafeRawBufferPointer, now: Duration,
                                limits: ReassemblyLimits, statistics: inout ReassemblyStatistics,
                                slot: inout Slot, holdings: inout Holdings) throws(WireError) -> ReassemblyOutcome {
        // A repeat of the latest fragment of the message in progress, or of the final fragment of
        // the slot's last delivered message (its only one, for a single-fragment message).
        switch slot.state {
        case .assembling where isRepeat(of: slot, header, payload),
             .idle(header.sequence?) where header.isLast:
            statistics.duplicatesDropped += 1
            return .duplicate
        default:
            break
        }

        if header.isFirst {
            if case .assembling = slot.state {
                free(&slot, &holdings, then: .idle(lastFinal: nil))
                statistics.messagesAbandoned += 1
            }
            guard holdings.messagesInFlight < limits.maximumMessagesInFlight else {
                slot.state = header.isLast ? .idle(lastFinal: nil) : .discarding
                throw .tooManyMessagesInFlight(limit: limits.maximumMessagesInFlight)
            }
            slot.state = .assembling
            holdings.messagesInFlight += 1
        } else {
            switch slot.state {
            case .idle:
                throw .malformedFragment(.unexpectedContinuation(slot: header.slot))
            case .discarding:
                if header.isLast { slot.state = .idle(lastFinal: nil) }
                statistics.fragmentsDiscarded += 1
                return .discarded
            case .assembling:
                let expected = (slot.lastSequence &+ 1) & 7
                guard header.sequence == expected else {
                    free(&slot, &holdings, then: header.isLast ? .idle(lastFinal: nil) : .discarding)
                    throw .malformedFragment(.sequenceGap(slot: header.slot, expected: expected, received: header.sequence))
                }
            }
        }

        // Bounds, then keep the bytes.
        let size = slot.buffer.count + payload.count
        guard size <= limits.maximumMessageSize + 4 else {
            free(&slot, &holdings, then: header.isLast ? .idle(lastFinal: nil) : .discarding)
            throw .messageTooLarge(size: size - Swift.min(4, size), maximum: limits.maximumMessageSize)
        }
        guard holdings.bufferedBytes + payload.count <= limits.maximumBufferedBytes else {
            let wanted = holdings.bufferedBytes + payload.count
            free(&slot, &holdings, then: header.isLast ? .idle(lastFinal: nil) : .discarding)
            throw .bufferLimitExceeded(bytes: wanted, limit: limits.maximumBufferedBytes)
        }
        slot.buffer.append(contentsOf: payload)
        slot.lastSequence = header.sequence
        slot.lastLength = payload.count
        slot.lastActivity = now
        holdings.bufferedBytes += payload.count
        guard header.isLast else { return .incomplete }
        return try complete(&slot, &holdings, slot: header.slot, finalSequence: header.sequence, statistics: &statistics)
    }

    /// Whether the fragment repeats the slot's latest one: same sequence number, same bytes.
    private static func isRepeat(of slot: Slot, _ header: CompactHeader, _ payload: UnsafeRawBufferPointer) -> Bool {
        guard header.sequence == slot.lastSequence, payload.count == slot.lastLength else { return false }
        // The latest fragment's bytes are the buffer's tail (first fragments included).
        return slot.buffer.withUnsafeBytes { buffer in
            buffer[(buffer.count - payload.count)...].elementsEqual(payload)
        }
    }

    private static func complete(_ slot: inout Slot, _ holdings: inout Holdings, slot index: UInt8, finalSequence: UInt8,
                                 statistics: inout ReassemblyStatistics) throws(WireError) -> ReassemblyOutcome {
        var stream = slot.buffer
        if stream.count > slot.lastLength { holdings.lastSize = stream.count }
        free(&slot, &holdings, then: .idle(lastFinal: finalSequence))
        guard stream.count >= 4 else {
            throw .malformedFragment(.missingChecksum(slot: index))
        }
        let expected = stream.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: $0.count - 4, as: UInt32.self)) }
        stream.removeLast(4)
        let computed = stream.withUnsafeBytes { CRC32.checksum($0) }
        guard computed == expected else {
            throw .checksumMismatch(expected: expected, computed: computed, message: .slot(index))
        }
        statistics.messagesDelivered += 1
        return .message(stream)
    }

    /// Releases a slot's message and its bytes.
    private static func free(_ slot: inout Slot, _ holdings: inout Holdings, then state: State) {
        if case .assembling = slot.state {
            holdings.messagesInFlight -= 1
            holdings.bufferedBytes -= slot.buffer.count
        }
        slot.buffer = []
        slot.lastActivity = nil
        slot.state = state
    }

    /// Drops messages idle for `timeout` or longer; returns them with the bytes they held.
    mutating func expire(now: Duration, timeout: Duration) -> [(MessageID, Int)] {
        var expired: [(MessageID, Int)] = []
        for index in slots.indices {
            guard case .assembling = slots[index].state, let last = slots[index].lastActivity,
                  now - last >= timeout else { continue }
            expired.append((.slot(UInt8(index)), slots[index].buffer.count))
            Self.free(&slots[index], &holdings, then: .idle(lastFinal: nil))
        }
        return expired
    }

    /// The earliest moment a message here times out.
    func nextDeadline(timeout: Duration) -> Duration? {
        slots.compactMap { slot -> Duration? in
            guard case .assembling = slot.state else { return nil }
            return slot.lastActivity.map { $0 + timeout }
        }.min()
    }
}
