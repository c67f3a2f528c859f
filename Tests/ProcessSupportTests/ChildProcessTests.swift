import Foundation
import ProcessSupport
import Testing

@Suite("ChildProcess: running a child without blocking the cooperative pool", .timeLimit(.minutes(1)))
struct ChildProcessTests {
    /// More than a pipe's buffer (64 KiB on Linux, 16–64 KiB on macOS) many times over.
    static let large = Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) })

    @Test("input larger than a pipe's buffer goes through cat and comes back whole")
    func largeInput() async throws {
        let outcome = try await ChildProcess.run("/bin/cat", input: Self.large, limit: .seconds(30))
        #expect(outcome.succeeded, "\(outcome)")
        #expect(outcome.output == Self.large)
        #expect(outcome.errors.isEmpty)
    }

    @Test("input, output and error output, each larger than a pipe's buffer, at once (tee to both)")
    func everyPipeAtOnce() async throws {
        let outcome = try await ChildProcess.run("/bin/sh", arguments: ["-c", "tee /dev/stderr"], input: Self.large,
                                                 limit: .seconds(30))
        #expect(outcome.succeeded, "\(outcome.command): status \(outcome.status)")
        #expect(outcome.output == Self.large)
        #expect(outcome.errors == Self.large)
    }

    @Test("a non-zero exit status is reported with the error output")
    func failure() async throws {
        let outcome = try await ChildProcess.run("/bin/sh", arguments: ["-c", "echo out; echo oops >&2; exit 3"],
                                                 limit: .seconds(30))
        #expect(outcome.status == 3 && !outcome.signalled && !outcome.succeeded)
        #expect(outcome.outputText == "out\n")
        #expect(outcome.errorText == "oops\n")
        #expect(outcome.description == "/bin/sh -c 'echo out; echo oops >&2; exit 3' exited with status 3; standard error:\noops\n")
    }

    @Test("a child still running at its time limit is terminated and reported so")
    func timeLimit() async throws {
        let start = ContinuousClock.now
        let error = await #expect(throws: ChildProcessError.self) {
            try await ChildProcess.run("/bin/sleep", arguments: ["30"], limit: .milliseconds(200))
        }
        #expect(ContinuousClock.now - start < .seconds(10), "terminated soon after its limit, not after 30 s")
        guard case .timedOut(let limit, let outcome) = error else {
            Issue.record("expected timedOut, got \(String(describing: error))")
            return
        }
        #expect(limit == .milliseconds(200))
        #expect(outcome.signalled && outcome.status == SIGTERM, "\(outcome)")
    }

    @Test("a missing executable cannot start")
    func missingExecutable() {
        let error = #expect(throws: ChildProcessError.self) {
            try ChildProcess("/nonexistent/bleu-no-such-tool")
        }
        guard case .couldNotStart(let command, _) = error else {
            Issue.record("expected couldNotStart, got \(String(describing: error))")
            return
        }
        #expect(command == "/nonexistent/bleu-no-such-tool")
    }

    @Test("a child that exits without reading its input is reported, and does not kill the test process (SIGPIPE)")
    func inputNotRead() async throws {
        let error = await #expect(throws: ChildProcessError.self) {
            try await ChildProcess.run("/bin/sh", arguments: ["-c", "exit 0"], input: Self.large, limit: .seconds(30))
        }
        guard case .inputFailed(_, let outcome) = error else {
            Issue.record("expected inputFailed, got \(String(describing: error))")
            return
        }
        #expect(outcome.succeeded)
    }

    @Test("streaming: lines as they come, input sent between them, the rest at the end")
    func streaming() async throws {
        let script = #"echo one; echo two; read answer; echo "got $answer"; printf last"#
        let child = try ChildProcess("/bin/sh", arguments: ["-c", script], input: .stream)
        #expect(try await child.nextLine() == "one")
        #expect(try await child.nextLine() == "two")
        #expect(child.isRunning, "it waits for its input")
        try child.send(Data("bleu\n".utf8))
        #expect(try await child.nextLine() == "got bleu")
        #expect(try await child.nextLine() == "last", "the last line needs no newline")
        #expect(try await child.nextLine() == nil)
        let outcome = try await child.finish(limit: .seconds(30))
        #expect(outcome.succeeded, "\(outcome)")
        #expect(outcome.output.isEmpty, "every line was taken")
        #expect(!child.isRunning)
        #expect(throws: ChildProcessError.self) { try child.send(Data("late\n".utf8)) }
    }

    @Test("the output not taken as lines is the outcome's; finish closes the input")
    func restOfOutput() async throws {
        let child = try ChildProcess("/bin/sh", arguments: ["-c", "echo ready; cat; echo done"], input: .stream)
        #expect(try await child.nextLine() == "ready")
        try child.send(Data("a\nb\n".utf8))
        let outcome = try await child.finish(limit: .seconds(30))
        #expect(outcome.outputText == "a\nb\ndone\n")
    }

    /// Counts the children being awaited.
    actor Counter {
        var value = 0
        func increment() { value += 1 }
    }

    @Test("while children are awaited on more tasks than the pool has threads, other tasks still run")
    func poolStaysFree() async throws {
        // If awaiting a child blocked a thread, these awaits alone would hold every thread of the
        // pool (one per core) and the workers below could not run: the children would end only
        // at their time limit, and the test would fail. No timing decides the result: the
        // children run until the workers are done and the test terminates them.
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        let children = try (0..<count).map { _ in try ChildProcess("/bin/sleep", arguments: ["30"]) }
        let awaiting = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for child in children {
                group.addTask {
                    await awaiting.increment()
                    let outcome = try await child.finish(limit: .seconds(20))
                    #expect(outcome.signalled && outcome.status == SIGTERM, "\(outcome)")
                }
            }
            let finishedWhileChildrenRan = try await withThrowingTaskGroup(of: Bool.self) { workers in
                for _ in 0..<4 {
                    workers.addTask {
                        while await awaiting.value < count { try await Task.sleep(for: .milliseconds(5)) }
                        try await Task.sleep(for: .milliseconds(20))
                        return children.allSatisfy(\.isRunning)
                    }
                }
                return try await workers.reduce(into: []) { $0.append($1) }
            }
            #expect(finishedWhileChildrenRan == [true, true, true, true])
            for child in children { child.terminate() }
            try await group.waitForAll()
        }
    }
}
