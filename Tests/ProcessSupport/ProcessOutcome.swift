import Foundation

/// How a child process ended and what it printed.
public struct ProcessOutcome: Sendable, CustomStringConvertible {
    /// The executable and its arguments.
    public var command: String
    /// The exit status, or the signal's number when ``signalled``.
    public var status: Int32
    /// Whether an uncaught signal ended the child (SIGTERM from ``ChildProcess/terminate()`` or
    /// a time limit, a crash…).
    public var signalled: Bool
    /// Its standard output (what ``ChildProcess/nextLine()`` did not take).
    public var output: Data
    /// Its standard error, when collected (``ChildProcess/ErrorOutput/collect``).
    public var errors: Data

    /// ``output`` as UTF-8 text (invalid bytes replaced).
    public var outputText: String { String(decoding: output, as: UTF8.self) }
    /// ``errors`` as UTF-8 text (invalid bytes replaced).
    public var errorText: String { String(decoding: errors, as: UTF8.self) }

    /// Whether it exited by itself with status 0.
    public var succeeded: Bool { !signalled && status == 0 }

    /// How it ended, and the end of its standard error: for a failed expectation's message.
    public var description: String {
        let ending = signalled ? "was ended by signal \(status)" : "exited with status \(status)"
        let errorText = self.errorText
        guard !errorText.isEmpty else { return "\(command) \(ending)" }
        let tail = errorText.count > 2000 ? "…" + errorText.suffix(2000) : Substring(errorText)
        return "\(command) \(ending); standard error:\n\(tail)"
    }
}

/// Why ``ChildProcess`` could not run a child or hear all of it.
public enum ChildProcessError: Error, CustomStringConvertible {
    /// The executable could not be launched (missing, not executable…).
    case couldNotStart(command: String, reason: String)
    /// It was still running when its time limit passed, and was terminated; the outcome holds
    /// what it printed until then.
    case timedOut(limit: Duration, outcome: ProcessOutcome)
    /// Not all of its standard input could be written (usually: it exited without reading it,
    /// EPIPE).
    case inputFailed(reason: String, outcome: ProcessOutcome)
    /// ``ChildProcess/send(_:)`` after its input was closed, without an input pipe
    /// (``ChildProcess/Input/stream``), or after it exited.
    case inputClosed(command: String)
    /// Reading its standard output or standard error failed.
    case outputFailed(command: String, reason: String)

    public var description: String {
        switch self {
        case .couldNotStart(let command, let reason): "could not start \(command): \(reason)"
        case .timedOut(let limit, let outcome): "still running after \(limit), terminated: \(outcome)"
        case .inputFailed(let reason, let outcome): "could not write all the standard input (\(reason)): \(outcome)"
        case .inputClosed(let command): "the standard input of \(command) is closed"
        case .outputFailed(let command, let reason): "reading the output of \(command) failed: \(reason)"
        }
    }
}
