import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuGATT

/// A service of the tests' own, with one characteristic per kind of validation.
enum TestControlService: GATTService {
    static let uuid: BluetoothUUID = "4B1D0000-0C1E-4E7A-9A51-6B7C8D9EA0B1"
    /// 0–100; 101 is Value Not Allowed (0x13).
    static let percent = Characteristic<UInt8>("4B1D0001-0C1E-4E7A-9A51-6B7C8D9EA0B1", name: "Percent", codec: .percentage,
                                               properties: [.read, .write, .writeWithoutResponse])
    /// Exactly two bytes; anything else is Invalid Attribute Value Length (0x0D). Values over
    /// 1000 the handler refuses with the application error 0x81.
    static let setpoint = Characteristic<UInt16>("4B1D0002-0C1E-4E7A-9A51-6B7C8D9EA0B1", name: "Setpoint", codec: .uint16,
                                                 properties: [.read, .write])
    /// Long text (prepared writes, blob reads).
    static let label = Characteristic<String>("4B1D0003-0C1E-4E7A-9A51-6B7C8D9EA0B1", name: "Label", codec: .utf8String,
                                              properties: [.read, .write])
    /// Commands without response only.
    static let command = Characteristic<UInt16>("4B1D0004-0C1E-4E7A-9A51-6B7C8D9EA0B1", name: "Command", codec: .uint16,
                                                properties: [.writeWithoutResponse])
    static let setpointTooHigh = ATTError(0x81)

    static var characteristics: [CharacteristicDeclaration] {
        percent
        setpoint
        label
        command
    }
}

/// Values encoded and validated for the handlers; malformed writes answered
/// with the right ATT error and never passed on.
@Suite("Typed GATT server: validation and answers")
struct TypedServerTests {
    struct Handlers {
        let percents = Received<UInt8>()
        let setpoints = Received<UInt16>()
        let labels = Received<String>()
        let commands = Received<UInt16>()
    }

    static func make(configuration: EmulatorConfiguration = .instant) async throws -> (GATTFixture, HostedService, Handlers) {
        let handlers = Handlers()
        let (fixture, hosted) = try await GATTFixture.make(configuration: configuration) { server in
            try await server.host(TestControlService.self) { registry in
                registry.onWrite(TestControlService.percent) { value, _ in handlers.percents.append(value) }
                registry.onWrite(TestControlService.setpoint) { value, _ in
                    guard value <= 1000 else { throw TestControlService.setpointTooHigh }
                    handlers.setpoints.append(value)
                }
                registry.onWrite(TestControlService.label) { value, _ in handlers.labels.append(value) }
                registry.onRead(TestControlService.label) { _ in String(repeating: "Ω-label ", count: 40) }
                registry.onWrite(TestControlService.command) { value, _ in handlers.commands.append(value) }
            }
        }
        return (fixture, hosted, handlers)
    }

