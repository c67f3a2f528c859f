import BleuCore
import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A child process run without blocking Swift's cooperative pool: every blocking read, write and
/// wait happens on a thread of its own, and the tasks that await the process only suspend.
///
/// The pool has as many threads as the machine has cores (two on ours), and Swift Testing runs
/// the tests in parallel on it: a test that blocked a pool thread on a pipe or on
/// `waitUntilExit()` while its child ran stalled every other test with it.
///
/// To run a command to its end:
///
/// ```swift
/// let outcome = try await ChildProcess.run(python, arguments: [script], input: request, limit: .seconds(60))
/// #expect(outcome.status == 0, "\(outcome)")
/// ```
///
/// To talk to one that keeps running, start it with ``Input/stream``, read its lines with
/// ``nextLine()``, write with ``send(_:)``, and end it with ``finish(limit:)`` (or ``terminate()``).
///
/// The child's standard output and standard error are read on their own threads as fast as it
/// writes them (it never stalls on a full pipe) and kept until taken; its standard input is
/// written on a thread too, with SIGPIPE blocked there (a child that exits without reading its
/// input is reported, not the death of the test process). When it exits, its input is closed.
/// A `ChildProcess` released while its child still runs terminates the child.
public final class ChildProcess: Sendable {
    /// What the child reads as its standard input.
    public enum Input: Sendable {
        /// Nothing: the null device.
        case none
        /// These bytes, then the end of input.
        case data(Data)
        /// A pipe left open for ``ChildProcess/send(_:)`` until ``ChildProcess/closeInput()``
        /// or ``ChildProcess/finish(limit:)``.
        case stream
    }

    /// Where the child's standard error goes.
    public enum ErrorOutput: Sendable {
        /// Kept, for ``ProcessOutcome/errors``.
        case collect
        /// The test process's own standard error (a long-running peer's log, shown as it comes).
        case inherit
    }

    /// How the child ended.
    struct Exit: Sendable {
        var status: Int32
        var signalled: Bool
    }

    /// The executable and its arguments, for messages.
    public let command: String
    private let process: Process
    private let input: InputWriter?
    private let output: OutputReader
    private let errors: OutputReader?
    private let exit: Shared<Exit?>
    private let timedOut = Locked(false)

    /// Starts `executable` (a path) with `arguments`.
    public init(_ executable: String, arguments: [String] = [], input: Input = .none,
                errors: ErrorOutput = .collect) throws(ChildProcessError) {
        let command = ([executable] + arguments).map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
        let name = URL(fileURLWithPath: executable).lastPathComponent
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let writer: InputWriter?
        switch input {
        case .none:
            process.standardInput = FileHandle.nullDevice
            writer = nil
        case .data, .stream:
            let pipe = Pipe()
            process.standardInput = pipe
            writer = InputWriter(pipe, name: "\(name) input")
        }
        let outputPipe = Pipe()
        process.standardOutput = outputPipe
        let errorPipe: Pipe? = errors == .collect ? Pipe() : nil
        if let errorPipe { process.standardError = errorPipe }
        let exit = Shared<Exit?>(nil)
        // A streamed input stays open until closed; once the child has exited, nothing more can
        // be written, and closing it ends the writer. (Input given as data is closed after it.)
        let closedOnExit: InputWriter? = if case .stream = input { writer } else { nil }
        process.terminationHandler = { process in
            let ended = Exit(status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal)
            exit.update { $0 = ended }
            closedOnExit?.close()
        }
        do {
            try withStopSignalsUnblocked { try process.run() }
        } catch {
            throw .couldNotStart(command: command, reason: "\(error)")
        }
        // The readers start only now: until run() this process held the pipes' write ends too,
        // and a read would never see the end.
        self.command = command
        self.process = process
        self.input = writer
        self.output = OutputReader(outputPipe, name: "\(name) output")
        self.errors = errorPipe.map { OutputReader($0, name: "\(name) errors") }
        self.exit = exit
        if case .data(let data) = input {
            _ = writer?.send(data)  // Always taken: only this closes a data input, just below.
            writer?.close()
        }
    }

    deinit {
        if isRunning { process.terminate() }
    }

    /// Runs `executable` with `arguments` to its end: `input` (or nothing) as its standard input,
    /// terminated once `limit` has passed (see ``finish(limit:)``).
    public static func run(_ executable: String, arguments: [String] = [], input: Data? = nil,
                           errors: ErrorOutput = .collect, limit: Duration) async throws(ChildProcessError) -> ProcessOutcome {
        let child = try ChildProcess(executable, arguments: arguments, input: input.map(Input.data) ?? .none, errors: errors)
        return try await child.finish(limit: limit)
    }

