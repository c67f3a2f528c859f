import BleuCore
import Foundation
import Testing
@testable import BleuEmulator

/// A medium you create, isolated, with identifiers the peripheral cannot
/// choose and events in link order.
@Suite("The medium")
struct MediumTests {
    /// Everything a scan on an instant bus hears at once.
    static func heard(by central: EmulatedCentralManager, _ options: ScanOptions = ScanOptions()) async throws -> [Advertisement] {
        let stream = try await central.scan(options)
        await central.stopScan()
        var result: [Advertisement] = []
        for try await advertisement in stream { result.append(advertisement) }
        return result
    }

    @Test("two buses never see each other", arguments: 0..<4)
    func isolation(round: Int) async throws {
        let first = EmulatorBus(configuration: .instant)
        let second = EmulatorBus(configuration: .instant)
        let peripheral = EmulatedPeripheralManager(bus: first)
        try await peripheral.startAdvertising(AdvertisingData(localName: "only-on-first-\(round)"))
        let onFirst = EmulatedCentralManager(bus: first)
        let onSecond = EmulatedCentralManager(bus: second)
        #expect(try await Self.heard(by: onFirst).map(\.localName) == ["only-on-first-\(round)"])
        #expect(try await Self.heard(by: onSecond).isEmpty)
        let stranger = try await Self.heard(by: onFirst)[0].peripheral
        #expect(await throwsError(.peripheralNotFound(stranger)) { try await onSecond.connect(stranger) })
    }

    @Test(".shared is one bus, a convenience on top")
    func shared() {
        // Its configuration is not checked here: other suites (the CoreBluetoothEmulator README
        // example) reconfigure the shared bus, by design, while this one runs.
        #expect(EmulatorBus.shared === EmulatorBus.shared)
    }

    @Test("each central knows a peripheral under its own identifier; the peripheral cannot choose it")
    func identifiers() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let peripheral = EmulatedPeripheralManager(bus: bus, options: .init(deviceIdentifier: "P"))
        try await peripheral.startAdvertising(AdvertisingData(localName: "P"))
        let a = EmulatedCentralManager(bus: bus)
        let b = EmulatedCentralManager(bus: bus)
        let seenByA = try await Self.heard(by: a)[0].peripheral
        let seenByB = try await Self.heard(by: b)[0].peripheral
        #expect(seenByA != seenByB)
        #expect(try await Self.heard(by: a)[0].peripheral == seenByA, "stable across scans")
        try await a.connect(seenByA)
        let centralAsSeen = try #require(await peripheral.connectedCentrals.first)
        #expect(centralAsSeen != seenByA && centralAsSeen != seenByB)
        // A new peripheral manager claiming the same advertising data is another device.
        let impostor = EmulatedPeripheralManager(bus: bus)
        try await impostor.startAdvertising(AdvertisingData(localName: "P"))
        let both = try await Self.heard(by: a)
        #expect(Set(both.map(\.peripheral)).count == 2)
    }

    @Test("identifiers are random per bus but replay from the seed")
    func identifiersFromSeed() async throws {
        func identifier(seed: UInt64) async throws -> UUID {
            var configuration = EmulatorConfiguration.instant
            configuration.seed = seed
            let bus = EmulatorBus(configuration: configuration)
            let peripheral = EmulatedPeripheralManager(bus: bus)
            try await peripheral.startAdvertising(AdvertisingData(localName: "S"))
            return try await Self.heard(by: EmulatedCentralManager(bus: bus))[0].peripheral
        }
        #expect(try await identifier(seed: 1) == identifier(seed: 1))
        #expect(try await identifier(seed: 1) != identifier(seed: 2))
    }

    @Test("values and the disconnection reach the central in the order they happened on the link")
    func linkOrder() async throws {
        let fixture = try await Fixture.make()
        let stream = try await fixture.central.subscribe(to: fixture[TestUUID.stream])
        var centralEvents = fixture.central.events()
        let central = try #require(await fixture.peripheral.connectedCentrals.first)
        for i in 0..<10 { #expect(await fixture.peripheral.updateValue(Data([UInt8(i)]), for: fixture.characteristic(TestUUID.stream))) }
        await fixture.peripheral.disconnect(central)
        var received: [UInt8] = []
        var ending: (any Error)?
        do {
            for try await value in stream { received.append(value[0]) }
        } catch {
            ending = error
        }
        #expect(received == Array(0..<10), "every value sent before the disconnection arrives first")
        #expect(ending as? BleuError == .disconnected(fixture.peripheralID, .remoteUserTerminated))
        let event = await centralEvents.first { if case .disconnected = $0 { true } else { false } }
        guard case .disconnected(_, let reason)? = event else { Issue.record("no disconnection"); return }
        #expect(reason == .remoteUserTerminated)
    }

    @Test("the peripheral hears a central's life in link order")
    func peripheralOrder() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let peripheral = EmulatedPeripheralManager(bus: bus)
        var events = peripheral.events().makeAsyncIterator()
        let store = ValueStore()
        _ = try await peripheral.add(.test)
        try await peripheral.startAdvertising(AdvertisingData(localName: "O"))
        let central = EmulatedCentralManager(bus: bus)
        let id = try await central.discover(name: "O")
        try await central.connect(id)
        let characteristics = try await central.discoverTestService(on: id)
        let stream = try await central.subscribe(to: characteristics[TestUUID.stream]!)
        for i in 0..<5 { try await central.write(Data([UInt8(i)]), to: characteristics[TestUUID.value]!, type: .withoutResponse) }
        try await central.unsubscribe(from: characteristics[TestUUID.stream]!)
        await central.cancelConnection(id)
        var kinds: [String] = []
        while let event = await events.next() {
            switch event {
            case .stateChanged: kinds.append("state")
            case .centralConnected: kinds.append("connected")
            case .mtuChanged: kinds.append("mtu")
            case .subscribed: kinds.append("subscribed")
            case .unsubscribed: kinds.append("unsubscribed")
            case .writeRequests(let requests): kinds.append("write \(requests.requests[0].value[0])")
            case .centralDisconnected(_, let reason):
                kinds.append("disconnected \(reason)")
            default: kinds.append("other")
            }
            if kinds.last?.hasPrefix("disconnected") == true { break }
        }
        #expect(kinds == ["state", "connected", "mtu", "subscribed", "write 0", "write 1", "write 2", "write 3", "write 4",
                          "unsubscribed", "disconnected \(DisconnectReason.remoteUserTerminated)"])
        _ = stream
        _ = store
    }
}

