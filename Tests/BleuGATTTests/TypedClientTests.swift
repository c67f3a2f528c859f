import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuGATT

/// The typed central's discovery, its errors, bytes for what the catalogue does
/// not know, and subscriptions that end cleanly.
@Suite("Typed GATT client: discovery, errors, subscriptions")
struct TypedClientTests {
    static let extra: BluetoothUUID = "4B1D00FF-0C1E-4E7A-9A51-6B7C8D9EA0B1"
    /// A Battery Level hosted as bytes, so the peripheral can send values the SIG forbids.
    static let rawLevel = Characteristic<Data>(BluetoothUUID.Characteristic.batteryLevel, codec: .data, properties: [.read, .notify])

    @Test("a typed service discovers only what its type declares; discoverService reaches the rest as bytes")
    func onlyDeclared() async throws {
        let vendor = Characteristic<Data>(Self.extra, name: "Vendor blob", codec: .data, properties: [.read, .write])
        let (fixture, _) = try await GATTFixture.make { server in
            try await server.host(ServiceDeclaration(HeartRateService.uuid) {
                HeartRateService.measurement
                HeartRateService.bodySensorLocation
                vendor
            }) { handlers in
                handlers.acceptWrites(vendor)
            }
        }
        let typed = try await fixture.client.discover(HeartRateService.self)
        #expect(Set(typed.characteristics.map(\.uuid)) == [HeartRateService.measurement.uuid, HeartRateService.bodySensorLocation.uuid])
        #expect(typed.contains(HeartRateService.bodySensorLocation) && !typed.contains(HeartRateService.controlPoint))

        let all = try await fixture.client.discoverService(HeartRateService.uuid)
        #expect(all.characteristics.count == 3)
        try await all.write(Data([0xDE, 0xAD]), to: Self.extra)
        #expect(try await all.read(Self.extra) == Data([0xDE, 0xAD]))
    }

    @Test("clear errors: service and characteristic not found, not readable, not writable, not subscribable")
    func errors() async throws {
        let (fixture, _) = try await GATTFixture.make { server in
            try await server.host(ServiceDeclaration(HeartRateService.uuid) {
                HeartRateService.measurement
                HeartRateService.bodySensorLocation
            })
        }
        let error = await thrown { try await fixture.client.discover(BatteryService.self) }
        guard case GATTError.serviceNotFound(let name, let uuid, _)? = error as? GATTError else {
            Issue.record("expected serviceNotFound, got \(String(describing: error))")
            return
        }
        #expect(name == "Battery Service" && uuid == BatteryService.uuid)

        let heartRate = try await fixture.client.discover(HeartRateService.self)
        #expect(await thrown { try await heartRate.write(.resetEnergyExpended, to: HeartRateService.controlPoint) } as? GATTError
            == .characteristicNotFound(characteristic: "Heart Rate Control Point", uuid: HeartRateService.controlPoint.uuid,
                                       service: "Heart Rate"))
        #expect(await thrown { try await heartRate.read(HeartRateService.measurement) } as? GATTError
            == .notPermitted(characteristic: "Heart Rate Measurement", operation: .read, properties: [.notify]))
        #expect(await thrown { try await heartRate.write(.chest, to: HeartRateService.bodySensorLocation) } as? GATTError
            == .notPermitted(characteristic: "Body Sensor Location", operation: .write, properties: [.read]))
        #expect(await thrown { try await heartRate.subscribe(to: HeartRateService.bodySensorLocation) } as? GATTError
            == .notPermitted(characteristic: "Body Sensor Location", operation: .subscribe, properties: [.read]))
        #expect("\(GATTError.notPermitted(characteristic: "Body Sensor Location", operation: .write, properties: [.read]))"
            == "Body Sensor Location does not allow write: the peripheral declares it [read].")
    }

    @Test("a value that does not decode is an error saying what was expected and what came")
    func decodeErrorOnRead() async throws {
        let (fixture, _) = try await GATTFixture.make { server in
            try await server.host(ServiceDeclaration(BatteryService.uuid) { Self.rawLevel }) { handlers in
                handlers.onRead(Self.rawLevel) { _ in Data([150]) }
            }
        }
        let battery = try await fixture.client.discover(BatteryService.self)
        let error = await thrown { try await battery.read(BatteryService.level) }
        guard case GATTError.decodingFailed(let codecError)? = error as? GATTError else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
        #expect(codecError.expected == "0–100" && codecError.found == "150" && codecError.path == ["Battery Level"])
        #expect("\(error!)".contains("Battery Level: expected 0–100, found 150"))
    }

    @Test("a subscription ends with the decode error of a bad value, and the peripheral is told to stop")
    func decodeErrorInStream() async throws {
        let (fixture, hosted) = try await GATTFixture.make { server in
            try await server.host(ServiceDeclaration(BatteryService.uuid) { Self.rawLevel })
        }
        var events = fixture.peripheral.events()
        let battery = try await fixture.client.discover(BatteryService.self)
        let stream = try await battery.subscribe(to: BatteryService.level)
        _ = await events.first { if case .subscribed = $0 { true } else { false } }
        try await hosted.notify(Self.rawLevel, Data([80]))
        try await hosted.notify(Self.rawLevel, Data([0xC8]))
        try await hosted.notify(Self.rawLevel, Data([70]))
        var received: [UInt8] = []
        var failure: (any Error)?
        do {
            for try await level in stream { received.append(level) }
        } catch {
            failure = error
        }
        #expect(received == [80])
        guard case GATTError.decodingFailed(let codecError)? = failure as? GATTError else {
            Issue.record("expected decodingFailed, got \(String(describing: failure))")
            return
        }
        #expect(codecError.found == "200")
        #expect(await events.first { if case .unsubscribed = $0 { true } else { false } } != nil)
    }

    @Test("a consumer that stops iterating unsubscribes, but only when no other typed stream wants the values")
    func unsubscribeOnTermination() async throws {
        let (fixture, hosted) = try await GATTFixture.make { server in
            try await server.host(BatteryService.self)
        }
        var events = fixture.peripheral.events()
        let battery = try await fixture.client.discover(BatteryService.self)
        let remote = try battery.remote(BatteryService.level)
        let keeper = try await battery.subscribe(to: BatteryService.level)
        _ = await events.first { if case .subscribed = $0 { true } else { false } }

        // A second stream, consumed for one value and dropped.
        try await firstValue(of: battery, then: { try await hosted.notify(BatteryService.level, 55) }, expecting: 55)
        #expect(fixture.client.openStreams(of: remote) == 1, "the dropped stream released its count")
        var keeperIterator = keeper.makeAsyncIterator()
        #expect(try await keeperIterator.next() == 55)
        try await hosted.notify(BatteryService.level, 56)
        #expect(try await keeperIterator.next() == 56, "still subscribed: the other stream's end did not unsubscribe")

        // The last stream ends on cancellation of its consumer: now the peripheral hears it.
        let consumer = Task { [keeperIterator] in
            var iterator = keeperIterator
            return try await iterator.next()
        }
        consumer.cancel()
        _ = try? await consumer.value
        #expect(await events.first { if case .unsubscribed = $0 { true } else { false } } != nil)
    }

    /// Subscribes, sends, takes the first value and drops the stream.
    private func firstValue(of battery: RemoteGATTService, then send: () async throws -> Void, expecting value: UInt8) async throws {
        let stream = try await battery.subscribe(to: BatteryService.level)
        try await send()
        for try await level in stream {
            #expect(level == value)
            break
        }
    }
}
