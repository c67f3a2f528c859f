import BleuCore
import Foundation
import Testing
@testable import BleuEmulator

/// The managers of buses joined to one hub (in memory, through the hub protocol's bytes, with
/// a queue each way as a socket between processes would have): the same events, results and
/// link model as in one process. The end-to-end scenarios (typed GATT, the actor system, the
/// orchestrator) run on a hub too, as BackendConformanceTests' `hub` backend.
///
/// A client's event stream opens when its subscription reaches the hub, on that client's own
/// connection: a test that makes another client act first takes the stream's first event (the
/// state), which shows the stream is open.
@Suite("Managers on a hub", .timeLimit(.minutes(1)))
struct HubManagerTests {
    /// A hub, and a peripheral (with the test service, advertising, its app serving requests)
    /// and a central on two other clients of it, connected with everything discovered.
    static func fixture(_ configuration: EmulatorConfiguration = .instant, centralOptions: EmulatedCentralManager.Options = .init())
        async throws -> (hub: EmulatorBus, Fixture)
    {
        let hub = EmulatorBus(configuration: configuration)
        let fixture = try await Fixture.make(peripheralBus: try await EmulatorBus(loopbackTo: hub),
                                             centralBus: try await EmulatorBus(loopbackTo: hub), centralOptions: centralOptions)
        return (hub, fixture)
    }

    @Test("reads, writes, notifications and descriptors cross: the central's process sees the peripheral's app")
    func gatt() async throws {
        let (hub, fixture) = try await Self.fixture()
        try await fixture.central.write(Data("hello".utf8), to: fixture[TestUUID.value], type: .withResponse)
        #expect(try await fixture.central.read(fixture[TestUUID.value]) == Data("hello".utf8))
        #expect(try await fixture.central.read(fixture[TestUUID.fixed]) == Data("fixed".utf8))
        let descriptors = try await fixture.central.discoverDescriptors(for: fixture[TestUUID.value])
        let description = try #require(descriptors.first { $0.uuid == BluetoothUUID.Descriptor.characteristicUserDescription })
        #expect(try await fixture.central.read(description) == Data("value".utf8))
        let values = try await fixture.central.subscribe(to: fixture[TestUUID.stream])
        for index in 0..<5 {
            while await !fixture.peripheral.updateValue(Data([UInt8(index)]), for: fixture.characteristic(TestUUID.stream),
                                                        onSubscribedCentrals: nil) {}
        }
        var received: [UInt8] = []
        for try await value in values {
            received += value
            if received.count == 5 { break }
        }
        #expect(received == [0, 1, 2, 3, 4])
        // Errors cross typed: a write to a read-only characteristic.
        let error = await thrownError { try await fixture.central.write(Data([1]), to: fixture[TestUUID.readOnly], type: .withResponse) }
        #expect(error as? BleuError == .notSupported(.characteristicProperties(TestUUID.readOnly, [.read], .write)))
        #expect(try await fixture.central.attMTU(for: fixture.peripheralID) == hub.configuration.centralMTU)
    }

    @Test("a lost link ends at both sides with a supervision timeout")
    func lostLink() async throws {
        let (hub, fixture) = try await Self.fixture()
        var events = fixture.central.events()
        var peripheralEvents = fixture.peripheral.events()
        // The peripheral's subscription crosses on its own client's connection, which the
        // central's loss does not wait for: its first event (the state) shows it is open.
        _ = await events.first { _ in true }
        _ = await peripheralEvents.first { _ in true }
        fixture.central.bus.loseLink(between: fixture.central, and: fixture.peripheralID)
        let central = await events.first { if case .disconnected = $0 { true } else { false } }
        let peripheral = await peripheralEvents.first { if case .centralDisconnected = $0 { true } else { false } }
        guard case .disconnected(_, let centralReason)? = central, case .centralDisconnected(_, let peripheralReason)? = peripheral else {
            Issue.record("no disconnection: \(String(describing: central)), \(String(describing: peripheral))")
            return
        }
        #expect(centralReason == .supervisionTimeout)
        #expect(peripheralReason == .supervisionTimeout)
        withExtendedLifetime(hub) {}
    }

