import BleuATT
import BleuCore
import DequeModule
import Foundation

/// A value stream the engine feeds: a subscription, a scan, or an L2CAP channel's input.
struct ValueStream {
    enum Owner {
        case subscription(link: Int, handle: UInt16)
        case scan(central: Int)
        case channel(Int, side: Int)
    }

    enum Element {
        case data(Data)
        case advertisement(Advertisement)
    }

    let owner: Owner
    let limit: Int
    var buffer: Deque<Element> = []
    var waiter: CheckedContinuation<Element?, any Error>?
    /// Set when the stream ends: `nil` error for a normal end.
    var end: (any Error)??

    var hasRoom: Bool { buffer.count < limit }
}
