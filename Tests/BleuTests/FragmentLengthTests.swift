import Bleu
import BleuCore
import BleuEmulator
import Foundation
import Testing

/// A decorated radio that says its link takes shorter values than it does (as before an MTU
/// exchange), counts how often it is asked, and records the length of every value it sends.
protocol ShortLengthRadio: AnyObject, Sendable {
    var record: Locked<(length: Int, asked: Int, sent: [Int])> { get }
}

extension ShortLengthRadio {
    var asked: Int { record.withLock { $0.asked } }
    var sent: [Int] { record.withLock { $0.sent } }
    /// What the link says from now on (an exchange raised its MTU).
    func raise(to length: Int) { record.withLock { $0.length = length } }
    func forget() { record.withLock { $0.sent.removeAll() } }

    func said(_ real: Int) -> Int {
        record.withLock { record in
            record.asked += 1
            return min(record.length, real)
        }
    }
}

final class ShortWriteCentral: ForwardingCentralManager, ShortLengthRadio {
    let base: any CentralManager
    let record = Locked((length: 20, asked: 0, sent: [Int]()))

    init(_ base: any CentralManager) { self.base = base }

    func maximumWriteValueLength(for peripheral: UUID, type: WriteType) async throws -> Int {
        said(try await base.maximumWriteValueLength(for: peripheral, type: type))
    }

    func write(_ value: Data, to characteristic: RemoteCharacteristic, type: WriteType) async throws {
        record.withLock { $0.sent.append(value.count) }
        try await base.write(value, to: characteristic, type: type)
    }
}

final class ShortNotificationPeripheral: ForwardingPeripheralManager, ShortLengthRadio {
    let base: any PeripheralManager
    let record = Locked((length: 20, asked: 0, sent: [Int]()))

    init(_ base: any PeripheralManager) { self.base = base }

    func maximumUpdateValueLength(for central: UUID) async -> Int? {
        guard let real = await base.maximumUpdateValueLength(for: central) else { return nil }
        return said(real)
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
    @Test("the length is asked once per period, not per message; a raised MTU is used once the period passed",
          arguments: ["central writes", "peripheral notifications"])
    func askedOncePerPeriod(_ side: String) async throws {
        let bus = EmulatorBus(configuration: .instant)
        let clock = ManualClock()
        var configuration = BLEActorSystem.Configuration.fast
        configuration.clock = clock
        let shortCentral = ShortWriteCentral(EmulatedCentralManager(bus: bus))
        let shortPeripheral = ShortNotificationPeripheral(EmulatedPeripheralManager(bus: bus))
        let radio: any ShortLengthRadio = side == "central writes" ? shortCentral : shortPeripheral
        let peripheral = BLEActorSystem(peripheralManager: side == "central writes" ? shortPeripheral.base : shortPeripheral,
                                        configuration: configuration)
        let hosted = EchoActor(actorSystem: peripheral)
        try await peripheral.startAdvertising(hosted)
        let central = BLEActorSystem(centralManager: side == "central writes" ? shortCentral : shortCentral.base,
                                     configuration: configuration)
        let echo = try await central.connect(to: hosted.id, as: EchoActor.self)
        let text = String(repeating: "x", count: 60)

        #expect(try await echo.echo(text) == text)
        let asked = radio.asked
        #expect(asked >= 1)
        #expect(radio.sent.max() == 20, "values as long as the radio said")
        for _ in 0..<5 { #expect(try await echo.echo(text) == text) }
        #expect(radio.asked == asked, "no message within the period asks the radio again")

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
