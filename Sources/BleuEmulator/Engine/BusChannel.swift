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
