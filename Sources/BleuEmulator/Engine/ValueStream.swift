import BleuATT
import BleuCore
import DequeModule
import Foundation

/// A value stream the engine feeds: a subscription, a scan, or an L2CAP channel's input.
struct ValueStream {
    enum Owner {
        case subscription(link: LinkID, handle: UInt16)
        case scan(central: CentralKey)
        case channel(ChannelID, side: ChannelSide)
    }

    enum Element: Sendable {
        case data(Data)
        case advertisement(Advertisement)
    }

    let owner: Owner
    let limit: Int
    /// A consumer that takes each element the moment it arrives (a delegate-style API): the
    /// stream buffers nothing and never holds the link back.
    let sink: StreamSink?
    var buffer: Deque<Element> = []
    var waiter: CheckedContinuation<Element?, any Error>?
    /// Set when the stream ends: `nil` error for a normal end.
    var end: (any Error)??

    var hasRoom: Bool { buffer.count < limit }
}

/// What a pushed stream hands its consumer: an element, or its end (`nil` error: a normal end).
package enum StreamDelivery<Element: Sendable>: Sendable {
    case element(Element)
    case end((any Error)?)
}

/// Takes a stream's deliveries as they happen. It runs inside the engine: it must not block
/// or call back into the bus synchronously (hand the delivery to a queue instead).
typealias StreamSink = @Sendable (StreamDelivery<ValueStream.Element>) -> Void
