import Foundation

/// An LE credit-based L2CAP connection-oriented channel: a bidirectional, ordered,
/// flow-controlled byte stream between a central and a peripheral.
public protocol L2CAPChannel: AnyObject, Sendable {
    /// The protocol/service multiplexer the channel was opened on.
    var psm: UInt16 { get }
    /// The peer: the peripheral for a central, the central for a peripheral.
    var peer: UUID { get }
    /// The data the peer sends, in order, as the SDUs it sent. The stream ends when either
    /// side closes the channel, and ends with ``BleuError/disconnected(_:_:)`` when the link
    /// drops. It has one consumer.
    var incoming: AsyncThrowingStream<Data, any Error> { get }
    /// Sends one SDU, suspending while the peer has no credits for it. Throws
    /// ``BleuError/disconnected(_:_:)`` or ``BleuError/invalidState(_:)`` once the channel is closed.
    func send(_ data: Data) async throws
    /// Closes the channel; the peer's ``incoming`` stream ends.
    func close() async
}
