import ArgumentParser
import BleuCore
import Foundation

/// `swift run -c release bleu-bench <suite> [--json] [--quick] [--calls N] [--scenario NAME]`
///
/// A synchronous entry point that waits for the suite on a semaphore, not an `async` main: an
/// async main parks the main thread in `dispatch_main`'s `sigsuspend`, on which valgrind 3.19
/// (callgrind included) faults before the program runs, so no suite could be profiled.
@main
struct BleuBench: ParsableCommand {
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

    @Option(help: "How many calls (or echoes) the calls and echoes suites make (for callgrind: instructions per call from two counts).")
    var calls = 1000

    @Option(help: "The scenario of a suite that has several (memory: central or peripheral), run alone in this process.")
    var scenario: String?

    @Option(help: "fleet: instead of its usual runs, the same fleet on each of these numbers of radios, comma-separated (1,2,4).")
    var radios: String?

    func run() throws {
        let outcome = Locked<Result<Void, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached { [self] in
            do {
                try await runSuite()
                outcome.withLock { $0 = .success(()) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        try outcome.withLock { $0 }?.get()
    }

    private func runSuite() async throws {
        guard let selected = BenchmarkRegistry.suites.first(where: { $0.name == suite }) else {
            throw ValidationError("Unknown suite '\(suite)'. Suites: \(BenchmarkRegistry.suites.map(\.name).joined(separator: ", ")).")
        }
        #if DEBUG
        FileHandle.standardError.write(Data("warning: a debug build; run with -c release for meaningful figures\n".utf8))
        #endif
        var radioCounts: [Int]?
        if let radios {
            let counts = radios.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !counts.isEmpty, counts.allSatisfy({ ($0 ?? 0) > 0 }), counts.contains(1) else {
                throw ValidationError("--radios takes positive counts separated by commas, 1 among them (the baseline), such as 1,2,4.")
            }
            radioCounts = counts.compactMap { $0 }
        }
        var report = BenchmarkReport(suite: selected.name)
        try await selected.run(BenchmarkOptions(quick: quick, calls: calls, scenario: scenario, radios: radioCounts), &report)
        print(json ? report.jsonText() : report.tableText())
    }
}
