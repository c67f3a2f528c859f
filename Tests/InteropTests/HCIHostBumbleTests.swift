import BleuCore
import BumbleSupport
import Foundation
import Testing

@testable import BleuHCI

/// Our host against Bumble 0.0.236's virtual controller, over TCP.
@Suite("Interop: HCIHost against Bumble's controller", .enabled(if: BumbleLink.python != nil, BumbleLink.skipReason),
       .timeLimit(.minutes(1)))
struct HCIHostBumbleTests {
    @Test("start-up runs against Bumble's controller; its 27-byte LE buffers are read")
    func startUp() async throws {
        let link = try await BumbleLink.start()
        defer { link.stop() }
        let host = HCIHost(transport: try await NIOHCITransport.connect(host: "127.0.0.1", port: link.portA))
        let info = try await host.start()
        #expect(info.aclDataPacketLength == 27)
        #expect(info.totalNumACLDataPackets > 0)
        #expect(await host.malformedPacketCount == 0)
        // Bumble's controller ignores LE Set Data Length: the command fails or times out, never hangs.
        await host.stop()
    }

    @Test("active scanning reports the Bumble peer's advertisement with its name")
    func scanSeesBumbleAdvertiser() async throws {
        let link = try await BumbleLink.start(peer: "advertise", name: "bleu-peer")
        defer { link.stop() }
        let peer = try #require(link.peer)
        let host = HCIHost(transport: try await NIOHCITransport.connect(host: "127.0.0.1", port: link.portA))
        try await host.start()
        _ = try await host.execute(.leSetScanParameters(LEScanParameters(scanType: .active)))
        _ = try await host.execute(.leSetScanEnable(enable: true, filterDuplicates: false))
        var name: String?
        var rssi: Int8?
        search: for await event in host.events {
            let reports: [(BluetoothAddress, [UInt8], Int8)]
            switch event {
            case .le(.advertisingReport(let legacy)): reports = legacy.map { ($0.address, $0.data, $0.rssi) }
            case .le(.extendedAdvertisingReport(let extended)): reports = extended.map { ($0.address, $0.data, $0.rssi) }
            default: continue
            }
            for (address, data, strength) in reports where address == peer {
                let parsed = try AdvertisingData(decoding: data)
                if let localName = parsed.localName {
                    name = localName
                    rssi = strength
                    break search
                }
            }
        }
        #expect(name == "bleu-peer")
        #expect(rssi != nil)
        _ = try await host.execute(.leSetScanEnable(enable: false, filterDuplicates: false))
        await host.stop()
    }
}

/// Our host as a GATT client of a Bumble peripheral, on the raw HCI / L2CAP / ATT layers.
@Suite("Interop: our central and Bumble's GATT server", .enabled(if: BumbleLink.python != nil, BumbleLink.skipReason),
       .timeLimit(.minutes(1)))
struct CentralBumbleTests {
    @Test("connect, exchange MTU (517), discover GAP, read Device Name, disconnect")
    func connectAndRead() async throws {
        let link = try await BumbleLink.start(peer: "advertise", name: "bleu-peer")
        defer { link.stop() }
        let peer = try #require(link.peer)
        let host = HCIHost(transport: try await NIOHCITransport.connect(host: "127.0.0.1", port: link.portA))
        try await host.start()
        // Both Bumble controllers have the public address 00:00:00:00:00:00: use a random static one.
        _ = try await host.execute(.leSetRandomAddress(BluetoothAddress(string: "C0:00:00:00:00:0A")!))
        _ = try await host.send(.leCreateConnection(LECreateConnectionParameters(
            peerAddressType: .randomDevice, peerAddress: peer, ownAddressType: .randomDevice)))
        let handle = try #require(await host.nextConnection())
        var att = ATTLink(host: host, handle: handle)

        let mtu = try await att.request(.exchangeMTURequest(clientRxMTU: 517))
        guard case .exchangeMTUResponse(let serverMTU) = mtu else {
            Issue.record("expected an MTU response, got \(mtu)")
            return
        }
        #expect(serverMTU >= 23)

        let services = try await att.request(.readByGroupTypeRequest(startingHandle: 1, endingHandle: 0xFFFF,
                                                                     type: BluetoothUUID.Declaration.primaryService))
        guard case .readByGroupTypeResponse(let groups) = services else {
            Issue.record("expected services, got \(services)")
            return
        }
        #expect(groups.contains { $0.value == BluetoothUUID.Service.genericAccess.attBytes })

        let name = try await att.request(.readByTypeRequest(startingHandle: 1, endingHandle: 0xFFFF,
                                                            type: BluetoothUUID.Characteristic.deviceName))
        guard case .readByTypeResponse(let values) = name else {
            Issue.record("expected the Device Name, got \(name)")
            return
        }
        #expect(values.first.map { String(decoding: $0.value, as: UTF8.self) } == "bleu-peer")

        // A read of a handle that does not exist gets Bumble's error response, decoded.
        let missing = try await att.request(.readRequest(handle: 0xFFF0))
        #expect(missing == .errorResponse(requestOpcode: .readRequest, handle: 0xFFF0, error: .invalidHandle))

        _ = try await host.send(.disconnect(handle: handle, reason: 0x13))
        var reason: UInt8?
        for await event in host.events {
            if case let .disconnectionComplete(0, h, r) = event, h == handle {
                reason = r
                break
            }
        }
        // A real controller reports 0x16 (terminated by local host); Bumble's echoes the reason we sent.
        #expect(reason == 0x16 || reason == 0x13, "the disconnection completes")
        await host.stop()
    }
}
