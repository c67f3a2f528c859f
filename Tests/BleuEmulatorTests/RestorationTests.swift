import BleuCore
import Foundation
import Testing
@testable import BleuEmulator

/// State restoration with CoreBluetooth's willRestoreState semantics.
@Suite("State restoration")
struct RestorationTests {
    @Test("a restored central gets its predecessor's links, scan and subscriptions, and can read at once")
    func centralRestoration() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let peripheral = EmulatedPeripheralManager(bus: bus)
        let store = ValueStore()
        let app = Fixture.serveRequests(of: peripheral, from: store)
        defer { app.cancel() }
        let service = try await peripheral.add(.test)
        try await peripheral.startAdvertising(AdvertisingData(localName: "R"))
        var original: EmulatedCentralManager? = EmulatedCentralManager(bus: bus, restoreIdentifier: "app")
        let id = try await original!.discover(name: "R")
        try await original!.connect(id)
        let characteristics = try await original!.discoverTestService(on: id)
        _ = try await original!.subscribe(to: characteristics[TestUUID.stream]!)
        _ = try await original!.scan(ScanOptions(services: [TestUUID.service]))
        original = nil  // the application goes away; the system keeps its connections

        let restored = EmulatedCentralManager(bus: bus, restoreIdentifier: "app")
        var events = restored.events().makeAsyncIterator()
        guard case .stateChanged(.poweredOn)? = await events.next(),
              case .willRestoreState(let restoration)? = await events.next() else {
            Issue.record("the stream must start with the state, then the restoration"); return
        }
        #expect(restoration.peripherals == [id])
        #expect(restoration.scanOptions == ScanOptions(services: [TestUUID.service]))
        #expect(restoration.subscriptions.map(\.uuid) == [TestUUID.stream])
        #expect(await restored.isConnected(id))
        store.set(Data("still here".utf8), for: TestUUID.value)
        #expect(try await restored.read(characteristics[TestUUID.value]!) == Data("still here".utf8))
        bus.clearTrace()
        let values = try await restored.subscribe(to: restoration.subscriptions[0])
        #expect(!bus.trace.contains { $0.opcode == 0x12 }, "no configuration is rewritten")
        #expect(await peripheral.updateValue(Data([7]), for: service.characteristic(TestUUID.stream)!))
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next() == Data([7]))
    }

    @Test("a predecessor still alive stops working when a manager restores its state")
    func supersededPredecessor() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let first = EmulatedCentralManager(bus: bus, restoreIdentifier: "twice")
        let events = first.events()
        let second = EmulatedCentralManager(bus: bus, restoreIdentifier: "twice")
        var count = 0
        for await _ in events { count += 1 }
        #expect(count == 1, "the predecessor's stream ends after its initial state")
        let error = await thrownError { try await first.scan() }
        #expect((error as? BleuError).map { if case .invalidState = $0 { true } else { false } } == true)
        _ = try await second.scan()
    }

    @Test("a central without a restore identifier takes its connections with it")
    func noRestoration() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let peripheral = EmulatedPeripheralManager(bus: bus)
        var events = peripheral.events()
        try await peripheral.startAdvertising(AdvertisingData(localName: "N"))
        var central: EmulatedCentralManager? = EmulatedCentralManager(bus: bus)
        let id = try await central!.discover(name: "N")
        try await central!.connect(id)
        central = nil
        #expect(await ConnectionTests.peripheralReason(&events) == .remoteUserTerminated)
    }

    @Test("a restored peripheral keeps its services with their handles, its advertising and its connections")
    func peripheralRestoration() async throws {
        let bus = EmulatorBus(configuration: .instant)
        var original: EmulatedPeripheralManager? = EmulatedPeripheralManager(bus: bus, restoreIdentifier: "accessory")
        let service = try await original!.add(.test)
        let advertisement = AdvertisingData(localName: "Accessory")
        try await original!.startAdvertising(advertisement)
        let central = EmulatedCentralManager(bus: bus)
        let id = try await central.discover(name: "Accessory")
        try await central.connect(id)
        let characteristics = try await central.discoverTestService(on: id)
        let values = try await central.subscribe(to: characteristics[TestUUID.stream]!)
        #expect(await original!.updateValue(Data([1]), for: service.characteristic(TestUUID.stream)!))
        var received = values.makeAsyncIterator()
        #expect(try await received.next() == Data([1]))
        original = nil

        bus.clearTrace()
        let restored = EmulatedPeripheralManager(bus: bus, restoreIdentifier: "accessory")
        var events = restored.events().makeAsyncIterator()
        _ = await events.next()
        guard case .willRestoreState(let restoration)? = await events.next() else { Issue.record("no restoration"); return }
        #expect(restoration.services == [service])
        #expect(restoration.advertisement == advertisement)
        #expect(await restored.isAdvertising)
        #expect(await central.isConnected(id))
        // The subscription carried over: the successor's first update reaches the old subscriber's
        // stream, and nobody wrote the configuration descriptor again.
        let subscribed = bus.withEngine { engine in
            engine.links.values.contains { $0.server.configurations[service.characteristic(TestUUID.stream)!.valueHandle] == 0x0001 }
        }
        #expect(subscribed, "the link still has notifications enabled")
        #expect(await restored.updateValue(Data([2]), for: service.characteristic(TestUUID.stream)!))
        #expect(try await received.next() == Data([2]))
        #expect(!bus.trace.contains { $0.kind == .att && $0.opcode == 0x12 }, "no configuration was rewritten")
        let store = ValueStore()
        store.set(Data("served by the successor".utf8), for: TestUUID.value)
        let app = Fixture.serveRequests(of: restored, from: store)
        defer { app.cancel() }
        #expect(try await central.read(characteristics[TestUUID.value]!) == Data("served by the successor".utf8))
        #expect(try await MediumTests.heard(by: EmulatedCentralManager(bus: bus)).map(\.localName) == ["Accessory"])
    }
}
