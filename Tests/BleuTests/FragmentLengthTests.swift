import Bleu
import BleuCore
import BleuEmulator
import Foundation
import Testing

/// A central that says its link takes shorter writes than it does (as before an MTU exchange),
/// counts how often it is asked, and records the length of every write.
final class ShortWriteCentral: ForwardingCentralManager {
    let base: any CentralManager
    private let record = Locked((length: 20, asked: 0, written: [Int]()))

    init(_ base: any CentralManager) { self.base = base }

    var asked: Int { record.withLock { $0.asked } }
    var written: [Int] { record.withLock { $0.written } }

    /// What the link says from now on (an exchange raised its MTU).
    func raise(to length: Int) { record.withLock { $0.length = length } }

    func forget() { record.withLock { $0.written.removeAll() } }

    func maximumWriteValueLength(for peripheral: UUID, type: WriteType) async throws -> Int {
        let real = try await base.maximumWriteValueLength(for: peripheral, type: type)
        return record.withLock { record in
            record.asked += 1
            return min(record.length, real)
        }
    }

    func write(_ value: Data, to characteristic: RemoteCharacteristic, type: WriteType) async throws {
        record.withLock { $0.written.append(value.count) }
        try await base.write(value, to: characteristic, type: type)
    }
}

/// A peripheral manager that says its centrals take shorter notifications than they do, counts
/// how often it is asked, and records the length of every notification.
final class ShortNotificationPeripheral: ForwardingPeripheralManager {
    let base: any PeripheralManager
    private let record = Locked((length: 20, asked: 0, sent: [Int]()))

    init(_ base: any PeripheralManager) { self.base = base }

    var asked: Int { record.withLock { $0.asked } }
    var sent: [Int] { record.withLock { $0.sent } }

    func raise(to length: Int) { record.withLock { $0.length = length } }

    func forget() { record.withLock { $0.sent.removeAll() } }

    func maximumUpdateValueLength(for central: UUID) async -> Int? {
        guard let real = await base.maximumUpdateValueLength(for: central) else { return nil }
        return record.withLock { record in
            record.asked += 1
            return min(record.length, real)
        }
    }

    func updateValue(_ value: Data, for characteristic: PublishedCharacteristic, onSubscribedCentrals centrals: [UUID]?) async -> Bool {
        let sent = await base.updateValue(value, for: characteristic, onSubscribedCentrals: centrals)
        if sent { record.withLock { $0.sent.append(value.count) } }
        return sent
    }
}

/// How long fragments are, both ways: the link's length, asked once a period rather than on
/// every message, and a raised MTU used within a period.
@Suite("Fragment length")
struct FragmentLengthTests {
    @Test("the write length is asked once per period, not per call; a raised MTU is used once the period passed")
    func askedOncePerPeriod() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let clock = ManualClock()
        var configuration = BLEActorSystem.Configuration.fast
        configuration.clock = clock
        let peripheral = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus), configuration: configuration)
        let hosted = EchoActor(actorSystem: peripheral)
        try await peripheral.startAdvertising(hosted)
        let radio = ShortWriteCentral(EmulatedCentralManager(bus: bus))
        let central = BLEActorSystem(centralManager: radio, configuration: configuration)
        let echo = try await central.connect(to: hosted.id, as: EchoActor.self)
        let text = String(repeating: "x", count: 60)

        #expect(try await echo.echo(text) == text)
        let asked = radio.asked
        #expect(asked >= 1)
        #expect(radio.written.max() == 20, "fragments as long as the link said")
        for _ in 0..<5 { #expect(try await echo.echo(text) == text) }
        #expect(radio.asked == asked, "no call within the period asks the radio again")

        radio.raise(to: 100)
        radio.forget()
        #expect(try await echo.echo(text) == text)
        #expect(radio.written.max() == 20, "the kept length holds within the period")

        clock.advance(by: .seconds(1))
        radio.forget()
        #expect(try await echo.echo(text) == text)
        #expect(radio.asked == asked + 1, "asked again once the period passed")
        #expect(radio.written.max()! > 20, "the raised length is used: \(radio.written)")
    }

    @Test("the notification length is asked once per period, not per reply; a raised MTU is used once the period passed")
    func notificationLengthOncePerPeriod() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let clock = ManualClock()
        var configuration = BLEActorSystem.Configuration.fast
        configuration.clock = clock
        let radio = ShortNotificationPeripheral(EmulatedPeripheralManager(bus: bus))
        let peripheral = BLEActorSystem(peripheralManager: radio, configuration: configuration)
        let hosted = EchoActor(actorSystem: peripheral)
        try await peripheral.startAdvertising(hosted)
        let central = BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus), configuration: configuration)
        let echo = try await central.connect(to: hosted.id, as: EchoActor.self)
        let text = String(repeating: "y", count: 60)

        #expect(try await echo.echo(text) == text)
        let asked = radio.asked
        #expect(asked >= 1)
        #expect(radio.sent.max() == 20, "notifications as long as the central was said to take")
        for _ in 0..<5 { #expect(try await echo.echo(text) == text) }
        #expect(radio.asked == asked, "no reply within the period asks the radio again")

        radio.raise(to: 100)
        radio.forget()
        #expect(try await echo.echo(text) == text)
        #expect(radio.sent.max() == 20, "the kept length holds within the period")

        clock.advance(by: .seconds(1))
        radio.forget()
        #expect(try await echo.echo(text) == text)
        #expect(radio.asked == asked + 1, "asked again once the period passed")
        #expect(radio.sent.max()! > 20, "the raised length is used: \(radio.sent)")
    }
}
