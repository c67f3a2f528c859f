import BleuCore
import BleuHCI
import Foundation
import Logging

/// A running `scripts/bumble_link.py`: two Bumble virtual controllers on one link, each behind a
/// loopback TCP port, optionally with a Bumble host on controller B. A fresh process per test
/// group (Bumble's controller keeps connections across HCI Reset). Stopped by closing its
/// standard input; ``stop()`` also terminates it.
public final class BumbleLink: Sendable {
    /// The Python that has Bumble (`BLEU_PYTHON`), or `nil` when it is unset or empty.
    public static let python = ProcessInfo.processInfo.environment["BLEU_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
    /// Why tests over Bumble do not run when ``python`` is `nil`; test targets wrap it in their
    /// framework's skip comment.
    public static let skipReasonText = "BLEU_PYTHON is not set: run scripts/test.sh, which installs bumble and sets it"

    /// ``start(peer:peerAddress:name:extra:)`` was called without ``python``.
    public struct PythonNotSet: Error, CustomStringConvertible {
        public var description: String { BumbleLink.skipReasonText }
    }

    let process: Process
    let input: Pipe
    let output: FileHandle
    /// Bytes read past the last line handed out.
    private let pending: Locked<Data>
    /// Controller A's loopback TCP port (H4).
    public let portA: Int
    /// Controller B's loopback TCP port (H4); the Bumble peer, if any, is on B.
    public let portB: Int
    /// The Bumble peer's random address, with `peer:` given to ``start(peer:peerAddress:name:extra:)``.
    public let peer: BluetoothAddress?
    /// The PSM of the advertising peer's echo channel.
    public let psm: UInt16?
    /// Ports of the controllers beyond A and B (`--more-controllers`).
    public let morePorts: [Int]

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

    /// `scripts/bumble_link.py`, found from this file's place in the repository (Tests/BumbleSupport/).
    static var script: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/bumble_link.py")
    }

    /// Starts the link; `peer` is the Bumble host's role on controller B (`"advertise"`), or `nil`.
    /// Throws ``PythonNotSet`` without ``python``.
    public static func start(peer: String? = nil, peerAddress: String = "D0:00:00:00:00:02", name: String = "bleu-peer",
                             extra: [String] = []) async throws -> BumbleLink {
        guard let python else { throw PythonNotSet() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
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

    /// A started radio on one of the link's controllers. `BLEU_HCI_TRACE=1` logs every frame.
    public static func radio(port: Int, configuration: HCIRadioConfiguration = HCIRadioConfiguration(),
                             name: String = "radio") async throws -> HCIRadio {
        var logger = Logger(label: "bleu.hci.\(name)")
        logger.logLevel = ProcessInfo.processInfo.environment["BLEU_HCI_TRACE"] == nil ? .warning : .trace
        let radio = HCIRadio(host: HCIHost(transport: try await NIOHCITransport.connect(host: "127.0.0.1", port: port)),
                             configuration: configuration, logger: logger)
        try await radio.start()
        return radio
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
    public func nextObject() async -> [String: Any]? {
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

    /// Loses every LE connection on the link, as a supervision timeout does: each controller
    /// reports Disconnection Complete with reason 0x08 to its host and forgets the connection
    /// (the hosts can connect again). Returns once the command is written; the events follow.
    /// Throws if the script is no longer running (a write to its closed input would raise SIGPIPE).
    public func loseEveryConnection() throws {
        guard process.isRunning else { throw BumbleLinkError.notRunning }
        try input.fileHandleForWriting.write(contentsOf: Data(#"{"lose": true}"#.utf8 + [UInt8(ascii: "\n")]))
    }

    /// Closes the script's input (it exits) and terminates it; does not block.
    public func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
    }
}

/// Why Bumble's linked controllers are not there.
enum BumbleLinkError: Error, CustomStringConvertible {
    /// `scripts/bumble_link.py` did not print its ports; this is what it printed instead.
    case didNotStart(output: String)
    /// `scripts/bumble_link.py` is no longer running, so it cannot take a command.
    case notRunning

    var description: String {
        switch self {
        case .didNotStart(let output): "bumble_link.py did not start: \(output)"
        case .notRunning: "bumble_link.py is not running"
        }
    }
}
