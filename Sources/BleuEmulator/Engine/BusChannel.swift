import BleuCore
import DequeModule
import Foundation

/// One LE credit-based channel: two ends, each with the credits it may spend, SDUs waiting
/// to go, and its input stream.
struct BusChannel {
    struct End {
        /// K-frames this end may still send.
        var credits: Int
        var peerMTU: Int
        var peerMPS: Int
        /// SDUs waiting for credits: bytes left to frame and the caller waiting.
        var outgoing: Deque<(sdu: Data, bytesLeft: Int, waiter: OperationID)> = []
        /// Credits held for SDUs in the input stream, returned as the application takes them.
        var heldCredits = 0
        var input: StreamID?
        var closed = false

        /// Takes the next K-frame this end may send, spending a credit: its length (at most
        /// the peer's MPS; the first frame of an SDU carries its 2-byte length too) and, for the
        /// frame that ends an SDU, the SDU and the caller waiting for it to go. `nil` without
        /// a credit or without anything to send.
        mutating func takeKFrame() -> (length: Int, finished: (sdu: Data, waiter: OperationID)?)? {
            guard credits > 0, var head = outgoing.first else { return nil }
            let length = min(head.bytesLeft, peerMPS)
            head.bytesLeft -= length
            credits -= 1
            guard head.bytesLeft == 0 else {
                outgoing[0] = head
                return (length, nil)
            }
            outgoing.removeFirst()
            return (length, (head.sdu, head.waiter))
        }
    }

    /// The two ends, by side.
    struct Ends {
        var central: End
        var peripheral: End

        subscript(side: ChannelSide) -> End {
            get { side == .central ? central : peripheral }
            set { if side == .central { central = newValue } else { peripheral = newValue } }
        }

        /// Whether both ends satisfy `predicate`.
        func allSatisfy(_ predicate: (End) -> Bool) -> Bool { predicate(central) && predicate(peripheral) }
    }

    let id: ChannelID
    let link: LinkID
    let psm: UInt16
    var opener: OperationID?
    var isOpen = false
    var identifier: UInt8
    var ends: Ends
}

/// L2CAP connection-oriented channels: PSMs, opening, credit-based flow control, closing.
