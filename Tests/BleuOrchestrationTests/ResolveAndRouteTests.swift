import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuOrchestration

/// Resolving devices the central does not know, and disconnections the engine did not cause.
@Suite("Resolving by scan; links cancelled by others", .timeLimit(.minutes(1)))
struct ResolveAndRouteTests {
    static func fleet(_ central: any CentralManager, _ world: FleetWorld, scanTimeout: Duration = .seconds(10)) -> FleetOrchestrator {
        let configuration = FleetConfiguration(profile: FleetUUID.profile, pool: PoolPolicy(maximumConcurrency: 16),
                                               scanTimeout: scanTimeout, backoff: BackoffPolicy(discoveryTimeout: .seconds(60)))
        return FleetOrchestrator(central: central, configuration: configuration, clock: world.clock, seed: 21,
                                 store: InMemoryPinnedDeviceStore())
    }

    @Test("a fresh central (no restoration, never scanned) finds pinned devices by scanning and gets them ready")
    func resolveByScanning() async throws {
        let world = try await FleetWorld.make(count: 4, deviceIdentifier: "phone")
        defer { world.end() }
        // The same phone after a restart without restoration: the same identifiers, none known.
        let fresh = EmulatedCentralManager(bus: world.bus, options: .init(deviceIdentifier: "phone"))
        #expect(await fresh.retrievePeripherals(withIdentifiers: world.ids).isEmpty, "retrieving misses every device")
        let fleet = Self.fleet(fresh, world)
        for id in world.ids { await fleet.pin(id) }
        await fleet.start()
        #expect(await settle(fleet, world, until: allReady(world.ids)))
        for id in world.ids { #expect(await fresh.isConnected(id)) }
        await fleet.shutdown()
    }

    @Test("a device that is nowhere to be heard fails to resolve after the scan timeout and backs off")
    func resolveTimesOut() async throws {
        let world = try await FleetWorld.make(count: 1, deviceIdentifier: "phone")
        defer { world.end() }
        await world.peripherals[0].stopAdvertising()
        let fresh = EmulatedCentralManager(bus: world.bus, options: .init(deviceIdentifier: "phone"))
        let fleet = Self.fleet(fresh, world, scanTimeout: .seconds(3))
        let events = fleet.events()
        await fleet.pin(world.ids[0])
        await fleet.start()
        #expect(await settle(fleet, world) { $0[world.ids[0]]?.name == "backingOff" })
        for await event in events {
            if case .stateChanged(_, .resolving, .backingOff, let at) = event {
                #expect(at == .seconds(3), "the scan gave up at its timeout, in virtual time")
                break
            }
        }
        // Advertising again: the next attempt's scan hears it.
        try await world.peripherals[0].startAdvertising(AdvertisingData(localName: "F0", serviceUUIDs: [FleetUUID.service]))
        #expect(await settle(fleet, world, until: allReady(world.ids)))
        await fleet.shutdown()
    }

    @Test("a link cancelled by someone else on the same central does not leave the device ready on a dead link")
    func foreignCancel() async throws {
        let world = try await FleetWorld.make(count: 2)
        defer { world.end() }
        let fleet = Self.fleet(world.central, world)
        for id in world.ids { await fleet.pin(id) }
        await fleet.start()
        #expect(await settle(fleet, world, until: allReady(world.ids)))
        let victim = world.ids[0]
        let events = fleet.events()
        // Another part of the app uses the same central and hangs up on the device.
        await world.central.cancelConnection(victim)
        var left = false
        for await event in events {
            if case .stateChanged(victim, .ready, let to, _) = event {
                #expect(to.name == "backingOff")
                left = true
                break
            }
        }
        #expect(left)
        #expect(await settle(fleet, world, until: allReady(world.ids)))
        #expect(await world.central.isConnected(victim), "reconnected")
        #expect(await world.record(0, afterSubscriptions: 2).subscriptions == 2, "and subscribed again")
        // The engine's own cancels are still not news: stopping leaves every device stopped.
        await fleet.stop()
        #expect(await settle(fleet, world) { states in world.ids.allSatisfy { states[$0] == .suspended(.stopped) } })
        await fleet.shutdown()
    }
}
