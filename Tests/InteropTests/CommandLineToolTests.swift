import BumbleSupport
import Foundation
import ProcessSupport
import Testing

/// `bleu scan`, `bleu gatt`, and `bleu serve` with `bleu demo --hci` as separate processes on
/// Bumble's virtual controllers.
@Suite("Interop: the bleu tool on virtual controllers",
       .enabled(if: BumbleLink.python != nil, BumbleLink.skipReason),
       .enabled(if: ToolProcess.executable != nil, Comment(rawValue: ToolProcess.skipReason)), .timeLimit(.minutes(1)))
struct CommandLineToolTests {
    @Test("bleu scan lists the Bumble advertiser with its address, RSSI, name, company and appearance; bleu gatt prints its database, named and decoded")
    func scanAndGATT() async throws {
        let link = try await BumbleLink.start(peer: "advertise", name: "bumble-gatt")
        defer { link.stop() }
        let peer = try #require(link.peer).description
        let scan = try await ToolProcess.run(["scan", "--hci", "tcp:127.0.0.1:\(link.portA)", "--seconds", "1"])
        #expect(scan.status == 0, "\(scan.errorText)")
        let line = scan.outputText.split(separator: "\n").first { $0.hasPrefix(peer) }
        #expect(line?.contains("\(peer) random  -50 dBm  connectable  name \"bumble-gatt\"") == true, "\(scan.outputText)")
        // The SIG's names of the advertiser's company and appearance.
        #expect(line?.contains("manufacturer 0x0059 (Nordic Semiconductor ASA): 0102") == true, "\(scan.outputText)")
        #expect(line?.contains("appearance 0x03C1 (Human Interface Device: Keyboard)") == true, "\(scan.outputText)")

        let folder = try Self.bondFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let gatt = try await ToolProcess.run(["gatt", "--hci", "tcp:127.0.0.1:\(link.portA)", "--bonds",
                                              folder.appendingPathComponent("bonds.json").path, peer])
        #expect(gatt.status == 0, "\(gatt.errorText)")
        for expected in ["Service 1800 (Generic Access)", "Characteristic 2A01 (Appearance)  [read]", "= 0x0000 (Unknown)",
                         "Service 180F (Battery Service)", "Characteristic 2A19 (Battery Level)  [read, notify]", "Value: 57  = 87",
                         "Descriptor 2902 (Client Characteristic Configuration)", "Service 180A (Device Information)",
                         "= \"Bumble Works\"", "Characteristic 6E400003-B5A3-F393-E0A9-E50E24DCCA9E  [write-without-response]",
                         "Value: 62756d626c652d67617474  = \"bumble-gatt\""] {
            #expect(gatt.outputText.contains(expected), "missing \(expected) in:\n\(gatt.outputText)")
        }
    }

    @Test("errors are one line and a non-zero exit: no controller, device not found, bad endpoint")
    func errors() async throws {
        let noController = try await ToolProcess.run(["scan", "--hci", "tcp:127.0.0.1:1", "--seconds", "1"])
        #expect(noController.status != 0)
        #expect(noController.errorText.hasPrefix("Error: no controller at tcp:127.0.0.1:1"), "\(noController.errorText)")
        #expect(noController.errorText.split(separator: "\n").count == 1)

        let link = try await BumbleLink.start()
        defer { link.stop() }
        let folder = try Self.bondFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = try await ToolProcess.run(["gatt", "--hci", "tcp:127.0.0.1:\(link.portA)", "C0:00:00:00:00:99",
                                                 "--timeout", "1", "--bonds", folder.appendingPathComponent("bonds.json").path])
        #expect(missing.status != 0)
        #expect(missing.errorText == "Error: device C0:00:00:00:00:99 not found: nothing advertised from that address within 1.0 s\n")

        let bad = try await ToolProcess.run(["scan", "--hci", "usb:0"])
        #expect(bad.status != 0)
        #expect(bad.errorText.contains("'usb:0' is not a controller endpoint"))
    }

