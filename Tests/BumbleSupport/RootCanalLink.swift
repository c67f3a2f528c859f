import BleuCore
import BleuHCI
import Foundation
import ProcessSupport

/// A running `scripts/rootcanal_link.py`: Google's RootCanal virtual controller behind one
/// loopback TCP port; every host that connects gets a controller of its own on the same LE
/// air. Unlike Bumble's controllers, RootCanal runs the Link Layer's encryption start and
/// checks the peripheral's key. Stopped by closing its standard input.
public final class RootCanalLink: Sendable {
    let process: ChildProcess
    /// The HCI port (H4 over TCP).
    public let hciPort: Int

    private init(process: ChildProcess, hciPort: Int) {
        self.process = process
        self.hciPort = hciPort
    }

    static var script: URL {
        BumbleLink.script.deletingLastPathComponent().appendingPathComponent("rootcanal_link.py")
    }

    /// Starts RootCanal. Throws ``BumbleLink/PythonNotSet`` without ``BumbleLink/python``.
    public static func start() async throws -> RootCanalLink {
        guard let python = BumbleLink.python else { throw BumbleLink.PythonNotSet() }
        let process = try ChildProcess(python, arguments: [script.path], input: .stream, errors: .inherit)
        let line = try await process.nextLine() ?? ""
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let port = object["hci_port"] as? Int else {
            process.terminate()
            throw BumbleLinkError.didNotStart(output: line)
        }
        return RootCanalLink(process: process, hciPort: port)
    }

    /// A started radio on a controller of its own, keeping its bonds in `bonds`.
    public func radio(configuration: HCIRadioConfiguration = HCIRadioConfiguration(), bonds: any BondStore = InMemoryBondStore(),
                      name: String = "radio") async throws -> HCIRadio {
        try await BumbleLink.radio(port: hciPort, configuration: configuration, bonds: bonds, name: name)
    }

    /// Closes the script's input (it stops RootCanal and exits) and terminates it.
    public func stop() {
        process.closeInput()
        process.terminate()
    }
}
