import ArgumentParser
import Foundation

/// `swift run -c release bleu-bench <suite> [--json] [--quick]`
@main
struct BleuBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bleu-bench",
        abstract: "Bleu's benchmark suites: each prints a table of figures, or one JSON object with --json.",
        discussion: "Suites: " + BenchmarkRegistry.suites.map { "\($0.name) (\($0.summary))" }.joined(separator: "; ")
    )

    @Argument(help: "The suite to run.")
    var suite: String

    @Flag(help: "Print one JSON object of the figures instead of a table.")
    var json = false

    @Flag(help: "A shorter run with fewer iterations, for smoke tests.")
    var quick = false

    mutating func run() async throws {
        guard let selected = BenchmarkRegistry.suites.first(where: { $0.name == suite }) else {
            throw ValidationError("Unknown suite '\(suite)'. Suites: \(BenchmarkRegistry.suites.map(\.name).joined(separator: ", ")).")
        }
        #if DEBUG
        FileHandle.standardError.write(Data("warning: a debug build; run with -c release for meaningful figures\n".utf8))
        #endif
        var report = BenchmarkReport(suite: selected.name)
        try await selected.run(BenchmarkOptions(quick: quick), &report)
        print(json ? report.jsonText() : report.tableText())
    }
}
