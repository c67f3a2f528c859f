import Foundation

/// Splits messages into fragments of at most a given length, for one direction of one link.
///
/// A value with no I/O: the link's shell asks it for a message's fragments, passing the link's
/// current maximum write length (it may change between messages), and sends them in order,
/// possibly interleaved with other messages' fragments. In the compact format each message
/// holds one of 8 slots from ``begin(_:maximumFragmentLength:)`` until ``finish(_:)``; bleu24
/// messages carry a UUID drawn from the injected random generator.
///
/// ```swift
/// var fragmenter = Fragmenter()
/// for fragment in try fragmenter.fragments(of: message, maximumFragmentLength: link.maximumWriteLength) {
///     try await link.write(fragment)
/// }
/// ```
public struct Fragmenter: Sendable {
    /// The framing this fragmenter writes.
    public let format: WireFormat
    /// The largest message accepted.
    public var maximumMessageSize: Int
    /// Slots in use by messages begun and not finished (bit n is slot n).
    private var busySlots: UInt8 = 0
    /// Where the search for a free slot starts: after the last slot handed out.
    private var nextSlot: UInt8 = 0
    /// Per slot, the sequence number of its next message's first fragment.
    private var slotSequence: [UInt8] = Array(repeating: 0, count: CompactHeader.slotCount)
    private var random: any RandomNumberGenerator & Sendable

    /// - Parameters:
    ///   - format: the framing; both ends must agree.
    ///   - maximumMessageSize: the largest message accepted (default 64 KiB).
    ///   - random: the source of bleu24 message UUIDs (pass a seeded generator, such as BleuCore's
    ///     `SeededRandomNumberGenerator`, to replay a run).
    public init(format: WireFormat = .compact, maximumMessageSize: Int = 64 * 1024,
                random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) {
        self.format = format
        self.maximumMessageSize = maximumMessageSize
        self.random = random
    }

    /// Number of messages begun and not yet finished (compact format).
    public var messagesInFlight: Int { busySlots.nonzeroBitCount }

    /// Starts sending `message` in fragments of at most `maximumFragmentLength` bytes.
    ///
    /// - Throws: ``WireError/fragmentLengthTooSmall(length:minimum:format:)`` when the length
    ///   cannot carry a header and a byte; ``WireError/messageTooLarge(size:maximum:)``;
    ///   ``WireError/tooManyMessagesInFlight(limit:)`` when all 8 compact slots are in use.
    public mutating func begin(_ message: [UInt8], maximumFragmentLength: Int) throws(WireError) -> OutgoingMessage {
        guard maximumFragmentLength >= format.minimumFragmentLength else {
            throw .fragmentLengthTooSmall(length: maximumFragmentLength, minimum: format.minimumFragmentLength, format: format)
        }
        guard message.count <= maximumMessageSize else {
            throw .messageTooLarge(size: message.count, maximum: maximumMessageSize)
        }
        let checksum = CRC32.checksum(message)
        switch format {
        case .compact:
            guard busySlots != 0xFF else { throw .tooManyMessagesInFlight(limit: CompactHeader.slotCount) }
            var slot = nextSlot
            while busySlots & (1 << slot) != 0 { slot = (slot + 1) & 7 }
            busySlots |= 1 << slot
            nextSlot = (slot + 1) & 7
            var stream = message
            withUnsafeBytes(of: checksum.littleEndian) { stream.append(contentsOf: $0) }
            let outgoing = OutgoingMessage(compact: stream, slot: slot, firstSequence: slotSequence[Int(slot)],
                                           maximumFragmentLength: maximumFragmentLength)
            slotSequence[Int(slot)] = (slotSequence[Int(slot)] &+ UInt8(truncatingIfNeeded: outgoing.count)) & 7
            return outgoing
        case .bleu24:
            let capacity = maximumFragmentLength - Bleu24Header.length
            let largest = Int(UInt16.max) * capacity
            guard message.count <= largest else { throw .messageTooLarge(size: message.count, maximum: largest) }
            var id: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &id) { bytes in
                withUnsafeBytes(of: (random.next(), random.next())) { bytes.copyMemory(from: $0) }
            }
            // RFC 9562 version 4 and variant bits, so the identifier is a well-formed random UUID.
            id.6 = id.6 & 0x0F | 0x40
            id.8 = id.8 & 0x3F | 0x80
            return OutgoingMessage(bleu24: message, id: UUID(uuid: id), checksum: checksum, maximumFragmentLength: maximumFragmentLength)
        }
    }

    /// Frees the message's slot once its last fragment is sent (or it is abandoned). A message
    /// abandoned part-way leaves the receiver waiting until its timeout, or until the slot's next
    /// message starts.
    public mutating func finish(_ message: OutgoingMessage) {
        if case .slot(let slot) = message.id {
            busySlots &= ~(1 << slot)
        }
    }

    /// All fragments of `message`, for a sender that sends them back to back: begins and finishes
    /// the message at once. To interleave messages, use ``begin(_:maximumFragmentLength:)`` and
    /// ``finish(_:)``. Throws as ``begin(_:maximumFragmentLength:)``.
    public mutating func fragments(of message: [UInt8], maximumFragmentLength: Int) throws(WireError) -> [[UInt8]] {
        let outgoing = try begin(message, maximumFragmentLength: maximumFragmentLength)
        finish(outgoing)
        return Array(outgoing)
    }
}