    @Test("malformed and out-of-range writes get 0x13, 0x0D or the handler's application error, and reach no handler")
    func malformedWrites() async throws {
        let (fixture, _, handlers) = try await Self.make()
        let service = try await fixture.client.discover(TestControlService.self)
        let percent = TestControlService.percent.uuid, setpoint = TestControlService.setpoint.uuid

        #expect(attError(await thrown { try await service.write(Data([101]), to: percent, type: .withResponse) }) == .valueNotAllowed)
        #expect(attError(await thrown { try await service.write(Data([50, 0]), to: percent, type: .withResponse) })
            == .invalidAttributeValueLength)
        #expect(attError(await thrown { try await service.write(Data([1, 2, 3]), to: setpoint) }) == .invalidAttributeValueLength)
        #expect(attError(await thrown { try await service.write(Data([1]), to: setpoint) }) == .invalidAttributeValueLength)
        #expect(attError(await thrown { try await service.write(1001, to: TestControlService.setpoint) })
            == TestControlService.setpointTooHigh, "the handler's application error")
        #expect(handlers.percents.values.isEmpty && handlers.setpoints.values.isEmpty)

        try await service.write(100, to: TestControlService.percent)
        try await service.write(0x0102, to: TestControlService.setpoint)
        #expect(handlers.percents.values == [100])
        #expect(handlers.setpoints.values == [0x0102])
        // A written value is what reads get when there is no read handler.
        #expect(try await service.read(TestControlService.setpoint) == 0x0102)
        #expect(try await service.read(TestControlService.percent) == 100)
    }

    @Test("a typed central refuses to send a value its codec cannot carry")
    func encodingRefused() async throws {
        let (fixture, _, handlers) = try await Self.make()
        let service = try await fixture.client.discover(TestControlService.self)
        let error = await thrown { try await service.write(101, to: TestControlService.percent) }
        guard case GATTError.encodingFailed(let codecError)? = error as? GATTError else {
            Issue.record("expected encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(codecError.expected == "0–100" && codecError.found == "101")
        #expect("\(error!)".contains("Percent: expected 0–100, found 101"))
        #expect(handlers.percents.values.isEmpty)
    }

    @Test("a malformed write without response is dropped and counted; the valid ones around it arrive in order")
    func malformedCommands() async throws {
        let (fixture, _, handlers) = try await Self.make()
        let service = try await fixture.client.discover(TestControlService.self)
        try await service.write(7, to: TestControlService.command)
        try await service.write(Data([1, 2, 3]), to: TestControlService.command.uuid)
        try await service.write(Data([200]), to: TestControlService.percent.uuid, type: .withoutResponse)
        try await service.write(8, to: TestControlService.command)
        await handlers.commands.wait(for: 2)
        #expect(handlers.commands.values == [7, 8])
        #expect(handlers.percents.values.isEmpty)
        #expect(fixture.server.droppedCommands == 2)
    }

    @Test("writes without response honour the radio's flow control: a burst far over the queue arrives whole and in order")
    func writeWithoutResponseFlowControl() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.writeWithoutResponseQueueDepth = 2
        let (fixture, _, handlers) = try await Self.make(configuration: configuration)
        let service = try await fixture.client.discover(TestControlService.self)
        let command = try service.remote(TestControlService.command)
        // The raw radio refuses once its queue is full…
        var accepted: [UInt16] = []
        var refused = false
        for value in UInt16(0)..<50 where !refused {
            do {
                try await fixture.central.write(Data([UInt8(value), 0]), to: command, type: .withoutResponse)
                accepted.append(value)
            } catch BleuError.sendQueueFull {
                refused = true
            }
        }
        #expect(refused, "the queue of 2 never filled; the test does not exercise flow control")
        // …the typed write waits for the ready event instead.
        let burst = (0..<300).map { UInt16(1000 + $0) }
        for value in burst { try await service.write(value, to: TestControlService.command) }
        await handlers.commands.wait(for: accepted.count + burst.count)
        #expect(handlers.commands.values == accepted + burst)
    }

    @Test("long values: a 320-byte string is written with prepared writes and read with blob reads, whole")
    func longValues() async throws {
        let (fixture, _, handlers) = try await Self.make()
        let service = try await fixture.client.discover(TestControlService.self)
        let text = String(repeating: "long value ✓ ", count: 22)
        #expect(text.utf8.count > 185)
        try await service.write(text, to: TestControlService.label)
        #expect(handlers.labels.values == [text])
        #expect(try await service.read(TestControlService.label) == String(repeating: "Ω-label ", count: 40))
    }

    @Test("a subscriber that does not keep up holds the sensor back: notify waits for room (cancellable) and nothing piles up")
    func notifyHeldBack() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.notificationQueueDepth = 1
        configuration.subscriptionBufferLimit = 1
        let (fixture, battery) = try await GATTFixture.make(configuration: configuration) { server in
            try await server.host(BatteryService.self)
        }
        var events = fixture.peripheral.events()
        let remote = try await fixture.client.discover(BatteryService.self)
        let levels = try await remote.subscribe(to: BatteryService.level)
        _ = await events.first { if case .subscribed = $0 { true } else { false } }
        try await battery.notify(BatteryService.level, 1)   // in the central's stream
        try await battery.notify(BatteryService.level, 2)   // in the queue, held back by the full stream
        let stuck = Task { try await battery.notify(BatteryService.level, 3) }
        stuck.cancel()
        #expect(await thrown { try await stuck.value } is CancellationError, "the third value had no room and was not buffered")
        var iterator = levels.makeAsyncIterator()
        #expect(try await iterator.next() == 1)
        #expect(try await iterator.next() == 2)
        try await battery.notify(BatteryService.level, 4)
        #expect(try await iterator.next() == 4)
    }

    @Test("notifying on a radio that is off fails with its state instead of waiting for room")
    func notifyPoweredOff() async throws {
        let (fixture, battery) = try await GATTFixture.make { server in
            try await server.host(BatteryService.self)
        }
        fixture.bus.setState(.poweredOff, of: fixture.peripheral)
        #expect(await thrown { try await battery.notify(BatteryService.level, 50) } as? BleuError == .bluetoothPoweredOff)
    }

    @Test("handlers must belong to characteristics the service declares and allow")
    func handlerValidation() async throws {
        let server = GATTServer(peripheral: EmulatedPeripheralManager(bus: EmulatorBus(configuration: .instant)))
        await #expect(throws: BleuError.self) {
            try await server.host(BatteryService.self) { handlers in
                handlers.onWrite(BatteryService.level) { _, _ in }   // Battery Level is not writable
            }
        }
        await #expect(throws: BleuError.self) {
            try await server.host(BatteryService.self) { handlers in
                handlers.onRead(HeartRateService.bodySensorLocation) { _ in .chest }   // not in the service
            }
        }
    }
}

