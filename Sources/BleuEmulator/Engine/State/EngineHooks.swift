import BleuCore
import Foundation

/// What the engine asks of the bus around it (``EmulatorBus``): the engine stays a pure value,
/// and the shell connects it to tasks, locks and public objects.
struct EngineHooks {
    /// Starts a scheduler task (of this generation) that wakes the engine at its next timer.
    var startScheduler: @Sendable (Int) -> Task<Void, Never> = { _ in Task {} }
    /// Consumers took the events that held these links' write slots: free them (outside the lock).
    var onReceipts: @Sendable ([LinkID]) -> Void = { _ in }
    /// Runs a central's passkey handler outside the lock and reports the answer.
    var requestPasskey: @Sendable (@escaping PasskeyHandler, PasskeyRequest, LinkID, UInt64) -> Void = { _, _, _, _ in }
    /// Takes every link event as it is recorded (``EmulatorBus/traceEvents(_:)``), inside the
    /// engine's lock: it must only hand the event on.
    var traceSink: (@Sendable (LinkTraceEvent) -> Void)?
    /// Makes the public channel object for one end of an L2CAP channel.
    var makeChannel: @Sendable (_ channel: ChannelID, _ side: ChannelSide, _ psm: UInt16, _ peer: UUID,
                                _ input: StreamID) -> (any L2CAPChannel)? = { _, _, _, _, _ in nil }
}
