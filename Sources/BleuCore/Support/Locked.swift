#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value behind a `pthread_mutex_t` (error-checking): what every Bleu module uses instead of
/// `Synchronization.Mutex`. Package-internal: not part of Bleu's public API.
///
/// Why not `Mutex`: on Linux it hands a contended lock over inside the kernel (a
/// priority-inheritance futex), which ThreadSanitizer cannot see, so every contended use is
/// reported as a data race — a two-thread counter under `Mutex` shows it — and the project's
/// tests must pass under `--sanitize=thread`. ThreadSanitizer understands pthread mutexes.
///
/// `@unchecked Sendable` is sound: `value` is read and written only inside `withLock` and
/// `withLockIfAvailable`, between a successful `pthread_mutex_lock`/`trylock` of `mutex` and
/// its unlock, so no two threads touch it at once; `mutex` itself is only passed to the pthread
/// calls, which are thread-safe, and is freed in `deinit`, when no other reference exists.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Only ever accessed with the mutex held, which makes the accesses exclusive already; the
    // runtime's dynamic exclusivity check (a thread-local access set, two calls per lock) is
    // switched off for it.
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock. Locking again from inside `body` is a
    /// programming error and stops the process (the mutex checks for it).
    package func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        let status = pthread_mutex_lock(mutex)
        precondition(status == 0, "pthread_mutex_lock failed (\(status)); a recursive lock is a bug")
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Runs `body` if the lock is free now (held by no thread, this one included); else `nil`.
    package func withLockIfAvailable<T>(_ body: (inout Value) -> T) -> T? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return body(&value)
    }
}
