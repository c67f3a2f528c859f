import BleuCore
import Foundation
import Testing

@testable import BleuHCI

/// A running `scripts/bumble_link.py`: two Bumble virtual controllers on one link, each behind a
/// loopback TCP port, optionally with a Bumble host on controller B. A fresh process per test
/// group (Bumble's controller keeps connections across HCI Reset). Stopped by closing its
/// standard input; ``stop()`` also terminates it.
final class BumbleLink: Sendable {
    static let python = ProcessInfo.processInfo.environment["BLEU_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
    static let skipReason: Comment = "BLEU_PYTHON is not set: run scripts/test.sh, which installs bumble and sets it"

    let process: Process
    let input: Pipe
    let output: FileHandle
    /// Bytes read past the last line handed out.
    private let pending: Locked<Data>
    let portA: Int
    let portB: Int
    let peer: BluetoothAddress?
    /// The PSM of the advertising peer's echo channel.
    let psm: UInt16?
    /// Ports of the controllers beyond A and B (`--more-controllers`).
    let morePorts: [Int]

    private init(process: Process, input: Pipe, output: FileHandle, pending: Data, portA: Int, portB: Int, peer: BluetoothAddress?,
                 psm: UInt16?, morePorts: [Int]) {
        self.process = process
        self.input = input
        self.output = output
        self.pending = Locked(pending)
        self.portA = portA
        self.portB = portB
        self.peer = peer
        self.psm = psm
        self.morePorts = morePorts
    }

    static var script: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/bumble_link.py")
    }

    /// Starts the link; `peer` is the Bumble host's role on controller B (`"advertise"`), or `nil`.
    static func start(peer: String? = nil, peerAddress: String = "D0:00:00:00:00:02", name: String = "bleu-peer",
                      extra: [String] = []) async throws -> BumbleLink {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(python))
        process.arguments = [script.path] + (peer.map { ["--peer", $0, "--peer-address", peerAddress, "--name", name] } ?? []) + extra
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // The script prints one JSON line when its ports listen (and its peer advertises).
        // Read on a thread of its own: a blocked task would starve Swift's cooperative pool (2 threads here).
        let reader = output.fileHandleForReading
        let (line, buffer): (Data, Data) = await withCheckedContinuation { continuation in
            Thread {
                var buffer = Data()
                let line = readLine(reader, &buffer)
                continuation.resume(returning: (line, buffer))
            }.start()
        }
        guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
              let a = object["port_a"] as? Int, let b = object["port_b"] as? Int else {
            process.terminate()
            throw BumbleLinkError.didNotStart(output: String(decoding: line, as: UTF8.self))
        }
        let peer = (object["peer"] as? String).flatMap { BluetoothAddress(string: $0) }
        return BumbleLink(process: process, input: input, output: output.fileHandleForReading, pending: buffer,
                          portA: a, portB: b, peer: peer, psm: (object["psm"] as? Int).map { UInt16($0) },
                          morePorts: object["more_ports"] as? [Int] ?? [])
    }

    /// Reads one line (blocking), keeping what follows it in `buffer`.
    private static func readLine(_ handle: FileHandle, _ buffer: inout Data) -> Data {
        while !buffer.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer += chunk
        }
        guard let end = buffer.firstIndex(of: UInt8(ascii: "\n")) else {
            defer { buffer = Data() }
            return buffer
        }
        let line = buffer[buffer.startIndex..<end]
        buffer = Data(buffer[(end + 1)...])
        return Data(line)
    }

    /// The script's next JSON line, read on a thread of its own so no task blocks.
    func nextObject() async -> [String: Any]? {
        let data: Data = await withCheckedContinuation { continuation in
            Thread { [self] in
                var buffer = pending.withLock { $0 }
                let line = Self.readLine(output, &buffer)
                pending.withLock { $0 = buffer }
                continuation.resume(returning: line)
            }.start()
        }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    /// Closes the script's input (it exits) and terminates it; does not block.
    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
    }
}

/// Why Bumble's linked controllers are not there.
enum BumbleLinkError: Error, CustomStringConvertible {
    /// `scripts/bumble_link.py` did not print its ports; this is what it printed instead.
    case didNotStart(output: String)

    var description: String {
        switch self {
        case .didNotStart(let output): "bumble_link.py did not start: \(output)"
        }
    }
}
