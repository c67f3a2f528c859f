import BleuCore

/// What happens to a device: the inputs of ``DeviceMachine/reduce(_:_:now:)``.
public enum DeviceEvent: Sendable, Hashable {
    /// The orchestrator started managing devices.
    case start
    /// The orchestrator stopped: links are given up and nothing is attempted.
    case stop
    /// The central's radio state changed.
    case centralStateChanged(ManagerState)
    /// The central began restoring state; nothing is attempted until it ends.
    case restorationBegan
    /// Restoration ended; `connected` says whether this device's link was restored.
    case restorationEnded(connected: Bool)
    /// Policy decided whether the device should be connected.
    case policyUpdated(eligible: Bool)
    /// The peripheral was found (retrieved or heard in a scan).
    case resolved
    /// The peripheral could not be found.
    case resolveFailed(FailureClass)
    /// The connection attempt succeeded.
    case connected
    /// The connection attempt failed.
    case connectFailed(FailureClass)
    /// The link ended.
    case disconnected(FailureClass)
    /// Discovery and subscriptions completed.
    case discovered
    /// Discovery or a subscription failed.
    case discoveryFailed(FailureClass)
    /// A notification or indication arrived.
    case valueReceived
    /// A write completed.
    case writeSucceeded
    /// A write failed.
    case writeFailed(FailureClass)
    /// The radio can take writes without response again.
    case readyToSend
    /// The outgoing queues filled (`true`) or drained below their bound again (`false`).
    case backPressure(Bool)
    /// A timer the machine started fired; `token` tells a current timer from a stale one.
    case timerFired(DeviceTimer, token: UInt64)
}

/// The machine's timers; a device runs at most one at a time.
public enum DeviceTimer: String, Sendable, Hashable, CaseIterable {
    /// The end of a backoff delay.
    case backoff
    /// The end of a circuit-breaker or budget cool-down.
    case cooldown
    /// The discovery deadline.
    case discovery
}

/// What the device actor must do after a transition, in order.
public enum DeviceEffect: Sendable, Hashable {
    /// Find the peripheral (retrieve it, or scan for it); report ``DeviceEvent/resolved``.
    case resolve
    /// Ask the radio owner to connect; report ``DeviceEvent/connected`` or ``DeviceEvent/connectFailed(_:)``.
    case connect
    /// Abandon the link and any operation under way (cancel the connection).
    case cancelConnection
    /// Discover the profile and subscribe to its notifications (again after every reconnect);
    /// report ``DeviceEvent/discovered`` or ``DeviceEvent/discoveryFailed(_:)``.
    case discover
    /// Start the machine's timer (replacing any running one), firing at `deadline`.
    case startTimer(DeviceTimer, deadline: Duration, token: UInt64)
    /// Cancel the running timer.
    case cancelTimers
    /// Send what the outgoing queues hold, as far as the link takes it.
    case flushOutgoing
}
