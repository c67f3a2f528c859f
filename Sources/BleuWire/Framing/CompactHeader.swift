/// The 1-byte header of the compact format (see `Docs/WireFormat.md`):
///
/// ```
///  bit  7   6   5   4   3   2   1   0
///     [ last|first| slot (0-7) | sequence (0-7) ]
/// ```
struct CompactHeader: Hashable {
    static let length = 1
    static let slotCount = 8

    var first: Bool
    var last: Bool
    /// The message slot, 0–7.
    var slot: UInt8
    /// The fragment's sequence number modulo 8; it continues across the messages of one slot.
    var sequence: UInt8

    init(first: Bool, last: Bool, slot: UInt8, sequence: UInt8) {
        self.first = first
        self.last = last
        self.slot = slot & 7
        self.sequence = sequence & 7
    }

    init(_ byte: UInt8) {
        self.init(first: byte & 0x40 != 0, last: byte & 0x80 != 0, slot: byte >> 3, sequence: byte)
    }

    var byte: UInt8 {
        (last ? 0x80 : 0) | (first ? 0x40 : 0) | slot << 3 | sequence
    }
}
