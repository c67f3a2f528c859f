import Foundation

/// The framing of messages into fragments. Both ends of a link must use the same format.
///
/// The byte layouts are in `Docs/WireFormat.md`.
public enum WireFormat: String, Sendable, Hashable, CaseIterable {
    /// Bleu's default: a 1-byte header per fragment (position, one of 8 message slots, a 3-bit
    /// sequence number) and a CRC-32 after the message. Works at the minimum ATT MTU of 23 and
    /// lets up to 8 messages per direction interleave on one link. Fragments of one message must
    /// arrive in order (ATT keeps order on a link); gaps are detected.
    case compact
    /// The 24-byte header of Bleu's seed documents on every fragment: message UUID (16 bytes),
    /// sequence number (2), total fragments (2), CRC-32 of the whole message (4). Fragments may
    /// arrive in any order. Needs an ATT MTU of at least 28.
    case bleu24

    /// Header bytes on every fragment.
    public var headerLength: Int {
        switch self {
        case .compact: CompactHeader.length
        case .bleu24: Bleu24Header.length
        }
    }

    /// The smallest maximum fragment length that can carry a message: the header and one byte.
    public var minimumFragmentLength: Int { headerLength + 1 }

    /// The largest fragment a write can carry at `attMTU`: the ATT MTU less the 3 bytes of the ATT
    /// write's opcode and handle (what CoreBluetooth reports as `maximumWriteValueLength`).
    public static func maximumFragmentLength(forATTMTU attMTU: Int) -> Int {
        attMTU - 3
    }
}

/// Which message a fragment belongs to.
public enum MessageID: Sendable, Hashable, CustomStringConvertible {
    /// A compact-format slot, 0–7.
    case slot(UInt8)
    /// A bleu24 message UUID.
    case uuid(UUID)

    public var description: String {
        switch self {
        case .slot(let slot): "slot \(slot)"
        case .uuid(let id): "message \(id)"
        }
    }
}
