import Foundation

/// One subscriber of a characteristic's notifications, as a backend files it: a stream
/// (``CentralManager/subscribe(to:)``) or a receiver (``CentralManager/subscribe(to:receive:)``),
/// handed values and the end alike.
package struct ValueSubscriber: Sendable {
    /// Hands a value on; `false` when the subscriber can take no more (a stream's consumer fell
    /// its buffer behind): the backend then removes it and ends it with an overflow.
    package let deliver: @Sendable (Data) -> Bool
    /// Ends the subscriber: `nil` when unsubscribed, else the error that ended it.
    package let end: @Sendable ((any Error)?) -> Void

    /// A stream holding at most `limit` values for a slow consumer.
    package static func stream(limit: Int) -> (ValueSubscriber, AsyncThrowingStream<Data, any Error>,
                                                AsyncThrowingStream<Data, any Error>.Continuation) {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Data.self, bufferingPolicy: .bufferingOldest(limit))
        let subscriber = ValueSubscriber(deliver: { value in
            if case .dropped = continuation.yield(value) { return false }
            return true
        }, end: { error in
            continuation.finish(throwing: error)
        })
        return (subscriber, stream, continuation)
    }

    /// A receiver, and what silences it: after `silence` nothing more reaches `receive`, not even
    /// the end (a delivery under way on another thread may still complete).
    package static func receiver(_ receive: @escaping @Sendable (ValueDelivery) -> Void)
        -> (ValueSubscriber, silence: @Sendable () -> Void)
    {
        let silenced = Locked(false)
        let subscriber = ValueSubscriber(deliver: { value in
            if !silenced.withLock({ $0 }) { receive(.value(value)) }
            return true
        }, end: { error in
            if !silenced.withLock({ $0 }) { receive(.end(error)) }
        })
        return (subscriber, { silenced.withLock { $0 = true } })
    }
}
