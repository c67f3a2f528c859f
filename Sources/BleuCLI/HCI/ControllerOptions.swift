import ArgumentParser
import BleuCore
import BleuHCI
import Logging

/// `--hci ENDPOINT`: the controller a command drives through Bleu's own host stack.
struct ControllerOptions: ParsableArguments {
    @Option(name: .customLong("hci"), help: ArgumentHelp(
        "The controller: tcp:HOST:PORT (a virtual controller), a serial device (serial:/dev/ttyACM0[@BAUD] or /dev/…), or hci-socket:N (Linux HCI user channel).",
        valueName: "endpoint"))
    var endpoint: String

    @Option(help: "Name for the GAP Device Name of this host.")
    var deviceName = "bleu"

    func validate() throws {
        guard HCIEndpoint(endpoint) != nil else {
            throw ValidationError("'\(endpoint)' is not a controller endpoint; use tcp:HOST:PORT, serial:PATH[@BAUD] or hci-socket:N")
        }
    }

    /// Opens the transport and starts a radio on it — with `security`, one that pairs, keeps its
    /// bonds, and uses this host's lasting address; failures are one line naming what failed.
    func openRadio(security: SecuritySetup? = nil) async throws -> HCIRadio {
        try await Self.openRadio(endpoint, deviceName: deviceName, security: security)
    }

    /// Opens the controller at `text` and starts a radio on it; the radio counts its ATT PDUs in
    /// `attTraffic`, when given.
    static func openRadio(_ text: String, deviceName: String, attTraffic: ATTTrafficCounter? = nil,
                          security: SecuritySetup? = nil) async throws -> HCIRadio {
        guard let endpoint = HCIEndpoint(text) else { throw CommandFailure("'\(text)' is not a controller endpoint") }
        var logger = Logger(label: "bleu.hci")
        logger.logLevel = .error
        do {
            let transport = try await endpoint.openTransport()
            var configuration = HCIRadioConfiguration(deviceName: deviceName)
            if let security {
                configuration.ownAddress = .randomStatic(security.identity.address.address)
                configuration.security = security.configuration
            }
            let radio = HCIRadio(host: HCIHost(transport: transport), configuration: configuration, logger: logger,
                                 attTraffic: attTraffic, bonds: security?.bonds ?? InMemoryBondStore())
            if let security { await radio.setPairingDelegate(security.delegate) }
            try await radio.start()
            return radio
        } catch {
            throw CommandFailure("no controller at \(endpoint): \(error)")
        }
    }
}

/// A failure the tool reports as one line (`Error: …`) with a non-zero exit status.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
