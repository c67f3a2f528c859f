import CoreBluetoothEmulator
import Foundation

/// What a delegate heard, in order, as text the tests compare ("didConnect", "didWrite 2A39 nil"…),
/// with an awaitable cursor: tests wait for callbacks instead of sleeping.
final class CallbackLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []
    private var taken = 0
    private var waiter: (predicate: (String) -> Bool, continuation: CheckedContinuation<String, Never>)?

    func append(_ entry: String) {
        lock.lock()
        entries.append(entry)
        let ready = takeMatching()
        lock.unlock()
        if let (continuation, entry) = ready { continuation.resume(returning: entry) }
    }

    /// The next entry after the last one taken that satisfies `predicate` (skipping others);
    /// "cancelled" when the test's time limit cancels the wait.
    func next(where predicate: @escaping (String) -> Bool = { _ in true }) async -> String {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                lock.lock()
                waiter = (predicate, continuation)
                let ready = Task.isCancelled ? (continuation, "cancelled") : takeMatching()
                if Task.isCancelled { waiter = nil }
                lock.unlock()
                if let (continuation, entry) = ready { continuation.resume(returning: entry) }
            }
        } onCancel: {
            lock.lock()
            let cancelled = waiter?.continuation
            waiter = nil
            lock.unlock()
            cancelled?.resume(returning: "cancelled")
        }
    }

    /// The next entry starting with `prefix`.
    func next(_ prefix: String) async -> String {
        await next { $0.hasPrefix(prefix) }
    }

    /// Everything heard so far.
    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }

    private func takeMatching() -> (CheckedContinuation<String, Never>, String)? {
        guard let waiter else { return nil }
        while taken < entries.count {
            let entry = entries[taken]
            taken += 1
            if waiter.predicate(entry) {
                self.waiter = nil
                return (waiter.continuation, entry)
            }
        }
        return nil
    }
}

/// An error as the logs show it: "nil", "CBError 7", "CBATTError 15", or the type.
func describe(_ error: (any Error)?) -> String {
    switch error {
    case nil: "nil"
    case let error as CBError: "CBError \(error.code.rawValue)"
    case let error as CBATTError: "CBATTError \(error.code.rawValue)"
    case let error?: "\(type(of: error))"
    }
}
