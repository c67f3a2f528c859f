import ArgumentParser
import BleuCore
import BleuEmulator
import BleuEmulatorHub
import Foundation

/// `bleu hub [ENDPOINT…]`: an emulated medium that other processes share (`EmulatorBus(connectingTo:)`,
/// `bleu serve --hub`, `bleu demo --hub`).
struct HubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hub",
        abstract: "Serve an emulated Bluetooth LE medium to other processes.",
        discussion: """
        Each process that connects (EmulatorBus(connectingTo:) in Swift, or bleu serve --hub / bleu demo --hub) gets managers on this one medium, with the emulator's link model. Endpoints: unix:PATH (the default is a socket in the temporary directory) or tcp:HOST:PORT (loopback only unless --allow-remote). Runs until interrupted or until standard input closes. Example: bleu hub unix:/tmp/bleu.sock, then bleu serve --hub unix:/tmp/bleu.sock and bleu demo --hub unix:/tmp/bleu.sock in other terminals.
        """
    )

    @Argument(help: "Where to listen: unix:PATH or tcp:HOST:PORT (several allowed).")
    var endpoints: [String] = []

    @Option(help: "The emulator's preset: default (realistic timing), instant, slow or unreliable.")
    var preset: String = "default"

    @Option(help: "The seed of every random choice on the medium (faults, addresses); the same seed replays a run.")
    var seed: UInt64?

    @Option(help: "A secret every client must present (for a hub on TCP).")
    var token: String?

    @Flag(help: "Listen on TCP addresses other than loopback (give a --token then).")
    var allowRemote = false

    @Option(help: ArgumentHelp("Write the medium's link trace to FILE as it happens, and each device's connections as a btsnoop capture beside it (FILE.<address>.btsnoop, for Wireshark).", valueName: "file"))
    var trace: String?

    @Option(name: .customLong("hci"), help: ArgumentHelp("Also serve a virtual HCI controller on this medium as H4 over loopback TCP, for any HCI host (BleuHCI's, Bumble's tcp-client:); repeatable; port 0 picks one.", valueName: "tcp:127.0.0.1:port"))
    var controllers: [String] = []

    mutating func run() async throws {
        var configuration: EmulatorConfiguration
        switch preset {
        case "default": configuration = .default
        case "instant": configuration = .instant
        case "slow": configuration = .slow
        case "unreliable": configuration = .unreliable
        default: throw ValidationError("unknown preset '\(preset)': use default, instant, slow or unreliable")
        }
        if let seed { configuration.seed = seed }
        var parsed: [HubEndpoint] = []
        for text in endpoints {
            guard let endpoint = HubEndpoint(text) else {
                throw ValidationError("'\(text)' is not a hub endpoint; use unix:PATH or tcp:HOST:PORT")
            }
            parsed.append(endpoint)
        }
        if parsed.isEmpty { parsed = [HubEndpoint.temporary()] }
        var controllerEndpoints: [HubEndpoint] = []
        for text in controllers {
            guard let (host, port) = parseTCPEndpoint(text, allowingAnyPort: true), HubEndpoint.tcp(host: host, port: port).isLocal else {
                throw ValidationError("'\(text)' is not a controller endpoint; use tcp:127.0.0.1:PORT (port 0 picks one)")
            }
            controllerEndpoints.append(.tcp(host: host, port: port))
        }
        let bus = EmulatorBus(configuration: configuration)
        let writer = try trace.map { try HubTraceWriter(path: $0, configuration: bus.configuration) }
        if let writer { try bus.traceEvents { writer.take($0) } }
        let hub = EmulatorHubServer(bus: bus, token: token, log: { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        })
        let bound = try await hub.start(at: parsed, allowingRemoteClients: allowRemote)
        let virtualControllers = VirtualControllerServer(bus: bus, log: { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        })
        let controllersBound = try await virtualControllers.start(at: controllerEndpoints)
        // Written at once (not through stdio's buffer): a parent process waits for this line.
        let tracing = trace.map { ", tracing to \($0)" } ?? ""
        let hci = controllersBound.isEmpty ? "" : ", controllers on \(controllersBound.map(\.description).joined(separator: ", "))"
        let line = "hub listening on \(bound.map(\.description).joined(separator: ", "))\(hci) (preset \(preset), seed \(bus.seed)\(tracing))\n"
        FileHandle.standardOutput.write(Data(line.utf8))
        await ServeCommand.waitForEnd(seconds: nil)
        await virtualControllers.stop()
        await hub.stop()
        writer?.close()
        for case .unix(let path) in bound { try? FileManager.default.removeItem(atPath: path) }
        print("stopped")
    }
}
