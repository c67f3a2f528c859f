import Foundation

/// Why a message could not be fragmented or a fragment was refused. A refusal always frees what
/// was held for the message concerned.
public enum WireError: Error, Sendable, Hashable {
    /// The maximum fragment length cannot carry a header and a byte of payload.
    case fragmentLengthTooSmall(length: Int, minimum: Int, format: WireFormat)
    /// A message is larger than the configured maximum (or than bleu24's 65,535 fragments hold).
    case messageTooLarge(size: Int, maximum: Int)
    /// The sender already has every compact slot (8) in use, or the receiver already holds the
    /// configured number of incomplete messages for this peer.
    case tooManyMessagesInFlight(limit: Int)
    /// Holding this fragment would take the peer's buffered bytes over the limit.
    case bufferLimitExceeded(bytes: Int, limit: Int)
    /// The reassembler already tracks the configured number of peers, all with messages in progress.
    case tooManyPeers(limit: Int)
    /// The fragment breaks the format; the problem says how.
    case malformedFragment(FragmentProblem)
    /// The reassembled message does not match its CRC-32: bytes were corrupted or lost.
    case checksumMismatch(expected: UInt32, computed: UInt32, message: MessageID)
}

/// How a fragment breaks its format.
public enum FragmentProblem: Sendable, Hashable {
    /// Shorter than a header plus one byte (bleu24 allows a header alone for an empty message).
    case tooShort(length: Int, minimum: Int)
    /// A compact continuation for a slot with no message in progress.
    case unexpectedContinuation(slot: UInt8)
    /// A compact fragment out of order: a fragment was lost or reordered; the message is dropped.
    case sequenceGap(slot: UInt8, expected: UInt8, received: UInt8)
    /// A compact message ended before its 4-byte CRC.
    case missingChecksum(slot: UInt8)
    /// A bleu24 header with a total of zero fragments.
    case zeroFragmentTotal(UUID)
    /// A bleu24 sequence number not below the total.
    case sequenceOutOfRange(UUID, sequence: UInt16, total: UInt16)
    /// A bleu24 fragment whose total or CRC differs from earlier fragments of the same message.
    case inconsistentHeader(UUID)
    /// A bleu24 fragment whose payload length disagrees with the message's other fragments (all
    /// but the last carry the same length; the last no more).
    case inconsistentLength(UUID, sequence: UInt16, length: Int)
}

extension WireError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .fragmentLengthTooSmall(let length, let minimum, let format):
            "a maximum fragment length of \(length) bytes cannot carry \(format) fragments (at least \(minimum) needed; bleu24 needs an ATT MTU of 28 or more)"
        case .messageTooLarge(let size, let maximum):
            "message of \(size) bytes exceeds the maximum of \(maximum); the message was dropped"
        case .tooManyMessagesInFlight(let limit):
            "more than \(limit) messages in flight; finish or drop one first"
        case .bufferLimitExceeded(let bytes, let limit):
            "buffering would hold \(bytes) bytes for the peer, over its limit of \(limit); the message was dropped"
        case .tooManyPeers(let limit):
            "already reassembling for \(limit) peers; drop disconnected peers with removePeer"
        case .malformedFragment(let problem):
            "malformed fragment: \(problem)"
        case .checksumMismatch(let expected, let computed, let message):
            "CRC-32 mismatch for \(message): the sender's is \(hex(expected)), the bytes give \(hex(computed)); the message was dropped"
        }
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}
