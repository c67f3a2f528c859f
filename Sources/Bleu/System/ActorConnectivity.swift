import BleuCore
import BleuOrchestration

/// Where the link to a remote actor stands, as ``BLEActorSystem/connectivity(of:)-(UUID)`` reports it.
public enum ActorConnectivity: Sendable, Hashable, CustomStringConvertible {
    /// The system is finding, connecting to or setting up the actor's peripheral.
    case connecting
    /// The link is set up: calls go out now.
    case ready
    /// An attempt failed; retry number `attempt` starts `retryIn` after this state was entered.
    case backingOff(attempt: Int, retryIn: Duration)
    /// Nothing is attempted, for this reason: the radio is off, the circuit breaker is open,
    /// the attempt budget is spent (the last two end by themselves), or the pool has no room.
    case suspended(SuspensionReason)
    /// The system does not keep this actor connected (never called, not located yet, or
    /// ``BLEActorSystem/disconnect(from:)-(PeripheralActor)``); the radio's reason when a link ended.
    case disconnected(DisconnectReason?)

    /// The connectivity a fleet device state stands for; `at` is when the state was entered.
    init(_ state: DeviceState, at: Duration, lastLoss: DisconnectReason?) {
        switch state {
        case .idle, .resolving, .connecting, .discovering: self = .connecting
        case .ready, .degraded: self = .ready
        case .backingOff(let attempt, let deadline): self = .backingOff(attempt: attempt, retryIn: max(.zero, deadline - at))
        case .suspended(.stopped): self = .disconnected(lastLoss)
        case .suspended(let reason): self = .suspended(reason)
        }
    }

    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .ready: "ready"
        case .backingOff(let attempt, let delay): "backingOff(attempt: \(attempt), retryIn: \(delay))"
        case .suspended(let reason): "suspended(\(reason))"
        case .disconnected(let reason?): "disconnected(\(reason))"
        case .disconnected(nil): "disconnected"
        }
    }
}
