import BleuCore
import Foundation
import Testing

@testable import BleuEmulator

/// BleuCore's shared client helpers, on the emulator: the flow-controlled send loops and the
/// "discover a service, check it, subscribe" sequence that the actor system, BleuGATT and the
/// orchestrator all use.
@Suite("Shared helpers: flow-controlled sends, discover and subscribe")
struct SharedClientHelpersTests {
    static func smallQueues() -> EmulatorConfiguration {
        var configuration = EmulatorConfiguration.instant
        configuration.writeWithoutResponseQueueDepth = 2
        configuration.notificationQueueDepth = 2
        return configuration
    }

    @Test("a burst of writes without response larger than the queue arrives whole and in order, with or without a ready signal")
    func writeBurst() async throws {
        for withSignal in [false, true] {
            let fixture = try await Fixture.make(configuration: Self.smallQueues())
            let ready = ReadySignal()
            let events = fixture.central.events()
            let watcher = Task {
                for await event in events {
                    if case .readyToSendWriteWithoutResponse = event { ready.signal() }
                }
            }
            defer { watcher.cancel() }
            // Read what arrives while writing: a write's slot frees once every event stream took it.
            let received = fixture.peripheral.events()
            let collector = Task {
                var values: [UInt8] = []
                for await event in received {
                    if case .writeRequests(let requests) = event { values += requests.requests.compactMap(\.value.first) }
                    if values.count == 40 { break }
                }
                return values
            }
            let characteristic = fixture[TestUUID.value]
            for index in 0..<40 {
                try await fixture.central.writeWithoutResponse(Data([UInt8(index)]), to: characteristic,
                                                               ready: withSignal ? ready : nil)
            }
            let values = await collector.value
            #expect(values == (0..<40).map { UInt8($0) }, "signal: \(withSignal)")
        }
    }

    @Test("a burst of notifications larger than the queue arrives whole and in order; a radio that is off fails the send")
    func notificationBurst() async throws {
        let fixture = try await Fixture.make(configuration: Self.smallQueues())
        let ready = ReadySignal()
        let events = fixture.peripheral.events()
        let watcher = Task {
            for await event in events {
                if case .readyToUpdateSubscribers = event { ready.signal() }
            }
        }
        defer { watcher.cancel() }
        var peripheralEvents = fixture.peripheral.events()
        let values = try await fixture.central.subscribe(to: fixture[TestUUID.stream])
        let characteristic = fixture.characteristic(TestUUID.stream)
        #expect(await peripheralEvents.first { if case .subscribed = $0 { true } else { false } } != nil)
        let reader = Task { try await values.prefix(30).reduce(into: [UInt8]()) { $0.append($1[0]) } }
        for index in 0..<30 {
            try await fixture.peripheral.updateValue(Data([UInt8(index)]), for: characteristic, onSubscribedCentrals: nil,
                                                     ready: ready)
        }
        #expect(try await reader.value == (0..<30).map { UInt8($0) })

        fixture.bus.setState(.poweredOff, of: fixture.peripheral)
        await #expect(throws: BleuError.self) {
            try await fixture.peripheral.updateValue(Data([1]), for: characteristic, onSubscribedCentrals: nil, ready: ready)
        }
    }

    @Test("discover and subscribe: a missing service or characteristic is named; subscriptions come in order; a failed one undoes the others")
    func discoverAndSubscribe() async throws {
        let fixture = try await Fixture.make()
        await #expect(throws: BleuError.serviceNotFound(BluetoothUUID.Service.battery)) {
            try await fixture.central.discover(ServiceRequirement(service: BluetoothUUID.Service.battery), on: fixture.peripheralID)
        }
        await #expect(throws: BleuError.characteristicNotFound(BluetoothUUID(0x2A19))) {
            try await fixture.central.discover(ServiceRequirement(service: TestUUID.service, required: [BluetoothUUID(0x2A19)]),
                                               on: fixture.peripheralID)
        }
        let found = try await fixture.central.discover(
            ServiceRequirement(service: TestUUID.service, required: [TestUUID.value], discovering: .nothingElse,
                               subscriptions: [TestUUID.stream, TestUUID.indicated]), on: fixture.peripheralID)
        #expect(found.found.map(\.uuid) == [TestUUID.value, TestUUID.stream, TestUUID.indicated], "only what was asked for")
        #expect(found.subscriptions.map(\.uuid) == [TestUUID.stream, TestUUID.indicated])
        for (uuid, _) in found.subscriptions { try await fixture.central.unsubscribe(from: found.characteristics[uuid]!) }

        // The second subscription fails (the characteristic neither notifies nor indicates): the first is undone.
        var events = fixture.peripheral.events()
        await #expect(throws: BleuError.self) {
            try await fixture.central.discover(
                ServiceRequirement(service: TestUUID.service, subscriptions: [TestUUID.stream, TestUUID.readOnly]),
                on: fixture.peripheralID)
        }
        let unsubscribed = await events.first { if case .unsubscribed(_, let c) = $0 { c.uuid == TestUUID.stream } else { false } }
        #expect(unsubscribed != nil)
    }
}
