import Foundation
import Testing

/// The `bleu` command-line tool built beside the tests, run as a child process.
struct ToolProcess: Sendable {
    /// What a finished run printed and returned.
    struct Outcome: Sendable {
        var status: Int32
        var output: String
        var errors: String
    }

    /// The `bleu` executable in the build folder (swift build --build-tests builds it too).
    static var executable: URL? {
        let candidate = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("bleu")
        return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
    }

    static let skipReason: Comment = "the bleu executable is not built next to the tests (run swift build --build-tests)"

    let process = Process()
    let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()

    /// Starts `bleu arguments…`.
    init(_ arguments: [String]) throws {
        guard let executable = Self.executable else { throw CocoaError(.fileNoSuchFile) }
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// Runs `bleu arguments…` to the end (killed after `limit`).
    static func run(_ arguments: [String], limit: Duration = .seconds(40)) async throws -> Outcome {
        let tool = try ToolProcess(arguments)
        try? tool.input.fileHandleForWriting.close()
        return await tool.finish(limit: limit)
    }

    /// The first line the tool prints, read on a thread of its own (no task blocks on a pipe).
    func firstLine() async -> String {
        let handle = output.fileHandleForReading
        return await withCheckedContinuation { continuation in
            Thread {
                var line = Data()
                while true {
                    let byte = handle.readData(ofLength: 1)
                    if byte.isEmpty || byte == Data([0x0A]) { break }
                    line += byte
                }
                continuation.resume(returning: String(decoding: line, as: UTF8.self))
            }.start()
        }
    }

    /// Closes its standard input and waits for it to end (terminating it after `limit`).
    func finish(limit: Duration = .seconds(40)) async -> Outcome {
        try? input.fileHandleForWriting.close()
        let process = self.process
        let (out, err) = (output.fileHandleForReading, errors.fileHandleForReading)
        let killer = Task {
            try? await Task.sleep(for: limit)
            if process.isRunning { process.terminate() }
        }
        defer { killer.cancel() }
        return await withCheckedContinuation { continuation in
            Thread {
                let text = out.readDataToEndOfFile()
                let problems = err.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: Outcome(status: process.terminationStatus,
                                                       output: String(decoding: text, as: UTF8.self),
                                                       errors: String(decoding: problems, as: UTF8.self)))
            }.start()
        }
    }
}