    @Test("the distributed actor system across two processes: bleu serve on one controller, bleu demo --hci on the other")
    func actorsAcrossProcesses() async throws {
        let link = try await BumbleLink.start()
        defer { link.stop() }
        let server = try ToolProcess.start(["serve", "--hci", "tcp:127.0.0.1:\(link.portB)"])
        let ready = try await server.nextLine() ?? ""
        #expect(ready.hasPrefix("serving on tcp:127.0.0.1:\(link.portB)"), "\(ready)")

        let demo = try await ToolProcess.run(["demo", "--hci", "tcp:127.0.0.1:\(link.portA)", "--seconds", "1"])
        #expect(demo.status == 0, "\(demo.errorText)")
        for expected in ["1 found", "21.76 °C", "caught invalidInterval(0) as DemoError", "measurements, stream cancelled",
                         "connected: false"] {
            #expect(demo.outputText.contains(expected), "missing \(expected) in:\n\(demo.outputText)")
        }
        let served = try await server.finish(limit: .seconds(40))
        #expect(served.status == 0, "\(served.errorText)")
        #expect(served.outputText.contains("stopped"))
    }

    @Test("Bumble's host reads bleu serve through a hub's virtual controllers: bleu hub --hci twice, bleu serve --hci on one, bumble gatt_dump on the other")
    func bumbleThroughHubControllers() async throws {
        let python = try #require(BumbleLink.python)
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent("bleu-hci-\(UUID().uuidString.prefix(8)).sock").path
        let hub = try ToolProcess.start(["hub", "unix:\(socket)", "--hci", "tcp:127.0.0.1:0", "--hci", "tcp:127.0.0.1:0"])
        defer {
            hub.terminate()
            try? FileManager.default.removeItem(atPath: socket)
        }
        let listening = try await hub.nextLine() ?? ""
        let ports = listening.split(separator: "controllers on ").last.map {
            $0.matches(of: /tcp:127\.0\.0\.1:(\d+)/).compactMap { Int($0.1) }
        } ?? []
        try #require(ports.count == 2, "\(listening)")

        let server = try ToolProcess.start(["serve", "--hci", "tcp:127.0.0.1:\(ports[0])"])
        defer { server.terminate() }
        let ready = try await server.nextLine() ?? ""
        let address = try #require(ready.firstMatch(of: /as ([0-9A-F:]{17})/).map { String($0.1) }, "\(ready)")

        let dump = try await ChildProcess.run(python, arguments: ["-m", "bumble.apps.gatt_dump", "tcp-client:127.0.0.1:\(ports[1])", address],
                                              limit: .seconds(40))
        #expect(dump.status == 0, "\(dump.errorText)")
        // The GAP service with the name bleu serve gives its host, then the demo's two actor services.
        for expected in ["Generic Access", "Device Name", "Client Characteristic Configuration"] {
            #expect(dump.outputText.contains(expected), "missing \(expected) in:\n\(dump.outputText)")
        }
        #expect(dump.outputText.components(separatedBy: "Primary Service").count - 1 >= 3, "\(dump.outputText)")
    }

