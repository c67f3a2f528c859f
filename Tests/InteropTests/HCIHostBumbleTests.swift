import BleuCore
import Foundation
import Testing

@testable import BleuHCI

/// Our host against Bumble 0.0.236's virtual controller, over TCP.
@Suite("Interop: HCIHost against Bumble's controller", .enabled(if: BumbleLink.python != nil, BumbleLink.skipReason),
       .timeLimit(.minutes(1)))
struct HCIHostBumbleTests {
    @Test("start-up runs against Bumble's controller; its 27-byte LE buffers are read")
    func startUp() async throws {
        let link = try BumbleLink.start()
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
        let link = try BumbleLink.start(peer: "advertise", name: "bleu-peer")
        defer { link.stop() }
        let peer = try #require(link.peer)
        let host = HCIHost(transport: try await NIOHCITransport.connect(host: "127.0.0.1", port: link.portA))
        try await host.start()
        _ = try await host.execute(.leSetScanParameters(LEScanParameters(scanType: 1)))
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
