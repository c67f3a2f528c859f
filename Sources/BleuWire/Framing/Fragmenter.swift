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
            let outgoing = OutgoingMessage(compact: message, checksum: checksum, slot: slot, firstSequence: slotSequence[Int(slot)],
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

/// The fragments of one message, laid out back to back in one buffer, ``wireBytes``, exactly as
/// they go on air: fragment `i` is `wireBytes[i × maximumFragmentLength ..< …]` (every fragment
/// but the last is full).
///
/// `outgoing[i]` copies fragment `i` into an array of its own; ``slices`` hands the fragments out
/// without copying, for a sender that writes them from the one buffer:
///
/// ```swift
/// let outgoing = try fragmenter.begin(message, maximumFragmentLength: link.maximumWriteLength)
/// defer { fragmenter.finish(outgoing) }
/// for fragment in outgoing.slices { try await link.write(fragment) }   // ArraySlice<UInt8>
/// ```
public struct OutgoingMessage: RandomAccessCollection, Sendable {
    /// The slot (compact) or UUID (bleu24) the receiver knows the message by.
    public let id: MessageID
    /// The largest fragment, as requested when the message began.
    public let maximumFragmentLength: Int
    /// Every fragment, header and payload, back to back: the message's bytes on air (before ATT's
    /// own 3 bytes per write).
    public let wireBytes: [UInt8]

    /// The number of fragments.
    public let count: Int
    /// Always 0.
    @inlinable public var startIndex: Int { 0 }
    /// ``count``.
    @inlinable public var endIndex: Int { count }

    init(compact message: [UInt8], checksum: UInt32, slot: UInt8, firstSequence: UInt8, maximumFragmentLength: Int) {
        let capacity = maximumFragmentLength - CompactHeader.length
        let streamLength = message.count + 4  // the message, then its CRC-32, little-endian
        let count = (streamLength + capacity - 1) / capacity
        self.id = .slot(slot)
        self.maximumFragmentLength = maximumFragmentLength
        self.count = count
        self.wireBytes = [UInt8](unsafeUninitializedCapacity: streamLength + count * CompactHeader.length) { output, initialized in
            let out = UnsafeMutableRawBufferPointer(output)
            message.withUnsafeBytes { source in
                var trailer = checksum.littleEndian
                withUnsafeBytes(of: &trailer) { crc in
                    // Position `offset` of the stream (message then CRC) into `out` at `to`, `length` bytes.
                    func copyStream(_ offset: Int, _ length: Int, to destination: Int) {
                        let fromMessage = Swift.max(0, Swift.min(length, source.count - offset))
                        if fromMessage > 0 {
                            (out.baseAddress! + destination).copyMemory(from: source.baseAddress! + offset, byteCount: fromMessage)
                        }
                        for k in fromMessage..<length {
                            out[destination + k] = crc[offset + k - source.count]
                        }
                    }
                    var offset = 0
                    var position = 0
                    for fragment in 0..<count {
                        let length = Swift.min(capacity, streamLength - offset)
                        let sequence = firstSequence &+ UInt8(truncatingIfNeeded: fragment)
                        out[position] = CompactHeader(isFirst: fragment == 0, isLast: fragment == count - 1, slot: slot, sequence: sequence).byte
                        copyStream(offset, length, to: position + 1)
                        offset += length
                        position += 1 + length
                    }
                }
            }
            initialized = streamLength + count * CompactHeader.length
        }
    }

    init(bleu24 message: [UInt8], id: UUID, checksum: UInt32, maximumFragmentLength: Int) {
        let capacity = maximumFragmentLength - Bleu24Header.length
        let count = Swift.max(1, (message.count + capacity - 1) / capacity)
        self.id = .uuid(id)
        self.maximumFragmentLength = maximumFragmentLength
        self.count = count
        var bytes: [UInt8] = []
        bytes.reserveCapacity(message.count + count * Bleu24Header.length)
        for fragment in 0..<count {
            Bleu24Header(message: id, sequence: UInt16(fragment), total: UInt16(count), checksum: checksum).append(to: &bytes)
            let start = fragment * capacity
            bytes.append(contentsOf: message[start..<Swift.min(start + capacity, message.count)])
        }
        self.wireBytes = bytes
    }

    /// Total bytes of all fragments: what the message costs on air, before ATT's own 3 bytes each.
    public var byteCount: Int { wireBytes.count }

    /// The range of ``wireBytes`` that fragment `position` (0-based) occupies. A position outside
    /// `0..<count` is a programming error and traps, as for an array.
    @inlinable
    public func range(ofFragment position: Int) -> Range<Int> {
        precondition(indices.contains(position), "fragment index \(position) out of range 0..<\(count)")
        let start = position * maximumFragmentLength
        return start..<Swift.min(start + maximumFragmentLength, wireBytes.count)
    }

    /// Fragment `position` (0-based) as an array of its own (a copy of its part of ``wireBytes``).
    /// A position outside `0..<count` is a programming error and traps, as for an array.
    public subscript(position: Int) -> [UInt8] {
        Array(wireBytes[range(ofFragment: position)])
    }

    /// The fragments as slices of ``wireBytes``: no copy, no allocation per fragment.
    @inlinable public var slices: Slices { Slices(message: self) }

    /// The fragments of an ``OutgoingMessage`` as slices of its ``OutgoingMessage/wireBytes``.
    // Inlinable, as a sender walks them once per fragment.
    public struct Slices: RandomAccessCollection, Sendable {
        @usableFromInline let message: OutgoingMessage
        @usableFromInline init(message: OutgoingMessage) { self.message = message }
        /// Always 0.
        @inlinable public var startIndex: Int { 0 }
        /// The number of fragments.
        @inlinable public var endIndex: Int { message.count }
        /// Fragment `position`, sharing the message's buffer.
        @inlinable
        public subscript(position: Int) -> ArraySlice<UInt8> {
            message.wireBytes[message.range(ofFragment: position)]
        }
    }
}
