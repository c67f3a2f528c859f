import ArgumentParser
import Bleu
import BleuHCI
import Foundation
import Logging

/// `bleu serve --hci ENDPOINT`: hosts the demo's actors on a controller, for `bleu demo --hci`
/// (or any central) to call.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Host the demo's thermometer and heart-rate monitor on a controller driven by Bleu's host stack.",
        discussion: "Advertises until interrupted, until standard input closes, or for --seconds. Example: bleu serve --hci tcp:127.0.0.1:9001, then bleu demo --hci tcp:127.0.0.1:9000 on the other controller of the link."
    )

    @OptionGroup var controller: ControllerOptions

    @Option(help: "Stop after this many seconds (default: run until interrupted or standard input closes).")
    var seconds: Double?

    mutating func run() async throws {
        let radio = try await controller.openRadio()
        let quiet = Logger(label: "bleu.serve") { _ in SwiftLogNoOpLogHandler() }
        let system = BLEActorSystem(peripheralManager: HCIPeripheralManager(radio: radio),
                                    configuration: BLEActorSystem.Configuration(logger: quiet))
        let (thermometer, monitor) = try await DemoActors.host(on: system)
        // Written at once (not through stdio's buffer): a parent process waits for this line.
        let line = "serving on \(controller.endpoint) as \(await radio.address): thermometer \(thermometer.id), heart-rate monitor \(monitor.id)\n"
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
