import BleuCore

/// The callers waiting on operations, by operation id: each completion runs once, inside the
/// engine (so it must not block or call back into the bus synchronously). Also the operations
/// waiting for a link to finish terminating.
struct OperationWaiters {
    private var completions: [OperationID: OperationCompletion] = [:]
    private var terminations: [LinkID: [OperationID]] = [:]
    /// Operations the engine starts itself are numbered from 2⁶²; the bus numbers callers' below.
    private var nextEngineID: OperationID = 1 << 62

    /// A number for an operation the engine starts itself.
    mutating func newID() -> OperationID {
        defer { nextEngineID += 1 }
        return nextEngineID
    }

    /// Registers the caller of operation `id`.
    mutating func register(_ id: OperationID, _ completion: @escaping OperationCompletion) {
        completions[id] = completion
    }

    /// Whether a caller still waits on `id` (it may have been cancelled).
    func isWaiting(_ id: OperationID) -> Bool { completions[id] != nil }

    /// The waiting operations, in order.
    var waitingIDs: [OperationID] { completions.keys.sorted() }

    /// Takes the completion of `id`, once: later results for it find nothing.
    mutating func take(_ id: OperationID) -> OperationCompletion? {
        completions.removeValue(forKey: id)
    }

    /// `id` completes when link `link` has finished terminating.
    mutating func waitForTermination(of link: LinkID, _ id: OperationID) {
        terminations[link, default: []].append(id)
    }

    /// The operations waiting for `link` to terminate, which it now has.
    mutating func takeTerminationWaiters(of link: LinkID) -> [OperationID] {
        terminations.removeValue(forKey: link) ?? []
    }
}
