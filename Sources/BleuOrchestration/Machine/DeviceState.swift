import BleuCore

/// Where a device is in its life, as the orchestrator manages it.
public enum DeviceState: Sendable, Hashable, CustomStringConvertible {
    /// Not managed yet: the orchestrator has not started.
    case idle
    /// Finding the peripheral: retrieving it from the central, or scanning for it.
    case resolving
    /// A connection attempt is under way (it may wait for a slot of the global cap).
    case connecting
    /// Connected; discovering the profile's service and characteristics and subscribing.
    case discovering
    /// Connected, discovered and subscribed: writes flow.
    case ready
    /// Connected and usable, but not well.
    case degraded(DegradedReason)
    /// Waiting before the next attempt: retry number `attempt` starts at `deadline` (time since
    /// the orchestrator's clock origin).
    case backingOff(attempt: Int, deadline: Duration)
    /// Not trying, for a reason; see ``SuspensionReason``.
    case suspended(SuspensionReason)

    /// A short name of the state without its associated values (for metrics and logs).
    public var name: String {
        switch self {
        case .idle: "idle"
        case .resolving: "resolving"
        case .connecting: "connecting"
        case .discovering: "discovering"
        case .ready: "ready"
        case .degraded: "degraded"
        case .backingOff: "backingOff"
        case .suspended: "suspended"
        }
    }

    public var description: String {
        switch self {
        case .degraded(let reason): "degraded(\(reason))"
        case .backingOff(let attempt, let deadline): "backingOff(attempt: \(attempt), deadline: \(deadline))"
        case .suspended(let reason): "suspended(\(reason))"
        default: name
        }
    }

    /// Whether a link exists or is being made in this state (the engine owns a connection).
    public var holdsLink: Bool {
        switch self {
        case .connecting, .discovering, .ready, .degraded: true
        default: false
        }
    }

    /// Whether writes can be sent in this state.
    public var isUsable: Bool {
        switch self {
        case .ready, .degraded: true
        default: false
        }
    }
}

/// Why a connected device is degraded.
public enum DegradedReason: String, Sendable, Hashable, Codable {
    /// The outgoing queues are full: the app produces faster than the link carries.
    case backPressure
    /// Operations keep failing with protocol errors while the link stays up.
    case operationErrors
}

/// Why a device is suspended: the first four are gates (nothing is attempted while one is
/// closed); the last two are cool-downs that end by themselves.
public enum SuspensionReason: Sendable, Hashable, CustomStringConvertible {
    /// The central is not powered on (off, unauthorized, unsupported, resetting, unknown).
    case radioUnavailable(ManagerState)
    /// The orchestrator is stopped.
    case stopped
    /// Policy does not want this device connected now (not pinned, and not chosen for the pool).
    case notEligible
    /// The central is restoring state; the restored links are taken over when it ends.
    case restoring
    /// Repeated protocol failures opened the circuit breaker; one trial attempt follows the cool-down.
    case circuitOpen
    /// The attempt budget is spent; attempts start afresh after the cool-down.
    case budgetExhausted

    public var description: String {
        switch self {
        case .radioUnavailable(let state): "radioUnavailable(\(state))"
        case .stopped: "stopped"
        case .notEligible: "notEligible"
        case .restoring: "restoring"
        case .circuitOpen: "circuitOpen"
        case .budgetExhausted: "budgetExhausted"
        }
    }

    /// Whether the reason is a gate (as opposed to a cool-down).
    public var isGate: Bool {
        switch self {
        case .circuitOpen, .budgetExhausted: false
        default: true
        }
    }
}
