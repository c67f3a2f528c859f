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
        let link = try await BumbleLink.start(peer: "central", peerAddress: "D0:00:00:00:00:03", extra: [
            "--target", Self.ourAddress.description, "--write-uuid", Self.control.uuidString128, "--write-value", "c0ffee"])
        defer { link.stop() }
        let (database, service) = try interopDatabase(name: "bleu-server")

        let host = HCIHost(transport: try await NIOHCITransport.connect(host: "127.0.0.1", port: link.portA))
        try await host.start()
        _ = try await host.execute(.leSetRandomAddress(Self.ourAddress))
        _ = try await host.execute(.leSetAdvertisingParameters(LEAdvertisingParameters(ownAddressType: .randomDevice)))
        _ = try await host.execute(.leSetAdvertisingData([0x02, 0x01, 0x06]))
        _ = try await host.execute(.leSetAdvertisingEnable(true))
        let handle = try #require(await host.nextConnection())

        let server = serveGATT(host: host, handle: handle, database: database)
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
        #expect(service.characteristics.count == 3)
    }
}

/// Our host on both sides of Bumble's virtual link: our raw ATT client against our GATT server.
@Suite("Interop: our stack on both sides of the link", .enabled(if: BumbleLink.python != nil, BumbleLink.skipReason),
       .timeLimit(.minutes(1)))
struct BothSidesTests {
    @Test("connect, MTU 517, discover, read, write with response, subscribe and receive a notification")
    func bothSides() async throws {
        let link = try await BumbleLink.start()
        defer { link.stop() }
        let serverAddress = BluetoothAddress(string: "C0:00:00:00:00:0C")!
        let (database, service) = try interopDatabase(name: "bleu-both")
        let peripheral = HCIHost(transport: try await NIOHCITransport.connect(host: "127.0.0.1", port: link.portB))
        try await peripheral.start()
        _ = try await peripheral.execute(.leSetRandomAddress(serverAddress))
        _ = try await peripheral.execute(.leSetAdvertisingParameters(LEAdvertisingParameters(ownAddressType: .randomDevice)))
        _ = try await peripheral.execute(.leSetAdvertisingEnable(true))

        let central = HCIHost(transport: try await NIOHCITransport.connect(host: "127.0.0.1", port: link.portA))
        try await central.start()
        _ = try await central.execute(.leSetRandomAddress(BluetoothAddress(string: "C0:00:00:00:00:0D")!))
        _ = try await central.send(.leCreateConnection(LECreateConnectionParameters(
            peerAddressType: .randomDevice, peerAddress: serverAddress, ownAddressType: .randomDevice)))
        let serverHandle = try #require(await peripheral.nextConnection())
        let server = serveGATT(host: peripheral, handle: serverHandle, database: database)
        let handle = try #require(await central.nextConnection())
        var att = ATTLink(host: central, handle: handle)

        #expect(try await att.request(.exchangeMTURequest(clientRxMTU: 517)) == .exchangeMTUResponse(serverRxMTU: 517))
        guard case .readByGroupTypeResponse(let groups) = try await att.request(.readByGroupTypeRequest(
            startingHandle: 1, endingHandle: 0xFFFF, type: BluetoothUUID.Declaration.primaryService)) else {
            Issue.record("no services")
            return
        }
        #expect(groups.map(\.value) == [[0x00, 0x18], [0x01, 0x18], [0x0F, 0x18]])
        let level = service.characteristics[0], control = service.characteristics[2]
        #expect(try await att.request(.readRequest(handle: level.valueHandle)) == .readResponse(value: [0x57]))
        #expect(try await att.request(.writeRequest(handle: control.valueHandle, value: Array(repeating: 0xAB, count: 300)))
                == .writeResponse, "a 300-byte write crosses many 27-byte ACL buffers both ways")
        #expect(try await att.request(.writeRequest(handle: level.valueHandle + 1, value: [0x01, 0x00])) == .writeResponse)
        #expect(try await att.request(.readRequest(handle: 3)) == .readResponse(value: Array("bleu-both".utf8)))
        #expect(att.notifications == [.handleValueNotification(handle: level.valueHandle, value: [0x01, 0x02])])

        await central.stop()
        await peripheral.stop()
        let served = await server.value
        #expect(served.writes == [Array(repeating: 0xAB, count: 300)])
        #expect(served.subscriptions == [1])
    }
}
