import BleuCore

/// What a radio tells its two managers, readable without the actor: the power state, and the
/// event stream of each role. A new manager stream starts with the state (``/BleuCore/EventBroadcaster/subscribe(initial:)``
/// reads it under the same lock as every later event).
final class RadioEvents: Sendable {
    let central = EventBroadcaster<CentralEvent>()
    let peripheral = EventBroadcaster<PeripheralEvent>()
    private let current = Locked(ManagerState.unknown)

    /// The radio's state: unknown before it starts, powered on while the controller runs,
    /// powered off after it stops or the transport closes.
    var state: ManagerState { current.withLock { $0 } }

    /// Moves to `new`; both roles see the change.
    func setState(_ new: ManagerState) {
        let changed = current.withLock { state in
            defer { state = new }
            return state != new
        }
        guard changed else { return }
        central.yield(.stateChanged(new))
        peripheral.yield(.stateChanged(new))
    }
}
