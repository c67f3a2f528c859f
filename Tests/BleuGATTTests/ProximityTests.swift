import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuGATT

/// The Immediate Alert, Link Loss and Tx Power services (Find Me and Proximity profiles):
/// codecs against bytes built by hand from the GATT Specification Supplement's "Alert Level"
/// and "Tx Power Level", then hosted on an emulated peripheral and used through the typed
/// client.
///
/// Checked against the SIG's GATT XML definitions (oesmith/gatt-xml): alert_level.xml (uint8:
/// 0 No Alert, 1 Mild Alert, 2 High Alert, 3–255 reserved) and tx_power_level.xml (sint8 dB,
/// minimum −100, maximum 20). Nothing these codecs encode was left unchecked.
@Suite("Catalogue: Immediate Alert, Link Loss, Tx Power")
struct ProximityTests {
    @Test("Alert Level is one byte, 0–2; reserved values are refused naming the characteristic")
    func alertLevel() throws {
        let codec = LinkLossService.alertLevel.codec
        try expectBytes(codec, .noAlert, bytes("00"))
        try expectBytes(codec, .mildAlert, bytes("01"))
        try expectBytes(codec, .highAlert, bytes("02"))
        expectRejected(codec, bytes("03"), .valueNotAllowed)
        expectRejected(codec, bytes("FF"), .valueNotAllowed)
        expectRejected(codec, bytes(""), .invalidLength)
        expectRejected(codec, bytes("01 00"), .invalidLength)
        let error = codecError { () throws(GATTCodecError) in try ImmediateAlertService.alertLevel.decode(bytes("03")) }
        #expect(error?.path == ["Alert Level"])
        #expect(error?.expected == "one of 0, 1, 2")
    }

    // "Tx Power Level": sint8, two's complement: −4 dBm = 0xFC, +20 = 0x14, −100 = 0x9C.
    @Test("Tx Power Level is a sint8 in dBm, −100...20")
    func txPowerLevel() throws {
        let codec = TxPowerService.txPowerLevel.codec
        try expectBytes(codec, -4, bytes("FC"))
        try expectBytes(codec, 20, bytes("14"))
        try expectBytes(codec, -100, bytes("9C"))
        try expectBytes(codec, 0, bytes("00"))
        expectRejected(codec, bytes("15"), .valueNotAllowed)   // +21 dBm
        expectRejected(codec, bytes("9B"), .valueNotAllowed)   // −101 dBm
        #expect(throws: GATTCodecError.self) { try TxPowerService.txPowerLevel.encode(21) }
    }

    @Test("the services declare the SIG's UUIDs and names, and the properties the specifications give")
    func declarations() {
        #expect(ImmediateAlertService.uuid == BluetoothUUID(0x1802) && ImmediateAlertService.uuid.name == "Immediate Alert")
        #expect(LinkLossService.uuid == BluetoothUUID(0x1803) && LinkLossService.uuid.name == "Link Loss")
        #expect(TxPowerService.uuid == BluetoothUUID(0x1804) && TxPowerService.uuid.name == "Tx Power")
        #expect(ImmediateAlertService.alertLevel.name == "Alert Level")
        #expect(TxPowerService.txPowerLevel.name == "Tx Power Level")
        #expect(ImmediateAlertService.alertLevel.properties == [.writeWithoutResponse])
        #expect(LinkLossService.alertLevel.properties == [.read, .write])
        #expect(LinkLossService.alertLevel.uuid == ImmediateAlertService.alertLevel.uuid)
        #expect(TxPowerService.txPowerLevel.properties == [.read])
    }

    @Test("the catalogue describes Alert Level and Tx Power Level")
    func catalogue() throws {
        #expect(try SIGCatalogue.describe(bytes("02"), of: BluetoothUUID(0x2A06)) == "highAlert")
        #expect(try SIGCatalogue.describe(bytes("FC"), of: BluetoothUUID(0x2A07)) == "-4 dBm")
    }

    @Test("a proximity tag on the emulator: immediate alerts written without response, the link-loss level read and written, the Tx power read")
    func endToEnd() async throws {
        let alerts = Received<AlertLevel>()
        let linkLossLevel = Locked(AlertLevel.noAlert)
        let (fixture, _) = try await GATTFixture.make { server in
            _ = try await server.host(ImmediateAlertService.self) { handlers in
                handlers.onWrite(ImmediateAlertService.alertLevel) { level, _ in alerts.append(level) }
            }
            _ = try await server.host(LinkLossService.self) { handlers in
                handlers.onRead(LinkLossService.alertLevel) { _ in linkLossLevel.withLock { $0 } }
                handlers.onWrite(LinkLossService.alertLevel) { level, _ in linkLossLevel.withLock { $0 = level } }
            }
            let txPower = try await server.host(TxPowerService.self)
            try txPower.setValue(-4, for: TxPowerService.txPowerLevel)
        }
        let immediate = try await fixture.client.discover(ImmediateAlertService.self)
        try await immediate.write(.highAlert, to: ImmediateAlertService.alertLevel)
        try await immediate.write(.noAlert, to: ImmediateAlertService.alertLevel)
        await alerts.wait(for: 2)
        #expect(alerts.values == [.highAlert, .noAlert])
        #expect(fixture.bus.trace.contains { $0.kind == .att && $0.opcode == 0x52 }, "sent as Write Commands")

        let linkLoss = try await fixture.client.discover(LinkLossService.self)
        #expect(try await linkLoss.read(LinkLossService.alertLevel) == .noAlert)
        try await linkLoss.write(.mildAlert, to: LinkLossService.alertLevel)
        #expect(try await linkLoss.read(LinkLossService.alertLevel) == .mildAlert)
        let refused = await thrown { try await linkLoss.write(Data([0x03]), to: LinkLossService.alertLevel.uuid) }
        #expect(attError(refused) == .valueNotAllowed)
        #expect(try await linkLoss.read(LinkLossService.alertLevel) == .mildAlert)

        let txPower = try await fixture.client.discover(TxPowerService.self)
        #expect(try await txPower.read(TxPowerService.txPowerLevel) == -4)
    }
}
