import Foundation

/// A Python script of `scripts/` run with the project's Python (BLEU_PYTHON, or `.venv`), for
/// suites that measure against Bumble. It prints JSON lines; closing its input ends it.
final class PythonPeer {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    /// The repository's root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The Python to use, or `nil` when none has Bumble installed.
    static var python: String? {
        if let configured = ProcessInfo.processInfo.environment["BLEU_PYTHON"], !configured.isEmpty { return configured }
        let venv = root.appendingPathComponent(".venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: venv) ? venv : nil
    }

    init(script: String, arguments: [String] = []) throws {
        guard let python = Self.python else {
            throw BenchmarkFailure("no Python with Bumble: run scripts/test.sh once (it creates .venv) or set BLEU_PYTHON")
        }
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [Self.root.appendingPathComponent("scripts/\(script)").path] + arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice  // Bumble's warnings (e.g. LE Set Data Length) would cut into the table
        try process.run()
    }

    /// The next JSON line the script prints (read on a thread of its own).
    func nextObject() async throws -> [String: Any] {
        let handle = output.fileHandleForReading
        let line: Data = await withCheckedContinuation { continuation in
            Thread {
                var line = Data()
                while true {
                    let byte = handle.readData(ofLength: 1)
                    if byte.isEmpty || byte == Data([0x0A]) { break }
                    line += byte
                }
                continuation.resume(returning: line)
            }.start()
        }
        guard let object = try JSONSerialization.jsonObject(with: line) as? [String: Any] else {
            throw BenchmarkFailure("the Python peer printed \(String(decoding: line, as: UTF8.self))")
        }
        return object
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
    }
}

/// A suite that cannot run, with the reason.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
