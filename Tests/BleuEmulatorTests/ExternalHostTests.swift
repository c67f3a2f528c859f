import BleuCore
import Foundation
import Testing

@testable import BleuEmulator

/// A device whose host is outside the emulator (a virtual HCI controller's), driven here
/// directly through ``ExternalRadio``: what its host sends travels as L2CAP PDUs, and what
/// reaches it is kept in order.
final class ExternalDevice: Sendable {
    let deliveries = Locked<[ExternalDelivery]>([])
    let radio: ExternalRadio

    init(bus: EmulatorBus, device: String? = nil) {
        let deliveries = deliveries
        radio = ExternalRadio(bus: bus, device: device) { delivery in deliveries.withLock { $0.append(delivery) } }
    }

    var received: [ExternalDelivery] { deliveries.withLock { $0 } }

    /// The link of its first connection.
    var link: Int? {
        received.lazy.compactMap { if case .connected(let link, _, _, _, _) = $0 { link } else { nil } }.first
    }

    /// Answers the emulated central's MTU exchange, as a host's ATT server does, once it has come.
    func answerMTUExchange() async {
        await settle { payloads(on: FixedL2CAPChannel.att).first?.first == 0x02 }
        guard let link else { return }
        _ = radio.send(on: link, channel: FixedL2CAPChannel.att, payload: [0x03, 0x17, 0x00], receipt: 0)
    }

    /// The payloads received on `channel`, in order.
    func payloads(on channel: UInt16) -> [[UInt8]] {
        received.compactMap { if case .received(_, channel, let payload) = $0 { payload } else { nil } }
    }
}

/// The address of the one emulated peripheral on `bus`.
func emulatedPeripheralAddress(_ bus: EmulatorBus) -> UInt64 {
    bus.withEngine { engine in engine.peripherals.values.first { $0.external == nil }?.address ?? 0 }
}

/// Waits (a bounded number of scheduler turns) until `condition` holds; returns as soon as it does.
func settle(_ condition: () -> Bool) async {
    for _ in 0..<100_000 {
        if condition() { return }
        await Task.yield()
    }
}

@Suite("External hosts on the air (the engine side of virtual HCI controllers)")
struct ExternalHostTests {
    @Test("an HCI host's PDUs reach the emulated peripheral: its ATT server answers, bytes that do not decode get Invalid PDU, a pairing request Pairing Not Supported, a signaling request Command Reject")
    func emulatedPeripheralAnswersBytes() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let peripheral = EmulatedPeripheralManager(bus: bus)
        try await peripheral.startAdvertising(AdvertisingData(localName: "answers"))
        let host = ExternalDevice(bus: bus)
        host.radio.connect(to: emulatedPeripheralAddress(bus))
        let link = try #require(host.link)
        #expect(host.radio.role(on: link) == .central)

