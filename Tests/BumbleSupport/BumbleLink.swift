import BleuCore
import BleuHCI
import Foundation
import Logging
import ProcessSupport

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

    /// The script, its standard input open for commands; its log goes to the test's standard error.
    let process: ChildProcess
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

    private init(process: ChildProcess, portA: Int, portB: Int, peer: BluetoothAddress?, psm: UInt16?, morePorts: [Int]) {
        self.process = process
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
        let arguments = [script.path] + (peer.map { ["--peer", $0, "--peer-address", peerAddress, "--name", name] } ?? []) + extra
        let process = try ChildProcess(python, arguments: arguments, input: .stream, errors: .inherit)
        // The script prints one JSON line when its ports listen (and its peer advertises).
        let line = try await process.nextLine() ?? ""
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let a = object["port_a"] as? Int, let b = object["port_b"] as? Int else {
            process.terminate()
            throw BumbleLinkError.didNotStart(output: line)
        }
        let peer = (object["peer"] as? String).flatMap { BluetoothAddress(string: $0) }
        return BumbleLink(process: process, portA: a, portB: b, peer: peer, psm: (object["psm"] as? Int).map { UInt16($0) },
                          morePorts: object["more_ports"] as? [Int] ?? [])
    }

    /// A started radio on one of the link's controllers. `BLEU_HCI_TRACE=1` logs every frame.
    public static func radio(port: Int, configuration: HCIRadioConfiguration = HCIRadioConfiguration(),
                             bonds: any BondStore = InMemoryBondStore(), name: String = "radio") async throws -> HCIRadio {
        var logger = Logger(label: "bleu.hci.\(name)")
        logger.logLevel = ProcessInfo.processInfo.environment["BLEU_HCI_TRACE"] == nil ? .warning : .trace
        let radio = HCIRadio(host: HCIHost(transport: try await NIOHCITransport.connect(host: "127.0.0.1", port: port)),
                             configuration: configuration, logger: logger, bonds: bonds)
        try await radio.start()
        return radio
    }

    /// The script's next JSON line (`nil` for a line that is not a JSON object, or at the end).
    public func nextObject() async throws -> [String: Any]? {
        guard let line = try await process.nextLine() else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }

    /// Loses every LE connection on the link, as a supervision timeout does: each controller
    /// reports Disconnection Complete with reason 0x08 to its host and forgets the connection
    /// (the hosts can connect again). Returns once the command is queued (a thread writes it); the
    /// events follow.
    /// Throws if the script is no longer running.
    public func loseEveryConnection() throws {
        guard process.isRunning else { throw BumbleLinkError.notRunning }
        try process.send(Data(#"{"lose": true}"#.utf8 + [UInt8(ascii: "\n")]))
    }

    /// Sends the script a command (one JSON object; see scripts/bumble_link.py). Throws if the
    /// script is no longer running.
    public func send(_ command: [String: any Sendable]) throws {
        guard process.isRunning else { throw BumbleLinkError.notRunning }
        try process.send(try JSONSerialization.data(withJSONObject: command) + [UInt8(ascii: "\n")])
    }

    /// Closes the script's input (it exits) and terminates it; does not block.
    public func stop() {
        process.closeInput()
        process.terminate()
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
