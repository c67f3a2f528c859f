/// One peer's compact-format reassembly: 8 slots, each idle, assembling a message, or discarding
/// the rest of a refused one. Times are offsets from the reassembler's first instant.
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

    private(set) var slots = [Slot](repeating: Slot(), count: CompactHeader.slotCount)
    private(set) var bufferedBytes = 0
    private(set) var messagesInFlight = 0

    /// Heap bytes the slots' buffers hold (what ``bufferedBytes`` bounds, as allocated).
    var allocatedBytes: Int { slots.reduce(0) { $0 + $1.buffer.capacity } }

    /// No message in progress: the peer's entry may be evicted (losing only duplicate detection).
    var isIdle: Bool { messagesInFlight == 0 }

    mutating func receive(_ fragment: UnsafeRawBufferPointer, now: Duration, limits: ReassemblyLimits,
                          statistics: inout ReassemblyStatistics) throws(WireError) -> ReassemblyOutcome {
        let header = CompactHeader(fragment[0])
        let payload = UnsafeRawBufferPointer(rebasing: fragment[1...])
        let index = Int(header.slot)

        // A repeat of the latest fragment of the message in progress, or of the final fragment of
        // the slot's last delivered message (its only one, for a single-fragment message).
        switch slots[index].state {
        case .assembling where isRepeat(of: slots[index], header, payload),
             .idle(header.sequence?) where header.isLast:
            statistics.duplicatesDropped += 1
            return .duplicate
        default:
            break
        }

        if header.isFirst {
            if case .assembling = slots[index].state {
                free(index, then: .idle(lastFinal: nil))
                statistics.messagesAbandoned += 1
            }
            guard messagesInFlight < limits.maximumMessagesInFlight else {
                slots[index].state = header.isLast ? .idle(lastFinal: nil) : .discarding
                throw .tooManyMessagesInFlight(limit: limits.maximumMessagesInFlight)
            }
            slots[index].state = .assembling
            messagesInFlight += 1
        } else {
            switch slots[index].state {
            case .idle:
                throw .malformedFragment(.unexpectedContinuation(slot: header.slot))
            case .discarding:
                if header.isLast { slots[index].state = .idle(lastFinal: nil) }
                statistics.fragmentsDiscarded += 1
                return .discarded
            case .assembling:
                let expected = (slots[index].lastSequence &+ 1) & 7
                guard header.sequence == expected else {
                    free(index, then: header.isLast ? .idle(lastFinal: nil) : .discarding)
                    throw .malformedFragment(.sequenceGap(slot: header.slot, expected: expected, received: header.sequence))
                }
            }
        }

        // Bounds, then keep the bytes.
        let size = slots[index].buffer.count + payload.count
        guard size <= limits.maximumMessageSize + 4 else {
            free(index, then: header.isLast ? .idle(lastFinal: nil) : .discarding)
            throw .messageTooLarge(size: size - Swift.min(4, size), maximum: limits.maximumMessageSize)
        }
        guard bufferedBytes + payload.count <= limits.maximumBufferedBytes else {
            let wanted = bufferedBytes + payload.count
            free(index, then: header.isLast ? .idle(lastFinal: nil) : .discarding)
            throw .bufferLimitExceeded(bytes: wanted, limit: limits.maximumBufferedBytes)
        }
        slots[index].buffer.append(contentsOf: payload)
        slots[index].lastSequence = header.sequence
        slots[index].lastLength = payload.count
        slots[index].lastActivity = now
        bufferedBytes += payload.count
        guard header.isLast else { return .incomplete }
        return try complete(index, finalSequence: header.sequence, statistics: &statistics)
    }

    /// Whether the fragment repeats the slot's latest one: same sequence number, same bytes.
    private func isRepeat(of slot: Slot, _ header: CompactHeader, _ payload: UnsafeRawBufferPointer) -> Bool {
        guard header.sequence == slot.lastSequence, payload.count == slot.lastLength else { return false }
        // The latest fragment's bytes are the buffer's tail (first fragments included).
        return slot.buffer.withUnsafeBytes { buffer in
            buffer[(buffer.count - payload.count)...].elementsEqual(payload)
        }
    }

    private mutating func complete(_ index: Int, finalSequence: UInt8, statistics: inout ReassemblyStatistics) throws(WireError) -> ReassemblyOutcome {
        var stream = slots[index].buffer
        free(index, then: .idle(lastFinal: finalSequence))
        guard stream.count >= 4 else {
            throw .malformedFragment(.missingChecksum(slot: UInt8(index)))
        }
        let expected = stream.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: $0.count - 4, as: UInt32.self)) }
        stream.removeLast(4)
        let computed = CRC32.checksum(stream)
        guard computed == expected else {
            throw .checksumMismatch(expected: expected, computed: computed, message: .slot(UInt8(index)))
        }
        statistics.messagesDelivered += 1
        return .message(stream)
    }

    /// Releases a slot's message and its bytes.
    private mutating func free(_ index: Int, then state: State) {
        if case .assembling = slots[index].state {
            messagesInFlight -= 1
            bufferedBytes -= slots[index].buffer.count
        }
        slots[index].buffer = []
        slots[index].lastActivity = nil
        slots[index].state = state
    }

    /// Drops messages idle for `timeout` or longer; returns them with the bytes they held.
    mutating func expire(now: Duration, timeout: Duration) -> [(MessageID, Int)] {
        var expired: [(MessageID, Int)] = []
        for index in slots.indices {
            guard case .assembling = slots[index].state, let last = slots[index].lastActivity,
                  now - last >= timeout else { continue }
            expired.append((.slot(UInt8(index)), slots[index].buffer.count))
            free(index, then: .idle(lastFinal: nil))
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
