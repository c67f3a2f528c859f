import Dispatch

/// The queue a manager's delegate callbacks run on: the one given at init, the main queue for
/// `nil` (as CoreBluetooth does). The emulator hands events over from its own threads in the
/// order they happened; this serial queue keeps that order.
///
/// CoreBluetooth's objects are not `Sendable`: an application uses them on its manager's
/// queue. The emulator's threads never touch them — they only queue work here — so the
/// closures are handed over unchecked, once, in this one place.
struct CallbackQueue: Sendable {
    let queue: DispatchQueue

    init(_ queue: DispatchQueue?) {
        self.queue = queue ?? .main
    }

    /// Runs `body` on the queue, after everything queued before it.
    func async(_ body: @escaping () -> Void) {
        let handoff = Unchecked(body)
        queue.async { handoff.value() }
    }
}

/// A value handed across threads where the receiver guarantees it is used on one queue at a
/// time (see ``CallbackQueue``). Internal plumbing only.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}

/// A weak reference the emulator's sinks hold to the object they report to, so a manager
/// that goes away is not kept alive by its own subscriptions.
struct WeakHandoff<Object: AnyObject>: @unchecked Sendable {
    weak var object: Object?

    init(_ object: Object) {
        self.object = object
    }
}
