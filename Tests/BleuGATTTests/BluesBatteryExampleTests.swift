import BleuCore
import BleuEmulator
import BleuGATT
import Foundation
import Testing

// The README's "Porting from Blues: a typed Battery Level" quotes the code between the
// "README:" markers below verbatim; change both together. This file imports BleuGATT as a
// user would (no `@testable`), so the example compiles against the public API only.

// README: declarations — begin
/// A battery's charge in whole percent, 0–100.
struct BatteryLevel: Sendable, Hashable, Comparable, CustomStringConvertible {
    let percentage: UInt8

    /// `nil` above 100 %: a `BatteryLevel` always holds a level the specification allows.
    init?(percentage: UInt8) {
        guard percentage <= 100 else { return nil }
        self.percentage = percentage
    }

    static func < (lhs: BatteryLevel, rhs: BatteryLevel) -> Bool { lhs.percentage < rhs.percentage }
    var description: String { "\(percentage)%" }
}

/// The bytes of a Battery Level: one `uint8`. Decoding refuses 101–255.
struct BatteryLevelCodec: GATTCodec {
    func decode(from reader: inout GATTReader) throws(GATTCodecError) -> BatteryLevel {
        let byte = try reader.readInteger(UInt8.self)          // no byte: .invalidLength (0x0D)
        guard let level = BatteryLevel(percentage: byte) else {
            throw .valueNotAllowed(expected: "0–100", found: "\(byte)")   // 0x13
        }
        return level
    }

    func encode(_ value: BatteryLevel, to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeInteger(value.percentage)                   // the peripheral serving it encodes
    }
}

/// The Battery Service with a read-only Battery Level of our own type (named apart from the
/// catalogue's `BatteryService`, whose level is a `UInt8`).
enum MyBatteryService: GATTService {
    static let uuid = BluetoothUUID.Service.battery
    static let level = Characteristic<BatteryLevel>(
        BluetoothUUID.Characteristic.batteryLevel, codec: BatteryLevelCodec(), properties: [.read])

    static var characteristics: [CharacteristicDeclaration] {
        level
    }
}
// README: declarations — end

@Suite("Porting from Blues: a typed Battery Level (README)")
struct BluesBatteryExampleTests {
    @Test("the README's example runs as written: 87% read typed, the write refused as read-only")
    func readmeExample() async throws {
        var printed: [String] = []
        func print(_ value: Any) { printed.append("\(value)") }

        // README: usage — begin
        // A device to read from: a peripheral on the emulator (any backend's managers will do).
        let bus = EmulatorBus(configuration: .instant)
        let peripheral = EmulatedPeripheralManager(bus: bus)
        let server = GATTServer(peripheral: peripheral)
        let device = try await server.host(MyBatteryService.self)
        try device.setValue(BatteryLevel(percentage: 87)!, for: MyBatteryService.level)
        try await peripheral.startAdvertising(AdvertisingData(localName: "Battery"))

        // A central reads the level as a BatteryLevel; the errors are typed, so switch on them.
        let central = EmulatedCentralManager(bus: bus)
        let id = try await central.scan().first { $0.localName == "Battery" }!.peripheral
        try await central.connect(id)
        let battery = try await GATTClient(central: central, peripheral: id).discover(MyBatteryService.self)
        do {
            let level = try await battery.read(MyBatteryService.level)
            print(level)                                                  // 87%
            try await battery.write(level, to: MyBatteryService.level)    // read-only: refused, nothing sent
        } catch GATTError.decodingFailed(let error) where error.kind == .valueNotAllowed {
            print("the device sent \(error.found)")                       // for a byte above 100
        } catch GATTError.notPermitted(let characteristic, .write, let properties) {
            print("\(characteristic) is \(properties)")                   // Battery Level is [read]
        }
        // README: usage — end

        #expect(printed == ["87%", "Battery Level is [read]"])
    }

    @Test("a byte above 100 from the peripheral fails the typed read with decodingFailed(.valueNotAllowed)",
          arguments: [UInt8(101), 255])
    func aboveHundredRefused(raw: UInt8) async throws {
        let served = try await Self.serving(raw: raw)
        let (bus, battery) = (served.bus, served.battery)
        do {
            let level = try await battery.read(MyBatteryService.level)
            Issue.record("expected the read to fail, got \(level)")
        } catch GATTError.decodingFailed(let error) where error.kind == .valueNotAllowed {
            #expect(error.expected == "0–100")
            #expect(error.found == "\(raw)")
            #expect(error.path == ["Battery Level"])
            #expect(error.attError == .valueNotAllowed)
        }
        // The byte did arrive: the peripheral answered the read, and the central refused it.
        #expect(bus.trace.contains { $0.kind == .att && $0.direction == .peripheralToCentral && $0.opcode == 0x0B })
    }

    @Test("the boundaries 0 and 100 read typed from the peripheral", arguments: [UInt8(0), 100])
    func boundariesDecode(raw: UInt8) async throws {
        let served = try await Self.serving(raw: raw)
        let battery = served.battery
        let level = try await battery.read(MyBatteryService.level)
        #expect(level.percentage == raw)
        #expect(level == BatteryLevel(percentage: raw))
    }