    @Test("a peripheral's process that dies: the central sees a supervision timeout, the hub keeps nothing of it")
    func peripheralProcessDies() async throws {
        let (hub, fixture) = try await Self.fixture()
        var events = fixture.central.events()
        _ = await events.first { _ in true }
        fixture.peripheral.bus.dropHubConnection()
        let event = await events.first { if case .disconnected = $0 { true } else { false } }
        guard case .disconnected(let peer, let reason)? = event else {
            Issue.record("no disconnection")
            return
        }
        #expect(peer == fixture.peripheralID && reason == .supervisionTimeout)
        // The dead client's calls fail at once, typed.
        let error = await thrownError { try await fixture.peripheral.add(.test) }
        guard case .invalidState(.hubConnectionLost)? = error as? BleuError else {
            Issue.record("expected hubConnectionLost, got \(String(describing: error))")
            return
        }
        #expect(await poll { hub.withEngine { $0.peripherals.isEmpty } })
    }

    @Test("a central's process that dies: the peripheral sees a supervision timeout, the hub keeps nothing of it")
    func centralProcessDies() async throws {
        let (hub, fixture) = try await Self.fixture()
        var events = fixture.peripheral.events()
        _ = await events.first { _ in true }
        fixture.central.bus.dropHubConnection()
        let event = await events.first { if case .centralDisconnected = $0 { true } else { false } }
        guard case .centralDisconnected(_, let reason)? = event else {
            Issue.record("no disconnection")
            return
        }
        #expect(reason == .supervisionTimeout)
        #expect(await poll { hub.withEngine { $0.centrals.isEmpty && $0.links.isEmpty } })
    }

    @Test("a client that lets its central go ends its link politely: the peripheral sees the remote user's termination")
    func politeDeparture() async throws {
        let hub = EmulatorBus(configuration: .instant)
        let peripheral = EmulatedPeripheralManager(bus: try await EmulatorBus(loopbackTo: hub))
        _ = try await peripheral.add(.test)
        try await peripheral.startAdvertising(AdvertisingData(localName: "Polite"))
        var events = peripheral.events()
        _ = await events.first { _ in true }
        var central: EmulatedCentralManager? = EmulatedCentralManager(bus: try await EmulatorBus(loopbackTo: hub))
        let peer = try await central!.discover(name: "Polite")
        try await central!.connect(peer)
        central = nil
        let event = await events.first { if case .centralDisconnected = $0 { true } else { false } }
        guard case .centralDisconnected(_, let reason)? = event else {
            Issue.record("no disconnection")
            return
        }
        #expect(reason == .remoteUserTerminated)
    }

    @Test("a client that sends garbage is dropped with a log line; another client's link goes on")
    func hostileClient() async throws {
        let (hub, fixture) = try await Self.fixture()
        let lines = Locked<[String]>([])
        let closed = Locked(false)
        let session = HubSession(bus: hub, token: nil, name: "hostile", send: { _ in }, close: { closed.withLock { $0 = true } },
                                 log: { line in lines.withLock { $0.append(line) } })
        session.receive(HubProtocol.hello(token: nil))
        session.receive(HubProtocol.request(1, .attachPeripheral(manager: 1, restoreIdentifier: nil, mtu: nil, device: nil, distance: nil)))
        session.receive([5, 0, 0, 0, 4, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(closed.withLock { $0 })
        #expect(lines.withLock { $0 }.count == 1)
        #expect(lines.withLock { $0 }.first?.hasPrefix("hub: dropped hostile: malformed request frame") == true)
        #expect(try await fixture.central.read(fixture[TestUUID.fixed]) == Data("fixed".utf8))
        // Its peripheral left with it.
        #expect(hub.withEngine { $0.peripherals.count } == 1)
    }

    @Test("a hub with a token refuses a client without it, or with another; welcomes the right one")
    func token() async throws {
        let hub = EmulatorBus(configuration: .instant)
        for (token, reason) in [(nil, "this hub needs a token"), ("guess", "wrong token")] as [(String?, String)] {
            let error = await thrownError { try await EmulatorBus(loopbackTo: hub, token: token, hubToken: "s3cret") }
            #expect(error as? BleuError == .invalidState(.hubConnectionLost(reason: "the hub refused this client: \(reason)")))
        }
        let bus = try await EmulatorBus(loopbackTo: hub, token: "s3cret", hubToken: "s3cret")
        #expect(await EmulatedCentralManager(bus: bus).state == .poweredOn)
    }

    @Test("the hub's configuration and seed reach its clients")
    func configuration() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.centralMTU = 185
        configuration.seed = 77
        let hub = EmulatorBus(configuration: configuration)
        let bus = try await EmulatorBus(loopbackTo: hub)
        #expect(bus.configuration == hub.configuration)
        #expect(bus.seed == 77)
    }

    @Test("passkey entry: the hub asks the central's process, whose handler answers")
    func passkey() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.pairing = PairingConfiguration(method: .passkeyEntry)
        let asked = Locked<[PasskeyRequest]>([])
        let (hub, fixture) = try await Self.fixture(configuration, centralOptions: .init(passkeyHandler: { request in
            asked.withLock { $0.append(request) }
            return request.displayedPasskey
        }))
        #expect(try await fixture.central.read(fixture[TestUUID.authenticated]).isEmpty)
        #expect(asked.withLock { $0.count } == 1)
        #expect(await fixture.central.securityLevel(of: fixture.peripheralID) == .authenticatedSecureConnections)
        withExtendedLifetime(hub) {}
    }

