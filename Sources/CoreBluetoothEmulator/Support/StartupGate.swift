import BleuCore

/// CoreBluetooth calls `willRestoreState` before a manager's first `…DidUpdateState`; the
/// emulator's event stream starts with the state. The gate holds what a manager receives while
/// it subscribes, then hands it on restoration first; later events pass straight through, in
/// order.
final class StartupGate: Sendable {
    private let held = Locked<[(first: Bool, work: @Sendable () -> Void)]?>([])

    /// Hands an event on (`work` queues its callback): held while the manager starts, at once
    /// afterwards. `first` marks a restoration.
    func pass(first: Bool, _ work: @escaping @Sendable () -> Void) {
        let passed = held.withLock { held -> Bool in
            guard held != nil else { return true }
            held?.append((first, work))
            return false
        }
        if passed { work() }
    }

    /// The manager has subscribed: hands on what it held, restorations first.
    func open() {
        held.withLock { held in
            let events = held ?? []
            for event in events where event.first { event.work() }
            for event in events where !event.first { event.work() }
            held = nil
        }
    }
}
