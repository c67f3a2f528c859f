import Foundation

/// One peer's bleu24 reassembly: incomplete messages by UUID, fragments in any order, and a short
/// memory of recently finished messages so late repeats are dropped rather than starting anew.
/// Times are offsets from the reassembler's first instant.
@usableFromInline
struct Bleu24Peer: Sendable {
    /// Messages remembered after they finish (delivered, or refused).
    static var recentCapacity: Int { 16 }

    /// One incomplete message, held in a single buffer: every fragment at its final place
    /// (`sequence × stride`), so fragments held out of order cost their bytes and nothing per
    /// fragment. The buffer reaches as far as the furthest fragment received; the gaps are
    /// zeros until their fragments come, and they are charged too — they are allocated.
    struct Assembly: Sendable {
        let total: UInt16
        let checksum: UInt32
        /// The message's bytes, each received fragment at its place.
        var buffer: [UInt8] = []
        /// Which fragments arrived, one bit each, as far as the furthest one.
        var received: [UInt64] = []
        /// Fragments 0..<nextInOrder have all arrived.
        var nextInOrder: UInt16 = 0
        /// The last fragment when it came before any other: its place needs the stride.
        var earlyLast: [UInt8]?
        /// The payload length of every fragment but the last, once one is seen.
        var stride: Int?
        /// The last fragment's payload length, once seen.
        var lastLength: Int?
        /// Payload bytes received.
        var receivedBytes = 0
        /// Bytes charged to the peer: the buffer's length, or the early last fragment's.
        var charged = 0
        var lastActivity: Duration
    }

    private(set) var assemblies: [UUID: Assembly] = [:]
    /// Recently finished messages: `true` if delivered, `false` if refused. Oldest first.
    private var recent: [(UUID, Bool)] = []
    private(set) var bufferedBytes = 0

    var messagesInFlight: Int { assemblies.count }

    /// Heap bytes the incomplete messages hold: their buffers' capacities, bitsets and early
    /// last fragments (what ``bufferedBytes`` bounds, as allocated).
    var allocatedBytes: Int {
        assemblies.values.reduce(0) { sum, assembly in
            sum + assembly.buffer.capacity + assembly.received.capacity * 8 + (assembly.earlyLast?.capacity ?? 0)
        }
    }
    @usableFromInline
    var isIdle: Bool { assemblies.isEmpty }

    @usableFromInline
    mutating func receive(_ fragment: UnsafeRawBufferPointer, now: Duration, limits: ReassemblyLimits,
                          statistics: inout ReassemblyStatistics) throws(WireError) -> ReassemblyOutcome {
        guard fragment.count >= Bleu24Header.length else {
            throw .malformedFragment(.tooShort(length: fragment.count, minimum: Bleu24Header.length))
        }
        let header = Bleu24Header(fragment)
        let payload = UnsafeRawBufferPointer(rebasing: fragment[Bleu24Header.length...])
        let id = header.message
        guard header.total > 0 else { throw .malformedFragment(.zeroFragmentTotal(id)) }
        guard header.sequence < header.total else {
            throw .malformedFragment(.sequenceOutOfRange(id, sequence: header.sequence, total: header.total))
        }
        let isLast = header.sequence == header.total - 1
        guard !payload.isEmpty || header.total == 1 else {
            throw .malformedFragment(.tooShort(length: fragment.count, minimum: Bleu24Header.length + 1))
        }
        if let finished = recent.last(where: { $0.0 == id }) {
            if finished.1 {
                statistics.duplicatesDropped += 1
                return .duplicate
            }
            statistics.fragmentsDiscarded += 1
            return .discarded
        }

        if assemblies[id] == nil {
            guard assemblies.count < limits.maximumMessagesInFlight else {
                remember(id, delivered: false)
                throw .tooManyMessagesInFlight(limit: limits.maximumMessagesInFlight)
            }
            assemblies[id] = Assembly(total: header.total, checksum: header.checksum, lastActivity: now)
        }
        // Read what is needed by value: holding a copy of the assembly while it is mutated below
        // would copy its buffer.
        let known = assemblies[id].map {
            (total: $0.total, checksum: $0.checksum, held: $0.holds(header.sequence), stride: $0.stride,
             lastLength: $0.lastLength, charged: $0.charged)
        }!
        guard known.total == header.total, known.checksum == header.checksum else {
            drop(id)
            throw .malformedFragment(.inconsistentHeader(id))
        }
        if known.held {
            statistics.duplicatesDropped += 1
            return .duplicate
        }
        // All fragments but the last carry the same length; the last no more than that.
        var stride = known.stride
        var lastLength = known.lastLength
        if isLast {
            lastLength = payload.count
        } else if stride == nil {
            stride = payload.count
        }
        if let s = stride, (!isLast && payload.count != s) || (lastLength ?? 0) > s {
            drop(id)
            throw .malformedFragment(.inconsistentLength(id, sequence: header.sequence, length: payload.count))
        }
        // The smallest message these fragments allow: reject early when it is already too large.
        let least = Int(header.total - 1) * (stride ?? 1) + (lastLength ?? 1)
        guard least <= limits.maximumMessageSize else {
            drop(id)
            throw .messageTooLarge(size: least, maximum: limits.maximumMessageSize)
        }
        // What holding the fragment costs: the buffer grows to the end of the furthest fragment.
        let charge = assemblies[id]!.charge(afterStoring: payload.count, sequence: header.sequence, stride: stride,
                                            lastLength: lastLength)
        let wanted = bufferedBytes - known.charged + charge
        guard wanted <= limits.maximumBufferedBytes else {
            drop(id)
            throw .bufferLimitExceeded(bytes: wanted, limit: limits.maximumBufferedBytes)
        }

        bufferedBytes = wanted
        assemblies[id]!.store(payload, sequence: header.sequence, stride: stride, lastLength: lastLength, now: now)
        guard assemblies[id]!.nextInOrder == header.total else { return .incomplete }

        let done = assemblies.removeValue(forKey: id)!
        bufferedBytes -= done.charged
        let computed = CRC32.checksum(done.buffer)
        remember(id, delivered: computed == done.checksum)
        guard computed == done.checksum else {
            throw .checksumMismatch(expected: done.checksum, computed: computed, message: .uuid(id))
        }
        statistics.messagesDelivered += 1
        return .message(done.buffer)
    }