    @Test("a client's trace is the hub's, its newest events as many as one frame holds")
    func trace() async throws {
        let hub = EmulatorBus(configuration: .instant)
        let client = try await EmulatorBus(loopbackTo: hub)
        hub.withEngine { engine in
            for index in 0..<3 { engine.record(.fault, "small \(index)") }
        }
        #expect(client.trace == hub.trace)
        // 10,000 events of about 300 bytes: more than a frame's 1 MiB.
        hub.withEngine { engine in
            for index in 0..<10_000 { engine.record(.fault, String(repeating: "x", count: 280) + " \(index)") }
        }
        let whole = hub.trace
        let crossed = client.trace
        #expect(crossed.count > 3000 && crossed.count < whole.count, "\(crossed.count) of \(whole.count)")
        #expect(crossed == Array(whole.suffix(crossed.count)), "the newest events, in order")
    }

    @Test("an L2CAP channel opened from one process to another carries SDUs both ways")
    func l2cap() async throws {
        let (hub, fixture) = try await Self.fixture()
        var events = fixture.peripheral.events()
        let psm = try await fixture.peripheral.publishL2CAPChannel(requiresEncryption: false)
        let central = try await fixture.central.openL2CAPChannel(psm: psm, on: fixture.peripheralID)
        guard case .l2capChannelOpened(let peripheral)? = await events.first(matching: {
            if case .l2capChannelOpened = $0 { true } else { false }
        }) else {
            Issue.record("no channel at the peripheral")
            return
        }
        #expect(peripheral.psm == psm && central.psm == psm)
        try await central.send(Data("ping".utf8))
        var inbound = peripheral.incoming.makeAsyncIterator()
        #expect(try await inbound.next() == Data("ping".utf8))
        try await peripheral.send(Data("pong".utf8))
        var outbound = central.incoming.makeAsyncIterator()
        #expect(try await outbound.next() == Data("pong".utf8))
        await central.close()
        #expect(try await inbound.next() == nil)
        withExtendedLifetime(hub) {}
    }

    @Test("writes without response arrive in order, each slot freed once the peripheral's process handled its command")
    func writeCommands() async throws {
        let (hub, fixture) = try await Self.fixture()
        for index in 0..<40 {
            // The queue frees a slot once the peripheral's process has handled a command.
            try await fixture.central.writeWithoutResponse(Data([UInt8(index)]), to: fixture[TestUUID.commandOnly])
        }
        try await fixture.central.write(Data("done".utf8), to: fixture[TestUUID.value], type: .withResponse)
        #expect(fixture.store.value(TestUUID.commandOnly) == Data([39]))
        withExtendedLifetime(hub) {}
    }

    /// Whether `condition` holds within a second of polling (state the hub reaches after a
    /// client's connection closes on its own queue; no event announces it).
    func poll(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return condition()
    }
}
