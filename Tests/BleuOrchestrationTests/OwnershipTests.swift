import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuOrchestration

/// On the emulator: the pinned set reaches ready, comes back after link
/// loss (re-subscribing), respects the gates and the global cap, all in virtual time.
@Suite("Ownership, gating and the pinned set on the emulator")
struct OwnershipTests {
    static func fleet(_ world: FleetWorld, attempts: Int = 4, backoff: BackoffPolicy = BackoffPolicy(discoveryTimeout: .seconds(60)),
                      seed: UInt64 = 42) -> FleetOrchestrator {
        let configuration = FleetConfiguration(profile: FleetUUID.profile, pool: PoolPolicy(maximumConcurrency: 64),
                                               maximumConnectionAttempts: attempts, connectTimeout: .seconds(5), backoff: backoff)
        return FleetOrchestrator(central: world.central, configuration: configuration, clock: world.clock, seed: seed,
                                 store: InMemoryPinnedDeviceStore())
    }

    /// A world of `count` advertising devices, each pinned in a started fleet and ready; runs
    /// `body` with both, then shuts the fleet down.
    static func withReadyFleet(count: Int, sourceLocation: SourceLocation = #_sourceLocation,
                               _ body: (FleetWorld, FleetOrchestrator) async throws -> Void) async throws {
        let world = try await FleetWorld.make(count: count)
        defer { world.end() }
        let fleet = Self.fleet(world)
        for id in world.ids { await fleet.pin(id) }
        await fleet.start()
        #expect(await settle(fleet, world, until: allReady(world.ids)), "every device ready", sourceLocation: sourceLocation)
        try await body(world, fleet)
        await fleet.shutdown()
    }

