import BleuCore

/// A `weak var delegate` that may be read and set from any thread, as CoreBluetooth's are.
final class WeakDelegate: Sendable {
    private struct Box {
        weak var object: AnyObject?
    }

    private let box = Locked(Box())

    init(_ object: AnyObject?) {
        box.withLock { $0.object = object }
    }

    /// The delegate, if it is still alive, as the protocol `D`.
    func get<D>(as type: D.Type) -> D? {
        box.withLock { $0.object } as? D
    }

    func set(_ object: AnyObject?) {
        box.withLock { $0.object = object }
    }
}
