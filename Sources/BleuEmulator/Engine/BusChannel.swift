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
        var input: Int?
        var closed = false
    }

    static let central = 0
    static let peripheral = 1

    let id: Int
    let link: Int
    let psm: UInt16
    var opener: OperationID?
    var isOpen = false
    var identifier: UInt8
    var ends: [End]
}

/// L2CAP connection-oriented channels: PSMs, opening, credit-based flow control, closing.
