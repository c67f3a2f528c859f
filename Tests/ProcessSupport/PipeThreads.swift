import BleuCore
import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value that threads change and tasks wait on: ``wait(_:)`` suspends (it never blocks a
/// thread) until `take` finds what it needs, re-checking after every ``update(_:)``.
final class Shared<State: Sendable>: Sendable {
    private struct Guarded: Sendable {
        var state: State
        var waiters: [@Sendable () -> Void] = []
    }

    private let guarded: Locked<Guarded>

    init(_ state: State) {
        guarded = Locked(Guarded(state: state))
    }

    /// Changes the state and wakes every waiting task to look again.
    func update<T>(_ change: (inout State) -> T) -> T {
        let (result, waiters) = guarded.withLock { guarded in
            let result = change(&guarded.state)
            defer { guarded.waiters = [] }
            return (result, guarded.waiters)
        }
        for wake in waiters { wake() }
        return result
    }

    /// The state as it is now.
    func read<T>(_ body: (State) -> T) -> T {
        guarded.withLock { body($0.state) }
    }

    /// Suspends until `take` returns a value (it may change the state as it takes).
    func wait<T: Sendable>(_ take: (inout State) -> T?) async -> T {
        while true {
            let taken: T? = await withCheckedContinuation { continuation in
                guarded.withLock { guarded in
                    if let value = take(&guarded.state) {
                        continuation.resume(returning: value)
                    } else {
                        guarded.waiters.append { continuation.resume(returning: nil) }
                    }
                }
            }
            if let taken { return taken }
        }
    }
}

/// Why a read from or write to a pipe failed, as the system says it.
func systemErrorText(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// Reads one of the child's output pipes to its end on a thread of its own, as fast as the child
/// writes (so the child never stalls on a full pipe), keeping the bytes until they are taken.
final class OutputReader: Sendable {
    struct State: Sendable {
        var buffer = Data()
        var ended = false
        /// The system's reason when a read failed (the output counts as ended then).
        var failure: String?
    }

    /// What ``nextLine()`` found.
    enum Line: Sendable {
        case line(Data)
        case end
        case failed(String)
    }

    let state = Shared(State())

    /// Starts reading `pipe` (its write end must already be closed in this process, as
    /// `Process.run()` does, or the end never comes).
    init(_ pipe: Pipe, name: String) {
        let state = self.state
        let thread = Thread {
            let handle = pipe.fileHandleForReading
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    state.update { $0.buffer.append(contentsOf: chunk[..<count]) }
                } else if count == 0 {
                    state.update { $0.ended = true }
                    return
                } else if errno != EINTR {
                    let reason = systemErrorText(errno)
                    state.update {
                        $0.ended = true
                        $0.failure = reason
                    }
                    return
                }
            }
        }
        thread.name = name
        thread.start()
    }

    /// The next line without its newline; at the end, what is left (if anything) as the last line.
    func nextLine() async -> Line {
        await state.wait { state -> Line? in
            if let newline = state.buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Data(state.buffer[state.buffer.startIndex..<newline])
                state.buffer.removeSubrange(state.buffer.startIndex...newline)
                return .line(line)
            }
            guard state.ended else { return nil }
            if let failure = state.failure { return .failed(failure) }
            guard state.buffer.isEmpty else {
                defer { state.buffer = Data() }
                return .line(state.buffer)
            }
            return .end
        }
    }

    /// Everything not taken yet, once the output has ended; or the read's failure.
    func rest() async -> Result<Data, OutputFailure> {
        await state.wait { state -> Result<Data, OutputFailure>? in
            guard state.ended else { return nil }
            if let failure = state.failure { return .failure(OutputFailure(reason: failure)) }
            defer { state.buffer = Data() }
            return .success(state.buffer)
        }
    }

    struct OutputFailure: Error {
        var reason: String
    }
}

/// Writes to the child's input pipe in order, on a thread started whenever there is something to
/// write (and ending when there is not), so no caller ever blocks on a full pipe. SIGPIPE is
/// blocked on that thread: a child that exits without reading its input makes the write fail
/// with EPIPE instead of killing the test process.
final class InputWriter: Sendable {
    private enum Item: Sendable {
        case data(Data)
        case close
    }

    private struct Queue: Sendable {
        var items: [Item] = []
        var writing = false
        /// No more items are taken (``close()`` was called).
        var closed = false
    }

    struct State: Sendable {
        /// The write end is closed: everything was written, or a write failed.
        var finished = false
        /// The system's reason when a write failed; later data is dropped.
        var failure: String?
    }

    private let pipe: Pipe
    private let name: String
    private let queue = Locked(Queue())
    let state = Shared(State())

    init(_ pipe: Pipe, name: String) {
        self.pipe = pipe
        self.name = name
    }

    /// Queues `data`; `false` when the input is already closed.
    func send(_ data: Data) -> Bool {
        enqueue(.data(data))
    }

    /// Queues the end of input after whatever is queued; later calls do nothing.
    func close() {
        _ = enqueue(.close)
    }

    private func enqueue(_ item: Item) -> Bool {
        let (accepted, start) = queue.withLock { queue -> (Bool, Bool) in
            guard !queue.closed else { return (false, false) }
            if case .close = item { queue.closed = true }
            queue.items.append(item)
            let start = !queue.writing
            queue.writing = true
            return (true, start)
        }
        if start {
            let thread = Thread { [self] in writeQueued() }
            thread.name = name
            thread.start()
        }
        return accepted
    }

    /// On the writer thread: writes queued items until none is left.
    private func writeQueued() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        while let item = queue.withLock({ queue -> Item? in
            guard !queue.items.isEmpty else {
                queue.writing = false
                return nil
            }
            return queue.items.removeFirst()
        }) {
            switch item {
            case .data(let data):
                guard state.read({ $0.failure == nil }) else { continue }
                if let failure = writeAll(data) { state.update { $0.failure = failure } }
            case .close:
                // The only failure close reports for a pipe's end is that it is closed already,
                // and it is closed here once: there is nothing to report.
                try? pipe.fileHandleForWriting.close()
                state.update { $0.finished = true }
            }
        }
    }

    /// Writes every byte, or returns why it could not.
    private func writeAll(_ data: Data) -> String? {
        let descriptor = pipe.fileHandleForWriting.fileDescriptor
        return data.withUnsafeBytes { bytes -> String? in
            var offset = 0
            while offset < bytes.count {
                let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count >= 0 {
                    offset += count
                } else if errno != EINTR {
                    return systemErrorText(errno)
                }
            }
            return nil
        }
    }

    /// Once the write end is closed: the failure, if a write failed.
    func finished() async -> String? {
        await state.wait { state -> String?? in state.finished ? .some(state.failure) : nil }
    }
}
