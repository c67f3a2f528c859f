import BleuCore
import Foundation
import Testing

@testable import BleuHCI

/// A Bumble central discovers and uses our GATT server (GATTDatabase + ATTServer on our host).
@Suite("Interop: Bumble's central and our GATT server", .enabled(if: BumbleLink.python != nil, BumbleLink.skipReason),
       .timeLimit(.minutes(1)))
struct PeripheralBumbleTests {
    static let ourAddress = BluetoothAddress(string: "C0:00:00:00:00:0B")!
    static let control = BluetoothUUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E")

    @Test("Bumble discovers our services, reads static and application values, writes with response, subscribes")
    func bumbleUsesOurServer() async throws {
        let link = try BumbleLink.start(peer: "central", peerAddress: "D0:00:00:00:00:03", extra: [
            "--target", Self.ourAddress.description, "--write-uuid", Self.control.uuidString128, "--write-value", "c0ffee"])
        defer { link.stop() }
        var database = GATTDatabase(deviceName: "bleu-server")
        let service = try database.add(ServiceDefinition(uuid: BluetoothUUID.Service.battery, characteristics: [
            CharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: [.read, .notify], permissions: .readable),
            CharacteristicDefinition(uuid: BluetoothUUID(0x2A24), properties: .read, permissions: .readable, value: Data("Model-7".utf8)),
            CharacteristicDefinition(uuid: Self.control, properties: [.write, .writeWithoutResponse], permissions: .writeable),
        ]))

        let host = HCIHost(transport: try await NIOHCITransport.connect(host: "127.0.0.1", port: link.portA))
        try await host.start()
        _ = try await host.execute(.leSetRandomAddress(Self.ourAddress))
        _ = try await host.execute(.leSetAdvertisingParameters(LEAdvertisingParameters(ownAddressType: .randomDevice)))
        _ = try await host.execute(.leSetAdvertisingData([0x02, 0x01, 0x06]))
        _ = try await host.execute(.leSetAdvertisingEnable(true))
        let handle = try #require(await host.nextConnection())

        // Serve until the test has Bumble's report.
        let server = Task { () -> (writes: [[UInt8]], subscriptions: [UInt16]) in
            var connection = ATTServerConnection()
            var writes: [[UInt8]] = []
            var subscriptions: [UInt16] = []
            for await received in host.frames where received.handle == handle && received.frame.channelID == L2CAPBFrame.attCID {
                var reply: ATTPDU?
                switch ATTServer.handle(received.frame.payload, database: database, connection: &connection) {
                case .respond(let pdu): reply = pdu
                case .read(let op):  // the application's value: one byte, 0x57
                    reply = op.response(value: Array([UInt8(0x57)].dropFirst(op.offset)), mtu: connection.mtu)
                case .write(let op):
                    writes += op.writes.map(\.value)
                    reply = op.successResponse
                case let .subscriptionChanged(_, configuration, response):
                    subscriptions.append(configuration)
                    reply = response
                case .ignore: break
                }
                if let reply {
                    try? await host.send(L2CAPBFrame(channelID: L2CAPBFrame.attCID, payload: reply.encoded), on: handle)
                }
            }
            return (writes, subscriptions)
        }
        let report = try #require(await link.nextObject())
        await host.stop()
        let served = await server.value

        #expect(report["error"] == nil, "Bumble failed: \(String(describing: report["error"]))")
        #expect(report["mtu"] as? Int == 517)
        let services = report["services"] as? [String] ?? []
        #expect(services == ["1800", "1801", "180F"])
        let characteristics = report["characteristics"] as? [String: [String: Any]] ?? [:]
        #expect(characteristics["2A00"]?["value"] as? String == Data("bleu-server".utf8).map { String(format: "%02x", $0) }.joined())
        #expect(characteristics["2A24"]?["value"] as? String == "4d6f64656c2d37")
        #expect(characteristics["2A19"]?["value"] as? String == "57", "the application's value, read through ATTServer")
        #expect(characteristics["2A19"]?["descriptors"] as? [String] == ["2902"])
        #expect(characteristics["2A19"]?["subscribed"] as? Bool == true)
        #expect(served.writes == [[0xC0, 0xFF, 0xEE]])
        #expect(served.subscriptions.first == 1, "Bumble enabled notifications through our CCCD")
        _ = service
    }
}
