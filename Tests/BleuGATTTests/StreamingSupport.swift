import BleuCore
import Foundation
@testable import BleuGATT

extension AsyncStream<PeripheralEvent> {
    /// Returns once the peripheral reported `count` more subscriptions.
    mutating func waitForSubscriptions(_ count: Int) async {
        for _ in 0..<count {
            _ = await first { if case .subscribed = $0 { true } else { false } }
        }
    }
}

/// Sends `values` one by one with `send` (a hosted service's notify), then reads as many from
/// `stream` (a typed subscription) and returns them, in the order they arrived.
func roundTrip<Value: Sendable>(_ values: [Value], send: (Value) async throws -> Void,
                                through stream: AsyncThrowingStream<Value, any Error>) async throws -> [Value] {
    for value in values { try await send(value) }
    var received: [Value] = []
    for try await value in stream {
        received.append(value)
        if received.count == values.count { break }
    }
    return received
}
