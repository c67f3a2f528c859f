/// The 1-byte header that begins every fragment of the compact format (see `Docs/WireFormat.md`):
///
/// ```
///  bit  7   6   5   4   3   2   1   0
///     [ last|first| slot (0-7) | sequence (0-7) ]
/// ```
///
/// ``Reassembler`` reads it for you; read it yourself to learn which message a fragment belongs
/// to before (or without) reassembling it — for example to answer the sender of a message the
/// reassembler refused:
///
/// ```swift
/// let header = CompactHeader(fragment[0])
/// if header.isFirst { /* the payload, fragment[CompactHeader.length...], starts the message */ }
/// pending[header.slot] = …   // one of the 8 messages a sender may have in flight
/// ```
public struct CompactHeader: Hashable, Sendable {
    /// Header bytes at the start of every compact fragment: 1.
    public static let length = 1
    /// Messages one direction of a link may have in flight at once, each in its own slot: 8.
    public static let slotCount = 8

    /// Bit 6: the fragment is its message's first; its payload starts with the message's first byte.
    public let isFirst: Bool
    /// Bit 7: the fragment is its message's last (a message that fits one fragment sets both).
    public let isLast: Bool
    /// Bits 5–3: the message slot, 0–7. A sender holds a slot from a message's first fragment to
    /// its last, so fragments of up to ``slotCount`` messages may interleave on a link; the slot
    /// names the message a fragment belongs to.
    public let slot: UInt8
    /// Bits 2–0: the fragment's sequence number modulo 8; it continues across the messages of one slot.
    public let sequence: UInt8

    init(isFirst: Bool, isLast: Bool, slot: UInt8, sequence: UInt8) {
        self.isFirst = isFirst
        self.isLast = isLast
        self.slot = slot & 7
        self.sequence = sequence & 7
    }

    /// The header a compact fragment starts with: pass the fragment's first byte. Every byte is
    /// a header; whether the fragment fits its message is the ``Reassembler``'s to judge.
    public init(_ byte: UInt8) {
        self.init(isFirst: byte & 0x40 != 0, isLast: byte & 0x80 != 0, slot: byte >> 3, sequence: byte)
    }

    /// The header's byte.
    var byte: UInt8 {
        (isLast ? 0x80 : 0) | (isFirst ? 0x40 : 0) | slot << 3 | sequence
    }
}
