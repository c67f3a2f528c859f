/// The tasks an object starts and owns: each is stored under an id until it ends, and all of
/// them are cancelled together when the owner stops. A value: its owner (an actor) keeps it
/// isolated.
struct OwnedTasks {
    private var tasks: [UInt64: Task<Void, Never>] = [:]
    private var nextID: UInt64 = 0

    /// How many are running.
    var count: Int { tasks.count }

    /// An id for a task about to start.
    mutating func reserve() -> UInt64 {
        nextID += 1
        return nextID
    }

    /// Keeps `task` under `id` until ``finished(_:)`` or ``cancelAll()``.
    mutating func started(_ id: UInt64, _ task: Task<Void, Never>) {
        tasks[id] = task
    }

    /// The task under `id` ended: it is no longer kept.
    mutating func finished(_ id: UInt64) {
        tasks[id] = nil
    }

    /// Cancels every task and forgets them.
    mutating func cancelAll() {
        for task in tasks.values { task.cancel() }
        tasks = [:]
    }
}

/// What the radio is told from outside its actor — a stream's consumer going away, a caller
/// cancelling — carried to it in order on one lane the radio owns (no task per message).
enum RadioChore: Sendable {
    /// The caller of a connection attempt was cancelled.
    case cancelAttempt(UInt64)
    /// The consumer of a scan's stream stopped listening.
    case scanConsumerEnded(RadioScanner.ID)
    /// The consumer of a characteristic's value stream stopped listening.
    case valueStreamEnded(GATTClientState.StreamID, valueHandle: UInt16, handle: ConnectionHandle)
}