    /// A fresh folder for one test's bond file and identity.
    static func bondFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bleu-bonds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("bleu gatt pairs when a read needs encryption and decodes descriptors; bleu bonds lists the bond without keys and forgets it")
    func gattPairsAndBonds() async throws {
        let folder = try Self.bondFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bonds = folder.appendingPathComponent("bonds.json").path
        let link = try await BumbleLink.start(peer: "advertise", name: "bumble-secure", extra: ["--pairing", "justworks"])
        defer { link.stop() }
        let peer = try #require(link.peer).description

        let gatt = try await ToolProcess.run(["gatt", "--hci", "tcp:127.0.0.1:\(link.portA)", "--bonds", bonds, peer])
        #expect(gatt.status == 0, "\(gatt.errorText)")
        for expected in ["Characteristic 6E400005-B5A3-F393-E0A9-E50E24DCCA9E  [read]", "Value: 736563726574  = \"secret\"",
                         "value 0000  = notifications off, indications off", "The link was encrypted",
                         "Descriptor 2901 (Characteristic User Descriptor)  handle 0x", "= \"the secret\"",
                         "value 19000027010000  = format 0x19, exponent 0, unit 2700"] {
            #expect(gatt.outputText.contains(expected), "missing \(expected) in:\n\(gatt.outputText)")
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: bonds)
        #expect((attributes[.posixPermissions] as? Int) == 0o600, "the bond file is its owner's only")
        let identity = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("identity.json").path)
        #expect((identity[.posixPermissions] as? Int) == 0o600)

        let listing = try await ToolProcess.run(["bonds", "--bonds", bonds])
        #expect(listing.status == 0, "\(listing.errorText)")
        #expect(listing.outputText.contains("bond with \(peer)") && listing.outputText.contains("Secure Connections"),
                "\(listing.outputText)")
        // No key reaches the terminal: none of the hex strings the file keeps appears in the listing.
        let file = try String(contentsOfFile: bonds, encoding: .utf8)
        let keys = file.components(separatedBy: "\"").filter { $0.count == 32 && $0.allSatisfy(\.isHexDigit) }
        #expect(!keys.isEmpty, "the file keeps the LTK and the peer's IRK")
        for key in keys { #expect(!listing.outputText.lowercased().contains(key.lowercased())) }
        #expect(!gatt.outputText.lowercased().contains(keys[0].lowercased()))

        let forget = try await ToolProcess.run(["bonds", "--bonds", bonds, "--forget", peer])
        #expect(forget.status == 0 && forget.outputText.contains("Forgot the bond with \(peer)"), "\(forget.errorText)")
        let empty = try await ToolProcess.run(["bonds", "--bonds", bonds])
        #expect(empty.outputText.hasPrefix("No bonds in"), "\(empty.outputText)")
        let again = try await ToolProcess.run(["bonds", "--bonds", bonds, "--forget", peer])
        #expect(again.status != 0 && again.errorText.hasPrefix("Error: no bond with \(peer)"), "\(again.errorText)")
    }

    @Test("bleu pair with --passkey: passkey entry against Bumble's display gives authenticated keys; a wrong passkey fails in one line")
    func pairWithPasskey() async throws {
        let folder = try Self.bondFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bonds = folder.appendingPathComponent("bonds.json").path
        let link = try await BumbleLink.start(peer: "advertise", name: "bumble-passkey", extra: ["--pairing", "passkey:123456"])
        defer { link.stop() }
        let peer = try #require(link.peer).description
        let paired = try await ToolProcess.run(["pair", "--hci", "tcp:127.0.0.1:\(link.portA)", "--bonds", bonds, "--passkey", "123456",
                                                "--authenticated", peer])
        #expect(paired.status == 0, "\(paired.errorText)")
        #expect(paired.outputText.contains("encrypted with authenticated LE Secure Connections keys (level 4)"), "\(paired.outputText)")
        #expect(paired.outputText.contains("Secure Connections, authenticated"), "\(paired.outputText)")

        let other = try await BumbleLink.start(peer: "advertise", name: "bumble-passkey", extra: ["--pairing", "passkey:123456"])
        defer { other.stop() }
        let wrong = try await ToolProcess.run(["pair", "--hci", "tcp:127.0.0.1:\(other.portA)", "--bonds", bonds, "--passkey", "111111",
                                               "--authenticated", try #require(other.peer).description])
        #expect(wrong.status != 0)
        #expect(wrong.errorText.hasPrefix("Error: pairing with") && wrong.errorText.split(separator: "\n").count == 1,
                "\(wrong.errorText)")
    }
}
