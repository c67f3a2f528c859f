import ArgumentParser
import Bleu
import BleuCore
import BleuEmulator
import BleuEmulatorHub
import BleuHCI
import Foundation
import Logging

/// `bleu serve --hci ENDPOINT` or `bleu serve --hub ENDPOINT`: hosts the demo's actors on a
/// controller or on a hub's emulated medium, for `bleu demo --hci` / `--hub` (or any central)
/// to call.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Host the demo's thermometer and heart-rate monitor on a controller driven by Bleu's host stack, or on a hub's emulated medium.",
        discussion: "Advertises until interrupted, until standard input closes, or for --seconds. Examples: bleu serve --hci tcp:127.0.0.1:9001, then bleu demo --hci tcp:127.0.0.1:9000 on the other controller of the link; bleu serve --hub unix:/tmp/bleu.sock, then bleu demo --hub unix:/tmp/bleu.sock."
    )

    @Option(name: .customLong("hci"), help: ArgumentHelp(
        "The controller: tcp:HOST:PORT (a virtual controller), a serial device (serial:/dev/ttyACM0[@BAUD] or /dev/…), or hci-socket:N (Linux HCI user channel).",
        valueName: "endpoint"))
    var controller: String?

    @Option(help: ArgumentHelp("A `bleu hub` to join instead of a controller: unix:PATH or tcp:HOST:PORT.", valueName: "endpoint"))
    var hub: String?

    @Option(help: "The hub's token, if it has one.")
    var token: String?

    @Option(help: "Name for the GAP Device Name of this host (with --hci).")
    var deviceName = "bleu"

    @Option(help: "Stop after this many seconds (default: run until interrupted or standard input closes).")
    var seconds: Double?

    func validate() throws {
        switch (controller, hub) {
        case (nil, nil), (.some, .some): throw ValidationError("give either --hci ENDPOINT or --hub ENDPOINT")
        case (let endpoint?, nil) where HCIEndpoint(endpoint) == nil:
            throw ValidationError("'\(endpoint)' is not a controller endpoint; use tcp:HOST:PORT, serial:PATH[@BAUD] or hci-socket:N")
        case (nil, let endpoint?) where HubEndpoint(endpoint) == nil:
            throw ValidationError("'\(endpoint)' is not a hub endpoint; use unix:PATH or tcp:HOST:PORT")
        default: break
        }
    }

    mutating func run() async throws {
        let quiet = Logger(label: "bleu.serve") { _ in SwiftLogNoOpLogHandler() }
        let configuration = BLEActorSystem.Configuration(logger: quiet)
        if let hub {
            let bus = try await EmulatorBus(connectingTo: hub, token: token)
            let system = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus), configuration: configuration)
            let (thermometer, monitor) = try await DemoActors.host(on: system)
            // Written at once (not through stdio's buffer): a parent process waits for this line.
            let line = "serving on hub \(hub): thermometer \(thermometer.id), heart-rate monitor \(monitor.id)\n"
            FileHandle.standardOutput.write(Data(line.utf8))
            await Self.waitForEnd(seconds: seconds)
            await system.stopAdvertising()
            print("stopped")
            return
        }
        let endpoint = controller ?? ""
        let radio = try await ControllerOptions.openRadio(endpoint, deviceName: deviceName)
        let system = BLEActorSystem(peripheralManager: HCIPeripheralManager(radio: radio), configuration: configuration)
        let (thermometer, monitor) = try await DemoActors.host(on: system)
        // Written at once (not through stdio's buffer): a parent process waits for this line.
        let line = "serving on \(endpoint) as \(await radio.address): thermometer \(thermometer.id), heart-rate monitor \(monitor.id)\n"
        FileHandle.standardOutput.write(Data(line.utf8))
        await Self.waitForEnd(seconds: seconds)
        await system.stopAdvertising()
        await radio.stop()
        print("stopped")
    }

    /// Returns when standard input closes, on SIGINT or SIGTERM, or after `seconds`.
    static func waitForEnd(seconds: Double?) async {
        let (ends, end) = AsyncStream.makeStream(of: Void.self)
        let input = Thread {
            while FileHandle.standardInput.availableData.count > 0 {}
            end.yield()
        }
        input.start()
        var sources: [any DispatchSourceSignal] = []
        for signal in [SIGINT, SIGTERM] {
            Foundation.signal(signal, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signal)
            source.setEventHandler { end.yield() }
            source.resume()
            sources.append(source)
        }
        if let seconds {
            Task {
                try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
                end.yield()
            }
        }
        for await _ in ends { break }
        for source in sources { source.cancel() }
    }
}