        #expect(host.radio.send(on: link, channel: FixedL2CAPChannel.att, payload: [0x02, 0xF7, 0x00], receipt: 1))
        #expect(host.radio.send(on: link, channel: FixedL2CAPChannel.att, payload: [0x0A, 0x01], receipt: 2))  // a read request cut short
        #expect(host.radio.send(on: link, channel: FixedL2CAPChannel.smp, payload: [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07],
                                receipt: 3))
        #expect(host.radio.send(on: link, channel: FixedL2CAPChannel.leSignaling,
                                payload: [0x12, 0x09, 0x08, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0xF4, 0x01], receipt: 4))
        let mtu = UInt16(bus.configuration.peripheralMTU)
        #expect(host.payloads(on: FixedL2CAPChannel.att) == [[0x03, UInt8(mtu & 0xFF), UInt8(mtu >> 8)], [0x01, 0x0A, 0x00, 0x00, 0x04]])
        #expect(host.payloads(on: FixedL2CAPChannel.smp) == [[0x05, 0x05]])
        #expect(host.payloads(on: FixedL2CAPChannel.leSignaling) == [[0x01, 0x09, 0x02, 0x00, 0x00, 0x00]])
        let receipts = host.received.compactMap { if case .sent(_, let receipt) = $0 { receipt } else { nil } }
        #expect(receipts == [1, 2, 3, 4])
        #expect(!host.radio.send(on: link + 1000, channel: FixedL2CAPChannel.att, payload: [0x0A, 0x01, 0x00], receipt: 5),
                "a link that is not its own")
    }

    @Test("with realistic timing a PDU's receipt comes when it has left the air, at a connection event, not when it was sent")
    func receiptAtAirEnd() async throws {
        let clock = ManualClock()
        let bus = EmulatorBus(configuration: .default, clock: clock)
        let peripheral = EmulatedPeripheralManager(bus: bus)
        try await peripheral.startAdvertising(AdvertisingData(localName: "timed"))
        let host = ExternalDevice(bus: bus)
        host.radio.connect(to: emulatedPeripheralAddress(bus))
        for _ in 0..<1_000 {
            if host.link != nil { break }
            clock.advance(by: .milliseconds(5))
            await settle { host.link != nil || clock.sleeperCount > 0 }
            await Task.yield()
        }
        let link = try #require(host.link)
        let before = host.received.count
        #expect(host.radio.send(on: link, channel: FixedL2CAPChannel.att, payload: [0x02, 0xF7, 0x00], receipt: 9))
        #expect(host.received.count == before, "nothing at once: the PDU waits for a connection event")
        clock.advance(by: bus.configuration.connectionInterval * 2)
        await settle { host.payloads(on: FixedL2CAPChannel.att).count == 1 }
        let after = Array(host.received.dropFirst(before))
        #expect(after.first == .sent(link: link, receipt: 9))
        #expect(host.payloads(on: FixedL2CAPChannel.att).count == 1, "the response, on a later exchange")
    }

    @Test("LE Create Connection waits for the address to advertise and connects when it does; a cancel ends the wait with Unknown Connection Identifier")
    func createConnectionWaits() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let central = ExternalDevice(bus: bus)
        let peripheral = ExternalDevice(bus: bus)
        central.radio.connect(to: peripheral.radio.address)
        #expect(central.link == nil)
        peripheral.radio.startAdvertising([0x02, 0x01, 0x06], scanResponse: [], connectable: true)
        let link = try #require(central.link)
        #expect(peripheral.link == link)
        #expect(peripheral.radio.role(on: link) == .peripheral)

        let third = ExternalDevice(bus: bus)
        third.radio.connect(to: 0x1234_5678)
        #expect(third.radio.cancelConnect())
        #expect(third.received == [.connectionFailed(peer: 0x1234_5678, status: 0x02)])
        #expect(!third.radio.cancelConnect(), "nothing left to cancel")
    }

    @Test("an external scanner hears the advertiser's bytes and, scanning actively, its scan response; an emulated scanner decodes them")
    func advertisingBytes() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let advertiser = ExternalDevice(bus: bus)
        let data: [UInt8] = [0x02, 0x01, 0x06, 0x05, 0x09, 0x62, 0x6C, 0x65, 0x75]  // flags, "bleu"
        let response: [UInt8] = [0x03, 0x19, 0x40, 0x03]  // appearance
        advertiser.radio.startAdvertising(data, scanResponse: response, connectable: true)
        let scanner = ExternalDevice(bus: bus)
        scanner.radio.startScan(active: true, filterDuplicates: true)
        let address = advertiser.radio.address
        #expect(scanner.received.filter { if case .advertisingReport(address, _, _, _, _) = $0 { true } else { false } }.count == 2)
        #expect(scanner.received.contains { if case .advertisingReport(address, data, false, true, _) = $0 { true } else { false } })
        #expect(scanner.received.contains { if case .advertisingReport(address, response, true, true, _) = $0 { true } else { false } })

        let central = EmulatedCentralManager(bus: bus)
        var heard: Advertisement?
        for try await advertisement in try await central.scan() {
            heard = advertisement
            break
        }
        #expect(heard?.localName == "bleu")
        #expect(heard?.isConnectable == true)
    }

    @Test("encryption between two hosts: the same key encrypts both ends (then a refresh); a different key ends the link with MIC Failure; no key fails with PIN or Key Missing")
    func encryption() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let central = ExternalDevice(bus: bus)
        let peripheral = ExternalDevice(bus: bus)
        peripheral.radio.startAdvertising([0x02, 0x01, 0x06], scanResponse: [], connectable: true)
        central.radio.connect(to: peripheral.radio.address)
        let link = try #require(central.link)
        let key = [UInt8](repeating: 0x11, count: 16)

        #expect(central.radio.startEncryption(on: link, random: 7, ediv: 3, key: key))
        #expect(peripheral.received.last == .longTermKeyRequest(link: link, random: 7, ediv: 3))
        #expect(peripheral.radio.replyLongTermKey(on: link, key: key))
        #expect(peripheral.received.last == .encryptionChanged(link: link, status: 0, refreshed: false))
        #expect(central.received.last == .encryptionChanged(link: link, status: 0, refreshed: false))
        #expect(central.radio.startEncryption(on: link, random: 7, ediv: 3, key: key))
        #expect(peripheral.radio.replyLongTermKey(on: link, key: key))
        #expect(central.received.last == .encryptionChanged(link: link, status: 0, refreshed: true))

        #expect(central.radio.startEncryption(on: link, random: 8, ediv: 4, key: key))
        #expect(peripheral.radio.replyLongTermKey(on: link, key: nil))
        #expect(central.received.last == .encryptionChanged(link: link, status: 0x06, refreshed: true))

        #expect(!peripheral.radio.startEncryption(on: link, random: 1, ediv: 1, key: key), "only the central starts encryption")
        #expect(central.radio.startEncryption(on: link, random: 9, ediv: 5, key: key))
        #expect(peripheral.radio.replyLongTermKey(on: link, key: [UInt8](repeating: 0x22, count: 16)))
        #expect(central.received.last == .disconnected(link: link, reason: 0x3D))
        #expect(peripheral.received.last == .disconnected(link: link, reason: 0x3D))
    }

    @Test("an emulated central cannot pair with an HCI host (the emulator's pairing is not byte-level): Pairing Not Supported, and the link stays")
    func emulatedPairingRefused() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let peripheral = ExternalDevice(bus: bus)
        peripheral.radio.startAdvertising([0x02, 0x01, 0x06, 0x04, 0x09, 0x68, 0x63, 0x69], scanResponse: [], connectable: true)
        let central = EmulatedCentralManager(bus: bus)
        let id = try await central.discover(name: "hci")
        // The emulated central's MTU exchange goes to the host as bytes, and its answer completes the connection.
        async let connected: Void = central.connect(id)
        await peripheral.answerMTUExchange()
        try await connected
        await #expect { try await central.pair(id, minimum: .encrypted) } throws: { error in
            guard case .pairingFailed(.smp(let reason))? = error as? BleuError else { return false }
            return reason == .pairingNotSupported
        }
        #expect(await central.isConnected(id))
    }

    @Test("a host that leaves takes its device off the air: its links are lost (the peer sees a supervision timeout), it no longer advertises; its address may be taken again")
    func departure() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let central = EmulatedCentralManager(bus: bus)
        var host: ExternalDevice? = ExternalDevice(bus: bus, device: "hci:1")
        host?.radio.startAdvertising([0x02, 0x01, 0x06, 0x04, 0x09, 0x68, 0x63, 0x69], scanResponse: [], connectable: true)
        let address = try #require(host?.radio.address)
        let id = try await central.discover(name: "hci")
        async let connected: Void = central.connect(id)
        await host?.answerMTUExchange()
        try await connected
        let events = central.events()
        host = nil
        var reason: DisconnectReason?
        for await case .disconnected(id, let why) in events {
            reason = why
            break
        }
        #expect(reason == .supervisionTimeout)
        #expect(bus.withEngine { $0.peripherals.values.allSatisfy { $0.address != address } })
        let again = ExternalDevice(bus: bus, device: "hci:1")
        #expect(again.radio.address == address, "a named device keeps its address")
        let other = ExternalDevice(bus: bus)
        #expect(!other.radio.setAddress(address), "another device has it")
        other.radio.startAdvertising([0x02, 0x01, 0x06], scanResponse: [], connectable: true)
        #expect(!other.radio.setAddress(0xC0FF_EE00_0001), "not while advertising")
        other.radio.stopAdvertising()
        #expect(other.radio.setAddress(0xC0FF_EE00_0001))
        #expect(other.radio.address == 0xC0FF_EE00_0001)
    }
}
