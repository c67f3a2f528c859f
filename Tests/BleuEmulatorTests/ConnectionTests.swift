import BleuCore
import Foundation
import Testing
@testable import BleuEmulator

/// Connections.
@Suite("Connections")
struct ConnectionTests {
    /// A peripheral the central has heard, then stopped advertising.
    static func silentPeripheral(_ bus: EmulatorBus) async throws -> (EmulatedPeripheralManager, EmulatedCentralManager, UUID) {
        let peripheral = EmulatedPeripheralManager(bus: bus)
        try await peripheral.startAdvertising(AdvertisingData(localName: "quiet"))
        let central = EmulatedCentralManager(bus: bus)
        let id = try await central.discover(name: "quiet")
        await peripheral.stopAdvertising()
        return (peripheral, central, id)
    }

    @Test("connecting to a peripheral that stopped advertising times out after the timeout, on the bus's clock")
    func timeout() async throws {
        let clock = ManualClock()
        let bus = EmulatorBus(configuration: .instant, clock: clock)
        let (peripheral, central, id) = try await Self.silentPeripheral(bus)
        defer { withExtendedLifetime(peripheral) {} }
        let attempt = Task { try await central.connect(id, timeout: .seconds(5)) }
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1, "still waiting at 4 s")
        clock.advance(by: .seconds(1))
        #expect(await throwsError(.connectionTimeout(id)) { try await attempt.value })
        #expect(await !central.isConnected(id))
    }

    /// A connection attempt (5 s timeout) to the device "lock", pending since its app went
    /// away, on a bus timed by the returned clock.
    static func attemptWhileLockIsGone() async throws -> (ManualClock, EmulatedCentralManager, UUID, Task<Void, any Error>) {
        let clock = ManualClock()
        let (central, id) = try await vanishedLock(EmulatorBus(configuration: .instant, clock: clock))
        let attempt = Task { try await central.connect(id, timeout: .seconds(5)) }
        while clock.sleeperCount == 0 { await Task.yield() }
        return (clock, central, id, attempt)
    }

    /// A central that heard the device "lock", whose app then went away.
    static func vanishedLock(_ bus: EmulatorBus) async throws -> (EmulatedCentralManager, UUID) {
        var first: EmulatedPeripheralManager? = EmulatedPeripheralManager(bus: bus, options: .init(deviceIdentifier: "lock"))
        try await first?.startAdvertising(AdvertisingData(localName: "lock"))
        let central = EmulatedCentralManager(bus: bus)
        let id = try await central.discover(name: "lock")
        first = nil
        return (central, id)
    }

    @Test("a device whose app restarts keeps its identifier: an attempt pending across the restart completes when it advertises")
    func attemptAcrossAppRestart() async throws {
        let (_, central, id, attempt) = try await Self.attemptWhileLockIsGone()
        let second = EmulatedPeripheralManager(bus: central.bus, options: .init(deviceIdentifier: "lock"))
        try await second.startAdvertising(AdvertisingData(localName: "lock"))
        try await attempt.value
        #expect(await central.isConnected(id))
    }

    @Test("an attempt pending across a restart of the device's app still times out on time when the app does not advertise")
    func attemptAcrossAppRestartTimesOut() async throws {
        let (clock, central, id, attempt) = try await Self.attemptWhileLockIsGone()
        let second = EmulatedPeripheralManager(bus: central.bus, options: .init(deviceIdentifier: "lock"))
        defer { withExtendedLifetime(second) {} }
        clock.advance(by: .seconds(5))
        #expect(await throwsError(.connectionTimeout(id)) { try await attempt.value })
    }

    @Test("an attempt waits for the peripheral to advertise; cancelConnection and task cancellation end it")
    func pendingAttempts() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let (peripheral, central, id) = try await Self.silentPeripheral(bus)
        var events = central.events()
        let waiting = Task { try await central.connect(id) }
        let cancelled = Task { try await central.connect(id) }
        cancelled.cancel()
        #expect(await throwsError(.cancelled) { try await cancelled.value })
        try await peripheral.startAdvertising(AdvertisingData(localName: "quiet"))
        try await waiting.value
        #expect(await central.isConnected(id))
        _ = await events.first { if case .connected = $0 { true } else { false } }
        await central.cancelConnection(id)
        await peripheral.stopAdvertising()
        let third = Task { try await central.connect(id) }
        while bus.withEngine({ $0.centrals.values.first?.pending.isEmpty ?? true }) { await Task.yield() }
        await central.cancelConnection(id)
        #expect(await throwsError(.cancelled) { try await third.value })
    }

    @Test("disconnecting from either side gives each side its reason")
    func disconnectReasons() async throws {
        let fixture = try await Fixture.make()
        var centralEvents = fixture.central.events()
        var peripheralEvents = fixture.peripheral.events()
        await fixture.central.cancelConnection(fixture.peripheralID)
        #expect(await Self.centralReason(&centralEvents) == .localHostTerminated)
        #expect(await Self.peripheralReason(&peripheralEvents) == .remoteUserTerminated)
        try await fixture.central.connect(fixture.peripheralID)
        let central = try #require(await fixture.peripheral.connectedCentrals.first)
        await fixture.peripheral.disconnect(central)
        #expect(await Self.centralReason(&centralEvents) == .remoteUserTerminated)
        #expect(await Self.peripheralReason(&peripheralEvents) == .localHostTerminated)
    }

    @Test("a lost link is reported to both sides with the supervision timeout, after the timeout")
    func linkLoss() async throws {
        let clock = ManualClock()
        var configuration = EmulatorConfiguration.default
        configuration.supervisionTimeout = .milliseconds(500)
        let bus = EmulatorBus(configuration: configuration, clock: clock)
        let fixture = try await Self.connectRealistic(bus: bus, clock: clock)
        var centralEvents = fixture.central.events()
        var peripheralEvents = fixture.peripheral.events()
        bus.loseLink(between: fixture.central, and: fixture.peripheralID)
        clock.advance(by: .milliseconds(499))
        #expect(await fixture.central.isConnected(fixture.peripheralID), "nobody notices before the supervision timeout")
        clock.advance(by: .milliseconds(1))
        #expect(await Self.centralReason(&centralEvents) == .supervisionTimeout)
        #expect(await Self.peripheralReason(&peripheralEvents) == .supervisionTimeout)
    }

    @Test("moving a peripheral out of range loses its links; back in range it can connect again")
    func outOfRange() async throws {
        let fixture = try await Fixture.make()
        var events = fixture.central.events()
        fixture.bus.setDistance(1_000, of: fixture.peripheral)
        #expect(await Self.centralReason(&events) == .supervisionTimeout)
        #expect(try await MediumTests.heard(by: fixture.central).isEmpty)
        let attempt = Task { try await fixture.central.connect(fixture.peripheralID) }
        fixture.bus.setDistance(2, of: fixture.peripheral)
        try await attempt.value
        #expect(await fixture.central.isConnected(fixture.peripheralID))
    }

    @Test("powering a central off drops its links (it reports poweredOff, the peer HCI 0x15) and fails operations")
    func centralPower() async throws {
        let fixture = try await Fixture.make()
        var centralEvents = fixture.central.events()
        var peripheralEvents = fixture.peripheral.events()
        fixture.bus.setState(.poweredOff, of: fixture.central)
        #expect(await fixture.central.state == .poweredOff)
        #expect(await Self.centralReason(&centralEvents) == .poweredOff)
        let peerReason = await Self.peripheralReason(&peripheralEvents)
        #expect(peerReason == .poweredOff && peerReason?.hciCode == 0x15, "the peer's controller reports HCI 0x15")
        #expect(await throwsError(.bluetoothPoweredOff) { try await fixture.central.connect(fixture.peripheralID) })
        #expect(await throwsError(.bluetoothPoweredOff) { try await fixture.central.read(fixture[TestUUID.value]) })
        fixture.bus.setState(.unauthorized, of: fixture.central)
        #expect(await throwsError(.bluetoothUnauthorized) { try await fixture.central.scan() })
        fixture.bus.setState(.poweredOn, of: fixture.central)
        var states: [ManagerState] = []
        for await event in fixture.central.events() {
            if case .stateChanged(let state) = event { states.append(state) }
            break
        }
        #expect(states == [.poweredOn], "a new event stream starts with the current state")
        try await fixture.central.connect(fixture.peripheralID)
        #expect(try await fixture.central.read(fixture[TestUUID.fixed]) == Data("fixed".utf8))
    }

    @Test("losing the permission drops a central's links as its host ending them (0x16 here, 0x13 at the peer), not as a power off")
    func centralUnauthorized() async throws {
        let fixture = try await Fixture.make()
        var centralEvents = fixture.central.events()
        var peripheralEvents = fixture.peripheral.events()
        let values = try await fixture.central.subscribe(to: fixture[TestUUID.stream])
        fixture.bus.setState(.unauthorized, of: fixture.central)
        #expect(await fixture.central.state == .unauthorized)
        #expect(await Self.centralReason(&centralEvents) == .localHostTerminated)
        #expect(await Self.peripheralReason(&peripheralEvents) == .remoteUserTerminated)
        #expect(await !fixture.central.isConnected(fixture.peripheralID))
        #expect(await fixture.peripheral.connectedCentrals.isEmpty, "the peripheral lost the link too")
        let ended = await thrownError { for try await _ in values {} }
        #expect(ended as? BleuError == .disconnected(fixture.peripheralID, .localHostTerminated))
        #expect(await throwsError(.bluetoothUnauthorized) { try await fixture.central.read(fixture[TestUUID.value]) })
        #expect(await throwsError(.bluetoothUnauthorized) { try await fixture.central.connect(fixture.peripheralID) })
        #expect(fixture.bus.trace.last { $0.kind == .disconnected }?.detail
                == "central: \(DisconnectReason.localHostTerminated); peripheral: \(DisconnectReason.remoteUserTerminated)")
    }

    @Test("a peripheral losing the permission drops its links the same way, roles swapped")
    func peripheralUnauthorized() async throws {
        let fixture = try await Fixture.make()
        var centralEvents = fixture.central.events()
        var peripheralEvents = fixture.peripheral.events()
        fixture.bus.setState(.unauthorized, of: fixture.peripheral)
        #expect(await Self.centralReason(&centralEvents) == .remoteUserTerminated)
        #expect(await Self.peripheralReason(&peripheralEvents) == .localHostTerminated)
        #expect(await !fixture.peripheral.isAdvertising)
        #expect(await !fixture.central.isConnected(fixture.peripheralID))
    }

    @Test("powering a peripheral off stops advertising, drops links and clears its services")
    func peripheralPower() async throws {
        let fixture = try await Fixture.make()
        var centralEvents = fixture.central.events()
        fixture.bus.setState(.poweredOff, of: fixture.peripheral)
        let peerReason = await Self.centralReason(&centralEvents)
        #expect(peerReason == .poweredOff && peerReason?.hciCode == 0x15, "the peer's controller reports HCI 0x15")
        #expect(await !fixture.peripheral.isAdvertising)
        #expect(await throwsError(.bluetoothPoweredOff) { try await fixture.peripheral.add(.test) })
        fixture.bus.setState(.poweredOn, of: fixture.peripheral)
        try await fixture.peripheral.startAdvertising(AdvertisingData(localName: "Test"))
        try await fixture.central.connect(fixture.peripheralID)
        #expect(try await fixture.central.discoverServices(nil, on: fixture.peripheralID).isEmpty, "services must be added again")
    }

    @Test("a central holds at most its maximum number of connections")
    func maximumConnections() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.maximumConnectionsPerCentral = 2
        let bus = EmulatorBus(configuration: configuration)
        let central = EmulatedCentralManager(bus: bus)
        var ids: [UUID] = []
        var peripherals: [EmulatedPeripheralManager] = []
        for i in 0..<3 {
            let peripheral = EmulatedPeripheralManager(bus: bus)
            try await peripheral.startAdvertising(AdvertisingData(localName: "p\(i)"))
            peripherals.append(peripheral)
            ids.append(try await central.discover(name: "p\(i)"))
        }
        try await central.connect(ids[0])
        try await central.connect(ids[1])
        try await central.connect(ids[1])
        let error = await thrownError { try await central.connect(ids[2]) }
        #expect((error as? BleuError).map { if case .limitReached = $0 { true } else { false } } == true)
        await central.cancelConnection(ids[0])
        try await central.connect(ids[2])
        #expect(await central.retrieveConnectedPeripherals(withServices: []).map(\.id).sorted { $0.uuidString < $1.uuidString }
            == [ids[1], ids[2]].sorted { $0.uuidString < $1.uuidString })
        #expect(await central.retrievePeripherals(withIdentifiers: [ids[0], UUID()]).map(\.id) == [ids[0]])
    }

    // MARK: Helpers

    static func centralReason(_ events: inout AsyncStream<CentralEvent>) async -> DisconnectReason? {
        guard case .disconnected(_, let reason)? = await events.first(matching: { if case .disconnected = $0 { true } else { false } })
        else { return nil }
        return reason
    }

    static func peripheralReason(_ events: inout AsyncStream<PeripheralEvent>) async -> DisconnectReason? {
        guard case .centralDisconnected(_, let reason)? = await events.first(matching: {
            if case .centralDisconnected = $0 { true } else { false }
        }) else { return nil }
        return reason
    }

    /// A connected fixture on a realistic bus driven by a manual clock.
    static func connectRealistic(bus: EmulatorBus, clock: ManualClock) async throws -> Fixture {
        try await drive(clock) { try await Fixture.make(on: bus) }
    }
}
