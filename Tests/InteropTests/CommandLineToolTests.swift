import BumbleSupport
import Foundation
import ProcessSupport
import Testing

/// `bleu scan`, `bleu gatt`, and `bleu serve` with `bleu demo --hci` as separate processes on
/// Bumble's virtual controllers.
@Suite("Interop: the bleu tool on virtual controllers",
       .enabled(if: BumbleLink.python != nil, BumbleLink.skipReason),
       .enabled(if: ToolProcess.executable != nil, ToolProcess.skipReason), .timeLimit(.minutes(1)))
struct CommandLineToolTests {
    @Test("bleu scan lists the Bumble advertiser with its address, RSSI and name; bleu gatt prints its database, decoded")
    func scanAndGATT() async throws {
        let link = try await BumbleLink.start(peer: "advertise", name: "bumble-gatt")
        defer { link.stop() }
        let peer = try #require(link.peer).description
        let scan = try await ToolProcess.run(["scan", "--hci", "tcp:127.0.0.1:\(link.portA)", "--seconds", "1"])
        #expect(scan.status == 0, "\(scan.errorText)")
        let line = scan.outputText.split(separator: "\n").first { $0.hasPrefix(peer) }
        #expect(line?.contains("\(peer) random  -50 dBm  connectable  name \"bumble-gatt\"") == true, "\(scan.outputText)")

        let gatt = try await ToolProcess.run(["gatt", "--hci", "tcp:127.0.0.1:\(link.portA)", peer])
        #expect(gatt.status == 0, "\(gatt.errorText)")
        for expected in ["Service 180F (Battery)", "Characteristic 2A19 (Battery Level)  [read, notify]", "Value: 57  = 87",
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
        let missing = try await ToolProcess.run(["gatt", "--hci", "tcp:127.0.0.1:\(link.portA)", "C0:00:00:00:00:99",
                                                 "--timeout", "1"])
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
}