    /// Frees a message refused part-way, and remembers it so its other fragments are discarded.
    private mutating func drop(_ id: UUID) {
        if let assembly = assemblies.removeValue(forKey: id) {
            bufferedBytes -= assembly.charged
        }
        remember(id, delivered: false)
    }

    private mutating func remember(_ id: UUID, delivered: Bool) {
        if recent.count == Self.recentCapacity { recent.removeFirst() }
        recent.append((id, delivered))
    }

    mutating func expire(now: Duration, timeout: Duration) -> [(MessageID, Int)] {
        let stale = assemblies.filter { now - $0.value.lastActivity >= timeout }
        for (id, assembly) in stale {
            assemblies[id] = nil
            bufferedBytes -= assembly.charged
            remember(id, delivered: false)
        }
        return stale.map { (.uuid($0.key), $0.value.receivedBytes) }
    }

    func nextDeadline(timeout: Duration) -> Duration? {
        assemblies.values.map { $0.lastActivity + timeout }.min()
    }
}

extension Bleu24Peer.Assembly {
    /// Whether fragment `sequence` arrived already.
    func holds(_ sequence: UInt16) -> Bool {
        if sequence < nextInOrder { return true }
        if earlyLast != nil, sequence == total - 1 { return true }
        let word = Int(sequence) / 64
        return word < received.count && received[word] & (1 << (UInt64(sequence) % 64)) != 0
    }

    /// Where fragment `sequence` starts in the message, or `nil` while that needs the stride.
    private func offset(of sequence: UInt16, stride: Int?) -> Int? {
        if sequence == 0 { return 0 }
        return stride.map { Int(sequence) * $0 }
    }

    /// The bytes this message is charged once a fragment of `length` bytes at `sequence` is
    /// stored: the buffer's new length, or the early last fragment's length while its place is
    /// not known.
    func charge(afterStoring length: Int, sequence: UInt16, stride: Int?, lastLength: Int?) -> Int {
        guard let start = offset(of: sequence, stride: stride) else { return length }  // the last, first
        var end = max(buffer.count, start + length)
        if earlyLast != nil, let stride, let lastLength {
            end = max(end, Int(total - 1) * stride + lastLength)
        }
        return end
    }

    /// Keeps a new fragment at its place (or aside, when it is the last and came first) and
    /// moves `nextInOrder` past every fragment that is now contiguous.
    mutating func store(_ payload: UnsafeRawBufferPointer, sequence: UInt16, stride: Int?, lastLength: Int?, now: Duration) {
        self.stride = stride
        self.lastLength = lastLength
        receivedBytes += payload.count
        lastActivity = now
        guard let start = offset(of: sequence, stride: stride) else {
            earlyLast = Array(payload)
            charged = payload.count
            return
        }
        place(payload, at: start, sequence: sequence)
        if let early = earlyLast, let stride {
            earlyLast = nil
            early.withUnsafeBytes { place($0, at: Int(total - 1) * stride, sequence: total - 1) }
        }
        charged = buffer.count
        while nextInOrder < total, holds(nextInOrder) {
            nextInOrder += 1
        }
    }

    /// Copies a fragment to its place. The next fragment in order only moves `nextInOrder`
    /// (in-order traffic never touches the bitset); a later one gets its bit.
    private mutating func place(_ payload: UnsafeRawBufferPointer, at start: Int, sequence: UInt16) {
        let end = start + payload.count
        if start == buffer.count {
            buffer.append(contentsOf: payload)
        } else {
            if buffer.count < end {
                buffer.append(contentsOf: repeatElement(0, count: end - buffer.count))
            }
            buffer.withUnsafeMutableBytes { bytes in
                UnsafeMutableRawBufferPointer(rebasing: bytes[start..<end]).copyMemory(from: payload)
            }
        }
        if sequence == nextInOrder {
            nextInOrder += 1
            return
        }
        let word = Int(sequence) / 64
        if received.count <= word {
            received.append(contentsOf: repeatElement(0, count: word + 1 - received.count))
        }
        received[word] |= 1 << (UInt64(sequence) % 64)
    }
}