    @Test("the codec: 0 and 100 round-trip; 101 and 255 are 0x13; no byte or two bytes are 0x0D")
    func codec() throws {
        let zero = try #require(BatteryLevel(percentage: 0))
        let full = try #require(BatteryLevel(percentage: 100))
        #expect(try MyBatteryService.level.decode(Data([0])) == zero)
        #expect(try MyBatteryService.level.decode(Data([100])) == full)
        #expect(try MyBatteryService.level.encode(full) == Data([100]))
        #expect(zero < full && full.description == "100%")
        #expect(BatteryLevel(percentage: 101) == nil, "an out-of-range level cannot be made, so none can be encoded")
        for (bytes, kind, att) in [(Data([101]), GATTCodecError.Kind.valueNotAllowed, ATTError.valueNotAllowed),
                                   (Data([255]), .valueNotAllowed, .valueNotAllowed),
                                   (Data(), .invalidLength, .invalidAttributeValueLength),
                                   (Data([50, 0]), .invalidLength, .invalidAttributeValueLength)] {
            do throws(GATTCodecError) {
                let level = try MyBatteryService.level.decode(bytes)
                Issue.record("expected \(Array(bytes)) to be refused, got \(level)")
            } catch {
                #expect(error.kind == kind, "\(Array(bytes)): \(error)")
                #expect(error.attError == att, "\(Array(bytes)): \(error)")
            }
        }
    }

    @Test("writing through the read-only declaration is refused with notPermitted(.write), and no write goes on air")
    func writeRefused() async throws {
        let served = try await Self.serving(raw: 40)
        let (bus, battery) = (served.bus, served.battery)
        let level = try #require(BatteryLevel(percentage: 50))
        let before = bus.trace.last?.sequence ?? -1
        for type in [WriteType?.none, .withResponse, .withoutResponse] {
            do {
                try await battery.write(level, to: MyBatteryService.level, type: type)
                Issue.record("expected the write (\(String(describing: type))) to be refused")
            } catch GATTError.notPermitted(let characteristic, let operation, let properties) {
                #expect(characteristic == "Battery Level")
                #expect(operation == (type == .withoutResponse ? .writeWithoutResponse : .write))
                #expect(properties == [.read])
            }
        }
        let sent = bus.trace.filter { $0.sequence > before && $0.kind == .att && $0.direction == .centralToPeripheral }
        #expect(sent.isEmpty, "nothing went on air: \(sent)")
        #expect(try await battery.read(MyBatteryService.level) == BatteryLevel(percentage: 40))
    }

    @Test("a central that writes the bytes on its radio, past the typed layer, is refused there too; nothing on air")
    func rawWriteRefusedByTheRadio() async throws {
        let served = try await Self.serving(raw: 40)
        let (bus, battery) = (served.bus, served.battery)
        let remote = try battery.remote(MyBatteryService.level)
        let before = bus.trace.last?.sequence ?? -1
        let error = await thrown { try await battery.client.central.write(Data([50]), to: remote, type: .withResponse) }
        guard case BleuError.notSupported(.characteristicProperties(let uuid, let properties, _))? = error as? BleuError else {
            Issue.record("expected notSupported(.characteristicProperties), got \(String(describing: error))")
            return
        }
        #expect(uuid == BluetoothUUID.Characteristic.batteryLevel)
        #expect(properties == [.read])
        let sent = bus.trace.filter { $0.sequence > before && $0.kind == .att && $0.direction == .centralToPeripheral }
        #expect(sent.isEmpty, "nothing went on air: \(sent)")
        #expect(try await battery.read(MyBatteryService.level) == BatteryLevel(percentage: 40))
    }

    @Test("the README's two code blocks and this file's README regions are the same lines")
    func readmeInSync() throws {
        try ReadmeRegions.expectInSync(heading: "### Porting from Blues: a typed Battery Level", regions: ["declarations", "usage"])
    }

    /// A peripheral serving `raw` as its Battery Level — any byte, through a `uint8` declaration
    /// of the same read-only characteristic — and a central that discovered `MyBatteryService`.
    struct Served {
        let fixture: GATTFixture
        let hosted: HostedService       // keeps the server answering
        let battery: RemoteGATTService
        var bus: EmulatorBus { fixture.bus }
    }

    static func serving(raw: UInt8) async throws -> Served {
        let rawLevel = Characteristic<UInt8>(BluetoothUUID.Characteristic.batteryLevel, codec: .uint8, properties: [.read])
        let (fixture, hosted) = try await GATTFixture.make(name: "Battery \(raw)") { server in
            try await server.host(ServiceDeclaration(BluetoothUUID.Service.battery) { rawLevel })
        }
        try hosted.setValue(raw, for: rawLevel)
        let battery = try await fixture.client.discover(MyBatteryService.self)
        return Served(fixture: fixture, hosted: hosted, battery: battery)
    }
}