    @Test("pinned devices become ready without user action, each subscribed once")
    func pinnedReady() async throws {
        let world = try await FleetWorld.make(count: 6)
        defer { world.end() }
        let fleet = Self.fleet(world)
        for id in world.ids { await fleet.pin(id) }
        #expect(fleet.states.values.allSatisfy { $0 == .idle }, "nothing happens before start")
        await fleet.start()
        #expect(await settle(fleet, world, until: allReady(world.ids)))
        for index in world.ids.indices { #expect(await world.record(index, afterSubscriptions: 1).subscriptions == 1) }
        for id in world.ids { #expect(await world.central.isConnected(id)) }
        let statistics = await fleet.radioStatistics
        #expect(statistics.overlapping == 0 && statistics.attempts == world.ids.count)
        await fleet.shutdown()
    }

    @Test("a ready device lets go of its finished radio operations' tasks (each kept its task memory)")
    func finishedOperationsReleased() async throws {
        try await Self.withReadyFleet(count: 3) { world, fleet in
            #expect(await fleet.heldOperations() == 0, "no finished operation is held once every device is ready")
        }
    }

    @Test("after a link loss a pinned device retries fast, is ready again and subscribed again")
    func reconnectAndResubscribe() async throws {
        try await Self.withReadyFleet(count: 3) { world, fleet in
            let lost = world.ids[1]
            var events = fleet.events().makeAsyncIterator()
            let before = world.clock.now
            world.bus.loseLink(between: world.central, and: lost)
            var sawBackoff = false
            while let event = await events.next() {
                if case .stateChanged(lost, .ready, .backingOff(1, let deadline), let at) = event {
                    #expect(deadline - at == BackoffPolicy.default.fastRetryDelay, "the first retry after a transient loss is fast")
                    sawBackoff = true
                    break
                }
            }
            #expect(sawBackoff)
            #expect(await settle(fleet, world, until: allReady(world.ids)))
            #expect(before.duration(to: world.clock.now) <= BackoffPolicy.default.fastRetryDelay,
                    "ready again within the fast retry, in virtual time")
            #expect(await world.record(1, afterSubscriptions: 2).subscriptions == 2, "re-subscribed after the reconnect")
            #expect(world.record(0).subscriptions == 1 && world.record(2).subscriptions == 1)
        }
    }

    @Test("no attempt while the central is off; every device returns when it is on again")
    func radioGate() async throws {
        try await Self.withReadyFleet(count: 4) { world, fleet in
            let attemptsBefore = await fleet.radioStatistics.attempts
            world.bus.setState(.poweredOff, of: world.central)
            #expect(await settle(fleet, world) { states in
                world.ids.allSatisfy { states[$0] == .suspended(.radioUnavailable(.poweredOff)) }
            })
            // Each device handled the power-off in full and has no timer armed, so nothing but an
            // event can make it act: however long the radio stays off, no attempt follows.
            #expect(await fleet.armedTimers() == 0)
            world.clock.advance(by: .seconds(600))
            #expect(await fleet.armedTimers() == 0)
            #expect(await fleet.radioStatistics.attempts == attemptsBefore, "no attempt while powered off")
            world.bus.setState(.poweredOn, of: world.central)
            #expect(await settle(fleet, world, until: allReady(world.ids)))
        }
    }

    @Test("stop gives up every link; start brings them back")
    func stopAndStart() async throws {
        try await Self.withReadyFleet(count: 3) { world, fleet in
            await fleet.stop()
            #expect(await settle(fleet, world) { states in world.ids.allSatisfy { states[$0] == .suspended(.stopped) } })
            for id in world.ids {
                var connected = true
                for _ in 0..<100 where connected {
                    connected = await world.central.isConnected(id)
                    await Task.yield()
                }
                #expect(!connected)
            }
            await fleet.start()
            #expect(await settle(fleet, world, until: allReady(world.ids)))
        }
    }

    @Test("the global cap holds: never more attempts at once than allowed, never two to one device")
    func globalCap() async throws {
        let world = try await FleetWorld.make(count: 8)
        defer { world.end() }
        // Not advertising: attempts wait (until their timeout), so they pile up against the cap.
        for peripheral in world.peripherals { await peripheral.stopAdvertising() }
        let fleet = Self.fleet(world, attempts: 2)
        for id in world.ids { await fleet.pin(id) }
        await fleet.start()
        #expect(await settle(fleet, world) { states in world.ids.filter { states[$0] == .connecting }.count == world.ids.count })
        for _ in 0..<200 { await Task.yield() }
        #expect(await fleet.radios.owner(0).activeAttempts == 2)
        for (index, peripheral) in world.peripherals.enumerated() {
            try await peripheral.startAdvertising(AdvertisingData(localName: "F\(index)", serviceUUIDs: [FleetUUID.service]))
        }
        #expect(await settle(fleet, world, until: allReady(world.ids)))
        let statistics = await fleet.radioStatistics
        #expect(statistics.peak == 2)
        #expect(statistics.overlapping == 0)
        await fleet.shutdown()
    }

    @Test("a device missing a characteristic opens the circuit instead of hammering the radio")
    func protocolFailuresOpenTheCircuit() async throws {
        let world = try await FleetWorld.make(count: 1)
        defer { world.end() }
        var profile = FleetUUID.profile
        profile.subscriptions.append(BluetoothUUID(string: "8E7F00FF-5B4C-4E2A-9C1D-0A1B2C3D4E5F")!)
        let configuration = FleetConfiguration(profile: profile, pool: PoolPolicy(maximumConcurrency: 4),
                                               backoff: BackoffPolicy(circuitBreakerThreshold: 3, circuitCooldown: .seconds(600)))
        let fleet = FleetOrchestrator(central: world.central, configuration: configuration, clock: world.clock, seed: 1,
                                      store: InMemoryPinnedDeviceStore())
        await fleet.pin(world.ids[0])
        await fleet.start()
        #expect(await settle(fleet, world) { $0[world.ids[0]] == .suspended(.circuitOpen) })
        #expect(await fleet.radioStatistics.attempts == 3)
        await fleet.shutdown()
    }
}
