import BleuCore
import BumbleSupport
import Foundation
import Testing

@testable import BleuHCI

/// A Bumble central discovers and uses our HCIPeripheralManager: GATT and an L2CAP channel.
@Suite("Interop: Bumble's central and our peripheral", .enabled(if: BumbleLink.python != nil, BumbleLink.skipReason),
       .timeLimit(.minutes(1)))
struct PeripheralBumbleTests {
    static let control = BluetoothUUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E")

    @Test("Bumble discovers our services, reads static and application values, writes, subscribes, opens an L2CAP channel")
    func bumbleUsesOurPeripheral() async throws {
        // Our peripheral's address must be known before Bumble starts: fix it.
        let ourAddress = BluetoothAddress(string: "C0:00:00:00:00:0B")!
        let link = try await BumbleLink.start(peer: "central", peerAddress: "D0:00:00:00:00:03", extra: [
            "--target", ourAddress.description, "--write-uuid", Self.control.uuidString128, "--write-value", "c0ffee",
            "--l2cap-psm", "0x80"])
        defer { link.stop() }
        let radio = try await BumbleLink.radio(port: link.portA, configuration: HCIRadioConfiguration(
            ownAddress: .randomStatic(ourAddress), deviceName: "bleu-server"), name: "peripheral")
        let peripheral = HCIPeripheralManager(radio: radio)
        let answerer = RequestAnswerer()
        await answerer.start(peripheral, value: { _ in Data([0x57]) })
        let service = try await peripheral.add(ServiceDefinition(uuid: BluetoothUUID.Service.battery, characteristics: [
            CharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: [.read, .notify], permissions: .readable),
            CharacteristicDefinition(uuid: BluetoothUUID(0x2A24), properties: .read, permissions: .readable,
                                     value: Data("Model-7".utf8)),
            CharacteristicDefinition(uuid: Self.control, properties: [.write, .writeWithoutResponse], permissions: .writeable),
        ]))
        let psm = try await peripheral.publishL2CAPChannel(requiresEncryption: false)
        #expect(psm == 0x80)
        let echo = Task {
            for await event in peripheral.events() {
                guard case .l2capChannelOpened(let channel) = event else { continue }
                for try await sdu in channel.incoming { try await channel.send(sdu) }
                return
            }
        }
        // Notify every subscriber once, as soon as it subscribes.
        let notifier = Task {
            for await event in peripheral.events() {
                if case .subscribed = event {
                    _ = await peripheral.updateValue(Data([0x01, 0x02]), for: service.characteristics[0])
                }
            }
        }
        try await peripheral.startAdvertising(AdvertisingData(flags: .leGeneralDiscoverable, localName: "bleu-server"))

        let report = try #require(try await link.nextObject())
        notifier.cancel()
        echo.cancel()
        #expect(report["error"] == nil, "Bumble failed: \(String(describing: report["error"]))")
        #expect(report["mtu"] as? Int == 517)
        #expect(report["services"] as? [String] == ["1800", "1801", "180F"])
        let characteristics = report["characteristics"] as? [String: [String: Any]] ?? [:]
        #expect(characteristics["2A00"]?["value"] as? String == Data("bleu-server".utf8).map { String(format: "%02x", $0) }.joined())
        #expect(characteristics["2A24"]?["value"] as? String == "4d6f64656c2d37")
        #expect(characteristics["2A19"]?["value"] as? String == "57", "the application's value, answered through the manager")
        #expect(characteristics["2A19"]?["descriptors"] as? [String] == ["2902"])
        #expect(characteristics["2A19"]?["subscribed"] as? Bool == true)
        #expect(report["notified"] as? [String] == ["0102"])
        let ping = Data("ping from bumble".utf8).map { String(format: "%02x", $0) }.joined()
        #expect(report["l2cap_echo"] as? String == String(repeating: ping, count: 20), "our channel echoed Bumble's SDU")
        let writes = await answerer.writes
        #expect(writes.map(\.value) == [Data([0xC0, 0xFF, 0xEE])])
        #expect(await answerer.subscriptions == [BluetoothUUID(0x2A19)])
        await answerer.stop()
        await radio.stop()
    }
}
