import BleuCore
import Foundation

/// Callers waiting for the link to a peripheral to be set up: each is resumed with the link
/// when the orchestrator brings it up, or with an error at its deadline or when its task is
/// cancelled. One entry per waiting call; an entry leaves the table whichever way it ends.
final class LinkWaiters: Sendable {
    private struct Entry {
        var peripheral: UUID
        var continuation: CheckedContinuation<ConnectedPeripheral, any Error>
    }

    private struct State {
        var next: UInt64 = 0
        var entries: [UInt64: Entry] = [:]
    }

    private let state = Locked(State())
    private let deadlines: Deadlines

    init(clock: ElapsedClock) {
        deadlines = Deadlines(clock: clock)
    }

    /// How many callers wait now (for tests of boundedness).
    var count: Int { state.withLock { $0.entries.count } }

    /// Waits until ``resume(_:with:)`` hands over the link to `peripheral`, or fails with
    /// `timeout()` at `deadline` (elapsed time on the clock), or with `BleuError.cancelled`.
    /// `current` is asked once the wait is registered, so a link set up just before is not missed.
    func wait(for peripheral: UUID, until deadline: Duration, current: @escaping @Sendable () -> ConnectedPeripheral?,
              timeout: @escaping @Sendable () -> any Error) async throws -> ConnectedPeripheral {
        let ticket = state.withLock { state in
            state.next &+= 1
            return state.next
        }
        let timer = deadlines.add(at: deadline) { [weak self] in self?.fail(ticket, timeout()) }
        defer { deadlines.remove(timer) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ConnectedPeripheral, any Error>) in
                let cancelled = state.withLock { state in
                    if Task.isCancelled { return true }
                    state.entries[ticket] = Entry(peripheral: peripheral, continuation: continuation)
                    return false
                }
                if cancelled {
                    continuation.resume(throwing: BleuError.cancelled)
                } else if let link = current() {
                    finish(ticket, .success(link))
                }
            }
        } onCancel: {
            fail(ticket, BleuError.cancelled)
        }
    }

    /// Hands the link over to every caller waiting for its peripheral.
    func resume(_ peripheral: UUID, with link: ConnectedPeripheral) {
        let resumed = state.withLock { state in
            let tickets = state.entries.filter { $0.value.peripheral == peripheral }.map(\.key)
            return tickets.compactMap { state.entries.removeValue(forKey: $0)?.continuation }
        }
        for continuation in resumed { continuation.resume(returning: link) }
    }

    /// Fails every caller waiting for `peripheral` with `error` (a link that cannot come up
    /// until someone acts: pairing refused, say).
    func fail(_ peripheral: UUID, with error: any Error) {
        let failed = state.withLock { state in
            let tickets = state.entries.filter { $0.value.peripheral == peripheral }.map(\.key)
            return tickets.compactMap { state.entries.removeValue(forKey: $0)?.continuation }
        }
        for continuation in failed { continuation.resume(throwing: error) }
    }

    private func fail(_ ticket: UInt64, _ error: any Error) {
        finish(ticket, .failure(error))
    }

    private func finish(_ ticket: UInt64, _ result: Result<ConnectedPeripheral, any Error>) {
        state.withLock { $0.entries.removeValue(forKey: ticket) }?.continuation.resume(with: result)
    }
}