    /// Whether the child has not exited yet.
    public var isRunning: Bool {
        exit.read { $0 == nil }
    }

    /// Queues `data` for the child's standard input (started with ``Input/stream``); returns at
    /// once, a thread writes it. Throws ``ChildProcessError/inputClosed(command:)`` once the input
    /// is closed or the child has exited.
    public func send(_ data: Data) throws(ChildProcessError) {
        guard let input, isRunning, input.send(data) else { throw .inputClosed(command: command) }
    }

    /// Ends the child's standard input after what was sent; the child sees the end of its input.
    public func closeInput() {
        input?.close()
    }

    /// The next line of the child's standard output, without its newline; the last line needs
    /// none. `nil` once the output has ended and every line was taken.
    public func nextLine() async throws(ChildProcessError) -> String? {
        switch await output.nextLine() {
        case .line(let line): return String(decoding: line, as: UTF8.self)
        case .end: return nil
        case .failed(let reason): throw .outputFailed(command: command, reason: reason)
        }
    }

    /// Sends SIGTERM to the child if it is still running; returns at once.
    public func terminate() {
        if isRunning { process.terminate() }
    }

    /// Sends SIGKILL to the child if it is still running, as a crash would end it; returns at once.
    public func kill() {
        if isRunning { _ = sendSignal(process.processIdentifier, SIGKILL) }
    }

    /// Closes the child's standard input and waits for it to exit and for both its outputs to end.
    /// After `limit` it is sent SIGTERM (SIGKILL 2 s later) and this throws
    /// ``ChildProcessError/timedOut(limit:outcome:)``. The outcome's output is what
    /// ``nextLine()`` did not take.
    ///
    /// The outputs end when every process holding them has closed them: a grandchild that keeps
    /// them open keeps this waiting.
    public func finish(limit: Duration) async throws(ChildProcessError) -> ProcessOutcome {
        closeInput()
        let watchdog = Task { await self.enforce(limit) }
        defer { watchdog.cancel() }
        let ended = await exit.wait { $0 }
        let output = await self.output.rest()
        let errors = await self.errors?.rest() ?? .success(Data())
        let inputFailure = await input?.finished() ?? nil
        let outcome: ProcessOutcome
        do throws(OutputReader.OutputFailure) {
            outcome = ProcessOutcome(command: command, status: ended.status, signalled: ended.signalled,
                                     output: try output.get(), errors: try errors.get())
        } catch {
            throw .outputFailed(command: command, reason: error.reason)
        }
        if timedOut.withLock({ $0 }) { throw .timedOut(limit: limit, outcome: outcome) }
        if let inputFailure { throw .inputFailed(reason: inputFailure, outcome: outcome) }
        return outcome
    }

    /// Terminates the child once `limit` has passed, unless cancelled first (``finish(limit:)``
    /// cancels it when the child has ended).
    private func enforce(_ limit: Duration) async {
        do {
            try await Task.sleep(for: limit)
        } catch {
            return  // Cancelled: the child ended in time.
        }
        guard isRunning else { return }
        timedOut.withLock { $0 = true }
        process.terminate()
        do {
            try await Task.sleep(for: .seconds(2))
        } catch {
            return  // Cancelled: SIGTERM ended it.
        }
        if isRunning { _ = sendSignal(process.processIdentifier, SIGKILL) }
    }
}

/// Runs `body` (which starts a child) with SIGHUP, SIGINT, SIGQUIT and SIGTERM unblocked on
/// this thread, so that the child can be stopped with them.
///
/// A child starts with the signal mask of the thread that spawned it, and in a Swift test
/// process on Linux every thread blocks nearly every signal (libdispatch watches signals through
/// `signalfd`, which needs them blocked): a child started from there ignores `terminate()`.
/// Only these four are unblocked, for the moment of the spawn: SIGCHLD above all stays blocked,
/// or a sibling's exit delivered to this thread would never reach Foundation's watch for it.
private func withStopSignalsUnblocked<T>(_ body: () throws -> T) rethrows -> T {
    var stopSignals = sigset_t()
    sigemptyset(&stopSignals)
    for signal in [SIGHUP, SIGINT, SIGQUIT, SIGTERM] { sigaddset(&stopSignals, signal) }
    var saved = sigset_t()
    pthread_sigmask(SIG_UNBLOCK, &stopSignals, &saved)
    defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
    return try body()
}

/// The C library's `kill`, under a name the method ``ChildProcess/kill()`` does not hide.
private func sendSignal(_ pid: pid_t, _ signal: Int32) -> Int32 {
    kill(pid, signal)
}