/// The managers' event streams: ordered, bounded, and aware of what their consumers took.
@Suite("Event streams")
struct EventHubTests {
    @Test("every stream gets the prefix, then every event in order; a slow stream keeps the newest")
    func orderAndBound() async {
        let hub = EventHub<Int>(limit: 5, onReceipts: { _ in })
        hub.setPrefix([-1])
        let fast = hub.subscribe()
        let slow = hub.subscribe()
        let consumer = Task {
            var received: [Int] = []
            for await value in fast {
                received.append(value)
                if received.count == 4 { break }
            }
            return received
        }
        for i in 0..<3 { hub.yield(i) }
        #expect(await consumer.value == [-1, 0, 1, 2])
        for i in 3..<20 { hub.yield(i) }
        hub.finish()
        var kept: [Int] = []
        for await value in slow { kept.append(value) }
        #expect(kept == Array(15..<20))
    }

    @Test("a receipt completes once every stream took or dropped its event; with no stream it is not held")
    func receipts() async {
        let completed = Locked<[LinkID]>([])
        let hub = EventHub<Int>(limit: 2, onReceipts: { links in completed.withLock { $0 += links } })
        #expect(hub.yield(0, receipt: LinkID(rawValue: 7)).held == false)
        var a = hub.subscribe().makeAsyncIterator()
        var b = hub.subscribe().makeAsyncIterator()
        #expect(hub.yield(1, receipt: LinkID(rawValue: 7)).held)
        _ = await a.next()
        #expect(completed.withLock { $0 }.isEmpty)
        _ = await b.next()
        #expect(completed.withLock { $0 } == [LinkID(rawValue: 7)])
        #expect(hub.yield(2, receipt: LinkID(rawValue: 8)).held)
        #expect(hub.yield(3).held)
        let overflow = hub.yield(4)
        #expect(overflow.completed == [LinkID(rawValue: 8)], "dropping the oldest event settles its receipt")
        #expect(hub.subscriberCount == 2)
    }

    @Test("a stream whose consumer lets go is removed, and its receipts settle")
    func removal() async {
        let completed = Locked<[LinkID]>([])
        let hub = EventHub<Int>(limit: 10, onReceipts: { links in completed.withLock { $0 += links } })
        var stream: AsyncStream<Int>? = hub.subscribe()
        _ = stream
        hub.yield(1, receipt: LinkID(rawValue: 3))
        stream = nil
        #expect(hub.subscriberCount == 0)
        #expect(completed.withLock { $0 } == [LinkID(rawValue: 3)])
        let task = Task { for await _ in hub.subscribe() {} }
        while hub.subscriberCount == 0 { await Task.yield() }
        task.cancel()
        await task.value
        #expect(hub.subscriberCount == 0)
    }

    @Test("a bus nobody holds goes away, even with timers armed")
    func busLifetime() async throws {
        weak var weakBus: EmulatorBus?
        do {
            let fixture = try await Fixture.make(answer: { _, _, _ in })
            weakBus = fixture.bus
            let pending = Task { try await fixture.central.read(fixture[TestUUID.value]) }  // arms the ATT timeout
            while fixture.bus.withEngine({ $0.timers.watchdogAt == nil }) { await Task.yield() }
            await fixture.central.cancelConnection(fixture.peripheralID)
            _ = await thrownError { try await pending.value }
            fixture.app.cancel()
            await fixture.app.value
        }
        #expect(weakBus == nil)
    }
}

@Suite("A bus started afresh")
struct BusResetTests {
    @Test("configure(_:) starts the medium afresh with the new configuration; managers from before are cut off")
    func configureStartsAfresh() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let before = EmulatedPeripheralManager(bus: bus)
        try await before.startAdvertising(AdvertisingData(localName: "old"), scanResponse: nil)
        var slow = EmulatorConfiguration.slow
        slow.seed = 9
        await bus.configure(slow)
        #expect(bus.configuration.timing == .realistic)
        #expect(bus.configuration.dataLength == 27)
        #expect(bus.seed == 9)
        #expect(await before.state == .unknown)
        #expect(!(await before.isAdvertising))
        await #expect(throws: BleuError.self) { try await before.startAdvertising(AdvertisingData(localName: "again"), scanResponse: nil) }

        await bus.reset()
        #expect(bus.configuration.dataLength == 27, "reset keeps the configuration")
        let after = EmulatedPeripheralManager(bus: bus)
        #expect(await after.state == .poweredOn)
    }
}
