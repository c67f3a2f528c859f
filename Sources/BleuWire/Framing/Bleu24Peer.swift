import Foundation

/// One peer's bleu24 reassembly: incomplete messages by UUID, fragments in any order, and a short
/// memory of recently finished messages so late repeats are dropped rather than starting anew.
/// Times are offsets from the reassembler's first instant.
struct Bleu24Peer: Sendable {
    /// Messages remembered after they finish (delivered, or refused).
    static var recentCapacity: Int { 16 }

    struct Assembly: Sendable {
        let total: UInt16
        let checksum: UInt32
        /// Fragments 0..<nextInOrder, joined.
        var joined: [UInt8] = []
        var nextInOrder: UInt16 = 0
        /// Fragments received ahead of `nextInOrder`.
        var pending: [UInt16: [UInt8]] = [:]
        /// The payload length of every fragment but the last, once one is seen.
        var stride: Int?
        /// The last fragment's payload length, once seen.
        var lastLength: Int?
        var bytes = 0
        var lastActivity: Duration
    }

    private(set) var assemblies: [UUID: Assembly] = [:]
    /// Recently finished messages: `true` if delivered, `false` if refused. Oldest first.
    private var recent: [(UUID, Bool)] = []
    private(set) var bufferedBytes = 0

    var messagesInFlight: Int { assemblies.count }
    var isIdle: Bool { assemblies.isEmpty }

    mutating func receive(_ fragment: UnsafeRawBufferPointer, now: Duration, limits: ReassemblyLimits,
                          statistics: inout ReassemblyStatistics) throws(WireError) -> ReassemblyOutcome {
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
        // would copy its buffers.
        let known = assemblies[id].map {
            (total: $0.total, checksum: $0.checksum, next: $0.nextInOrder, held: $0.pending[header.sequence] != nil,
             stride: $0.stride, lastLength: $0.lastLength)
        }!
        guard known.total == header.total, known.checksum == header.checksum else {
            drop(id)
            throw .malformedFragment(.inconsistentHeader(id))
        }
        if header.sequence < known.next || known.held {
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
        guard bufferedBytes + payload.count <= limits.maximumBufferedBytes else {
            let wanted = bufferedBytes + payload.count
            drop(id)
            throw .bufferLimitExceeded(bytes: wanted, limit: limits.maximumBufferedBytes)
        }

        bufferedBytes += payload.count
        assemblies[id]!.store(payload, sequence: header.sequence, stride: stride, lastLength: lastLength, now: now)
        guard assemblies[id]!.nextInOrder == header.total else { return .incomplete }

        let done = assemblies.removeValue(forKey: id)!
        bufferedBytes -= done.bytes
        let computed = CRC32.checksum(done.joined)
        remember(id, delivered: computed == done.checksum)
        guard computed == done.checksum else {
            throw .checksumMismatch(expected: done.checksum, computed: computed, message: .uuid(id))
        }
        statistics.messagesDelivered += 1
        return .message(done.joined)
    }

    /// Frees a message refused part-way, and remembers it so its other fragments are discarded.
    private mutating func drop(_ id: UUID) {
        if let assembly = assemblies.removeValue(forKey: id) {
            bufferedBytes -= assembly.bytes
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
            bufferedBytes -= assembly.bytes
            remember(id, delivered: false)
        }
        return stale.map { (.uuid($0.key), $0.value.bytes) }
    }

    func nextDeadline(timeout: Duration) -> Duration? {
        assemblies.values.map { $0.lastActivity + timeout }.min()
    }
}

extension Bleu24Peer.Assembly {
    /// Keeps a new fragment: appended when it is next in order (with any pending ones it unblocks),
    /// else held aside.
    mutating func store(_ payload: UnsafeRawBufferPointer, sequence: UInt16, stride: Int?, lastLength: Int?, now: Duration) {
        self.stride = stride
        self.lastLength = lastLength
        bytes += payload.count
        lastActivity = now
        guard sequence == nextInOrder else {
            pending[sequence] = Array(payload)
            return
        }
        joined.append(contentsOf: payload)
        nextInOrder += 1
        while let next = pending.removeValue(forKey: nextInOrder) {
            joined.append(contentsOf: next)
            nextInOrder += 1
        }
    }
}
