import BleuCore
import BleuGATT
import BumbleSupport
import Foundation
import Testing

@testable import BleuHCI

/// Our HCICentralManager against Bumble's host as a peripheral: GATT and an L2CAP channel.
@Suite("Interop: HCICentralManager against Bumble's GATT server", .enabled(if: BumbleLink.python != nil, BumbleLink.skipReason),
       .timeLimit(.minutes(1)))
struct CentralManagerBumbleTests {
    static let control = BluetoothUUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E")
    static let input = BluetoothUUID("6E400003-B5A3-F393-E0A9-E50E24DCCA9E")

    @Test("scan, connect, typed reads, writes both ways, a typed descriptor written and read back, notifications, an L2CAP echo, disconnect")
    func againstBumble() async throws {
        let link = try await BumbleLink.start(peer: "advertise", name: "bumble-gatt")
        defer { link.stop() }
        let radio = try await BumbleLink.radio(port: link.portA, name: "central")
        let central = HCICentralManager(radio: radio)
        let found = try await central.scan().first { $0.localName == "bumble-gatt" }
        let id = try #require(found?.peripheral)
        await central.stopScan()
        #expect(await radio.address(of: id)?.address == link.peer)
        try await central.connect(id, timeout: .seconds(10))
        #expect(try await central.attMTU(for: id) > 23)

        // Typed GATT on our central: the catalogue decodes Bumble's values.
        let battery = try await BleuGATT.GATTClient(central: central, peripheral: id).discover(BatteryService.self)
        #expect(try await battery.read(BatteryService.level) == 0x57)
        let info = try await BleuGATT.GATTClient(central: central, peripheral: id).discover(DeviceInformationService.self)
        #expect(try await info.read(DeviceInformationService.manufacturerName) == "Bumble Works")

        let services = try await central.discoverServices([BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")], on: id)
        let characteristics = try await central.discoverCharacteristics(nil, for: try #require(services.first))
        let control = try #require(characteristics.first { $0.uuid == Self.control })
        let input = try #require(characteristics.first { $0.uuid == Self.input })
        try await central.write(Data([0xC0, 0xFF, 0xEE]), to: control, type: .withResponse)
        try await central.write(Data(repeating: 0xAB, count: 300), to: control, type: .withResponse)
        for i in 0..<3 {
            while !(await central.canSendWriteWithoutResponse(to: id)) { await Task.yield() }
            try await central.write(Data([UInt8(i)]), to: input, type: .withoutResponse)
        }
        await #expect(throws: BleuError.notSupported(.characteristicProperties(Self.input, input.properties, .write))) {
            try await central.write(Data([1]), to: input, type: .withResponse)
        }
        var written: [String] = []
        while written.count < 5, let line = try await link.nextObject() {
            if let hex = line["written"] as? String { written.append(hex) }
        }
        #expect(written == ["c0ffee", String(repeating: "ab", count: 300), "00", "01", "02"],
                "Bumble received the long write whole (prepared writes) and the commands in order")

        // A typed descriptor write to Bumble's writable ES Trigger Setting (first inactive):
        // Bumble keeps and reports the bytes, and a typed read gives the value back.
        let client = BleuGATT.GATTClient(central: central, peripheral: id)
        let trigger = EnvironmentalSensingTriggerSetting(condition: .fixedInterval, operand: .seconds(0x01_2C))
        #expect(try await client.read(.environmentalSensingTriggerSetting, of: control)
                == EnvironmentalSensingTriggerSetting(condition: .inactive))
        try await client.write(trigger, to: .environmentalSensingTriggerSetting, of: control)
        var descriptorWrite: String?
        while descriptorWrite == nil, let line = try await link.nextObject() { descriptorWrite = line["descriptor"] as? String }
        #expect(descriptorWrite == "012c0100", "Condition 0x01, then the interval as a uint24: 300 s")
        #expect(try await client.read(.environmentalSensingTriggerSetting, of: control) == trigger)

        // Notifications: Bumble sends 1…10 on subscription.
        var levels: [UInt8] = []
        for try await level in try await battery.subscribe(to: BatteryService.level) {
            levels.append(level)
            if levels.count == 10 { break }
        }
        #expect(levels == Array(1...10))

        // An LE credit-based channel to Bumble's echo server: SDUs longer than its MPS of 100.
        let channel = try await central.openL2CAPChannel(psm: try #require(link.psm), on: id)
        let sdus = (0..<5).map { i in Data((0..<(200 + 100 * i)).map { UInt8(truncatingIfNeeded: $0 + i) }) }
        var echoes: [Data] = []
        for sdu in sdus {
            try await channel.send(sdu)
            for try await echo in channel.incoming {
                echoes.append(echo)
                break
            }
        }
        #expect(echoes == sdus)
        await channel.close()

        var events = central.events().makeAsyncIterator()
        await central.cancelConnection(id)
        while let event = await events.next() {
            if case .disconnected(id, let reason) = event {
                #expect(reason == .localHostTerminated)
                break
            }
        }
        await radio.stop()
    }
}
