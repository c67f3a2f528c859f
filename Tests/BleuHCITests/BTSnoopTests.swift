import BleuATT
import BleuCore
import Foundation
import ProcessSupport
import Testing

@testable import BleuHCI

@Suite("btsnoop captures")
struct BTSnoopTests {
    @Test("the header and a record follow the btsnoop layout (big-endian, H4 datalink 1002)")
    func layout() {
        #expect(BTSnoop.fileHeader == [0x62, 0x74, 0x73, 0x6E, 0x6F, 0x6F, 0x70, 0x00, 0, 0, 0, 1, 0, 0, 0x03, 0xEA])
        let record = BTSnoop.record(HCICommand.reset.h4Packet, direction: .hostToController,
                                    time: Date(timeIntervalSince1970: 0))
        #expect(Array(record.prefix(16)) == [0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 0])
        #expect(Array(record[16..<24]) == [0x00, 0xDC, 0xDD, 0xB3, 0x0F, 0x2F, 0x80, 0x00])
        #expect(Array(record.suffix(4)) == [0x01, 0x03, 0x0C, 0x00])
        let acl = BTSnoop.record(ACLPacket(handle: 1, boundary: .firstFlushable, data: [1]).h4Packet,
                                 direction: .controllerToHost, time: Date(timeIntervalSince1970: 1))
        #expect(Array(acl[8..<12]) == [0, 0, 0, 1], "received data: flags 1")
    }

    @Test("a capture of a host start-up and an ATT exchange holds every packet both ways; tshark decodes it cleanly")
    func capture() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bleu-\(UUID().uuidString).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (hostEnd, controllerEnd) = InMemoryHCITransport.makePair()
        let capture = try BTSnoopTransport(wrapping: hostEnd, path: path)
        let controller = FakeController(transport: controllerEnd, answer: FakeController.startUpAnswers())
        let host = HCIHost(transport: capture, clock: ManualClock())
        try await host.start()
        try await controller.send(.le(.connectionComplete(LEConnectionComplete(
            handle: 1, role: .central, peerAddressType: .randomDevice, peerAddress: BluetoothAddress(string: "C0:11:22:33:44:55")!))))
        for await event in host.events { if case .le = event { break } }
        try await host.send(L2CAPBFrame(channelID: 4, payload: ATTPDU.readRequest(handle: 3).encoded), on: 1)
        for await _ in controller.acl { break }
        try await controller.send(ACLPacket(handle: 1, boundary: .firstFlushable,
                                            data: L2CAPBFrame(channelID: 4, payload: ATTPDU.readResponse(value: Array("bleu".utf8)).encoded).encoded))
        for await _ in host.frames { break }
        await host.stop()

        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(bytes.prefix(16)) == BTSnoop.fileHeader)
        var offset = 16, records = 0
        while offset + 24 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            offset += 24 + length
            records += 1
        }
        #expect(offset == bytes.count)
        #expect(records == 8 * 2 + 3, "8 commands and their completions, a connection event, two ACL packets")

        guard let tshark = ["/usr/bin/tshark", "/usr/local/bin/tshark"].first(where: FileManager.default.isExecutableFile) else {
            print("BTSnoopTests.capture: tshark is not installed (apt-get install tshark); skipped the tshark decode")
            return
        }
        let outcome = try await ChildProcess.run(tshark, arguments: ["-r", path, "-V"], limit: .seconds(60))
        let text = outcome.outputText
        #expect(outcome.status == 0, "\(outcome)\n\(text.suffix(500))")
        #expect(!text.contains("Malformed"), "tshark found malformed packets")
        #expect(text.contains("Read Request") && text.contains("Read Response"), "tshark decoded the ATT exchange")
    }
}