/// The fragments of one message, produced on demand: `outgoing[i]` builds fragment `i`.
public struct OutgoingMessage: RandomAccessCollection, Sendable {
    /// The slot (compact) or UUID (bleu24) the receiver knows the message by.
    public let id: MessageID
    /// The largest fragment, as requested when the message began.
    public let maximumFragmentLength: Int
    /// Message bytes, followed by the CRC-32 in the compact format.
    private let stream: [UInt8]
    private let capacity: Int
    private let header: Header

    private enum Header: Sendable {
        case compact(slot: UInt8, firstSequence: UInt8)
        case bleu24(UUID, checksum: UInt32)
    }

    /// The number of fragments.
    public let count: Int
    /// Always 0.
    public var startIndex: Int { 0 }
    /// ``count``.
    public var endIndex: Int { count }

    init(compact stream: [UInt8], slot: UInt8, firstSequence: UInt8, maximumFragmentLength: Int) {
        self.id = .slot(slot)
        self.maximumFragmentLength = maximumFragmentLength
        self.stream = stream
        self.capacity = maximumFragmentLength - CompactHeader.length
        self.header = .compact(slot: slot, firstSequence: firstSequence)
        self.count = (stream.count + capacity - 1) / capacity
    }

    init(bleu24 message: [UInt8], id: UUID, checksum: UInt32, maximumFragmentLength: Int) {
        self.id = .uuid(id)
        self.maximumFragmentLength = maximumFragmentLength
        self.stream = message
        self.capacity = maximumFragmentLength - Bleu24Header.length
        self.header = .bleu24(id, checksum: checksum)
        self.count = Swift.max(1, (message.count + capacity - 1) / capacity)
    }

    /// Total bytes of all fragments: what the message costs on air, before ATT's own 3 bytes each.
    public var byteCount: Int {
        stream.count + count * (maximumFragmentLength - capacity)
    }

    /// Fragment `position` (0-based), built on each access. A position outside `0..<count` is a
    /// programming error and traps, as for an array.
    public subscript(position: Int) -> [UInt8] {
        precondition(indices.contains(position), "fragment index \(position) out of range 0..<\(count)")
        let start = position * capacity
        let end = Swift.min(start + capacity, stream.count)
        var fragment: [UInt8] = []
        fragment.reserveCapacity(end - start + maximumFragmentLength - capacity)
        switch header {
        case .compact(let slot, let firstSequence):
            let sequence = firstSequence &+ UInt8(truncatingIfNeeded: position)
            fragment.append(CompactHeader(isFirst: position == 0, isLast: position == count - 1, slot: slot, sequence: sequence).byte)
        case .bleu24(let uuid, let checksum):
            Bleu24Header(message: uuid, sequence: UInt16(position), total: UInt16(count), checksum: checksum).append(to: &fragment)
        }
        fragment.append(contentsOf: stream[start..<end])
        return fragment
    }
}
