import BleuCore

/// Where a manager lives: in this process's engine (its node's key, the generation it
/// attached as, its event hub), or at a hub (its line there).
enum ManagerBacking<Key: Sendable, Event: Sendable>: Sendable {
    case local(Key, generation: Int, hub: EventHub<Event>)
    case remote(RemoteManager)

    /// The node's key (a manager on a local bus only).
    var key: Key {
        guard case .local(let key, _, _) = self else { preconditionFailure("a manager on a hub has no node here") }
        return key
    }

    var generation: Int {
        guard case .local(_, let generation, _) = self else { preconditionFailure("a manager on a hub has no node here") }
        return generation
    }

    var hub: EventHub<Event> {
        guard case .local(_, _, let hub) = self else { preconditionFailure("a manager on a hub has no node here") }
        return hub
    }

    var remote: RemoteManager? {
        if case .remote(let remote) = self { remote } else { nil }
    }
}
