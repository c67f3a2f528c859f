import Foundation

/// The `bleu` command-line tool built beside the tests, run as a child process.
public enum ToolProcess {
    /// The `bleu` executable in the build folder (swift build --build-tests builds it too).
    public static var executable: URL? { executable(named: "bleu") }

    /// An executable of this package built next to the tests (`bleu`, `bleu-hub-peer`).
    public static func executable(named name: String) -> URL? {
        let candidate = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent(name)
        return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
    }

    /// Why a test that needs the tool is skipped.
    public static let skipReason = "the bleu executable is not built next to the tests (run swift build --build-tests)"

    /// Starts `bleu arguments…` with its standard input open (``ChildProcess/finish(limit:)`` closes it).
    public static func start(_ arguments: [String], tool: String = "bleu") throws -> ChildProcess {
        guard let executable = executable(named: tool) else { throw CocoaError(.fileNoSuchFile) }
        return try ChildProcess(executable.path, arguments: arguments, input: .stream)
    }

    /// Runs `bleu arguments…` to the end, with no input (terminated after `limit`).
    public static func run(_ arguments: [String], limit: Duration = .seconds(40)) async throws -> ProcessOutcome {
        guard let executable else { throw CocoaError(.fileNoSuchFile) }
        return try await ChildProcess.run(executable.path, arguments: arguments, limit: limit)
    }
}
