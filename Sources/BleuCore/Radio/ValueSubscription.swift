import Foundation

/// What a subscription hands its receiver (``CentralManager/subscribe(to:receive:)``): a
/// value, or the subscription's end.
public enum ValueDelivery: Sendable {
    /// A notified or indicated value.
    case value(Data)
    /// The subscription ended: `nil` when it was unsubscribed, else the error that ended it.
    case end((any Error)?)
}

/// A subscription delivering to a receiver (``CentralManager/subscribe(to:receive:)``).
/// ``cancel()`` stops the deliveries; the characteristic stays subscribed for any other
/// subscriber until ``CentralManager/unsubscribe(from:)``.
public struct ValueSubscription: Sendable {
    private let stop: @Sendable () -> Void

    /// A subscription that `stop` ends. `stop` may run more than once and must stop the
    /// deliveries soon; one already under way may still arrive.
    public init(stop: @escaping @Sendable () -> Void) {
        self.stop = stop
    }

    /// Delivers `values` to `receive` from a task of its own: each value, then the stream's end
    /// — unless the subscription was cancelled, after which nothing more is delivered.
    public init(draining values: AsyncThrowingStream<Data, any Error>,
                into receive: @escaping @Sendable (ValueDelivery) -> Void) {
        let task = Task {
            do {
                for try await value in values {
                    receive(.value(value))
                }
                if !Task.isCancelled { receive(.end(nil)) }
            } catch {
                if !Task.isCancelled { receive(.end(error)) }
            }
        }
        self.init(stop: { task.cancel() })
    }

    /// Stops the deliveries.
    public func cancel() {
        stop()
    }
}
