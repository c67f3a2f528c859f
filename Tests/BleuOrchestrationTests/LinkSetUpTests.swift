import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuOrchestration

/// A user's own set-up of each link (the actor system's), in place of the profile's discovery.
@Suite("A user's link set-up, forgetting devices, restarting links")
struct LinkSetUpTests {
    /// What the hooks saw, per device.
    final class Recorder: Sendable {
        private let calls = Locked<(prepared: [UUID: Int], ended: [UUID: Int], failing: Set<UUID>)>(([:], [:], []))

        func prepare(_ device: UUID) throws {
            try calls.withLock { calls in
                calls.prepared[device, default: 0] += 1
                if calls.failing.contains(device) { throw BleuError.serviceNotFound(FleetUUID.profile.service) }
            }
        }

        func ended(_ device: UUID) { calls.withLock { $0.ended[device, default: 0] += 1 } }
        func fail(_ device: UUID, _ failing: Bool) {
            calls.withLock { calls in
                if failing { calls.failing.insert(device) } else { calls.failing.remove(device) }
            }
        }
        func prepared(_ device: UUID) -> Int { calls.withLock { $0.prepared[device] ?? 0 } }
        func endedCount(_ device: UUID) -> Int { calls.withLock { $0.ended[device] ?? 0 } }
    }

    static func fleet(_ world: FleetWorld, _ recorder: Recorder) -> FleetOrchestrator {
        let configuration = FleetConfiguration(profile: FleetUUID.profile, pool: PoolPolicy(maximumConcurrency: 64),
                                               connectTimeout: .seconds(5), backoff: BackoffPolicy(discoveryTimeout: .seconds(60)))
        return FleetOrchestrator(central: world.central, configuration: configuration, clock: world.clock, seed: 7,
                                 store: InMemoryPinnedDeviceStore(),
                                 setUp: LinkSetUp(prepare: { try recorder.prepare($0) }, linkEnded: { recorder.ended($0) }))
    }

    /// `count` pinned devices, each ready through the recorder's set-up.
    static func readyFleet(count: Int) async throws -> (FleetWorld, Recorder, FleetOrchestrator) {
        let world = try await FleetWorld.make(count: count)
        let recorder = Recorder()
        let fleet = Self.fleet(world, recorder)
        for id in world.ids { await fleet.pin(id) }
        await fleet.start()
        #expect(await settle(fleet, world, until: allReady(world.ids)))
        return (world, recorder, fleet)
    }

    @Test("each link is set up by the user's prepare instead of the profile's discovery; a loss ends it and the next link is prepared again")
    func preparedPerLink() async throws {
        let (world, recorder, fleet) = try await Self.readyFleet(count: 2)
        defer { world.end() }
        for (index, id) in world.ids.enumerated() {
            #expect(recorder.prepared(id) == 1)
            #expect(world.record(index).subscriptions == 0, "the profile's subscriptions are the user's business now")
        }
        world.bus.loseLink(between: world.central, and: world.ids[0])
        #expect(await settle(fleet, world, until: { states in
            states[world.ids[0]] == .ready && recorder.prepared(world.ids[0]) == 2
        }))
        #expect(recorder.endedCount(world.ids[0]) == 1)
        #expect(recorder.endedCount(world.ids[1]) == 0)
        await fleet.shutdown()
    }

    @Test("a prepare that throws fails the attempt as the engine classifies the error: protocol errors back off and open the circuit")
    func failingPrepare() async throws {
        let world = try await FleetWorld.make(count: 1)
        defer { world.end() }
        let recorder = Recorder()
        let id = world.ids[0]
        recorder.fail(id, true)
        let fleet = Self.fleet(world, recorder)
        await fleet.pin(id)
        await fleet.start()
        #expect(await settle(fleet, world, until: { $0[id] == .suspended(.circuitOpen) }))
        #expect(recorder.prepared(id) == BackoffPolicy.default.circuitBreakerThreshold)
        #expect(recorder.endedCount(id) == recorder.prepared(id), "every failed set-up's link was ended")
        #expect(await !world.central.isConnected(id))
        recorder.fail(id, false)
        #expect(await settle(fleet, world, until: { $0[id] == .ready }))
        await fleet.shutdown()
    }

    @Test("forget gives up the link and drops the device's state; reconnect sets up a new link")
    func forgetAndReconnect() async throws {
        let (world, recorder, fleet) = try await Self.readyFleet(count: 2)
        defer { world.end() }
        await fleet.reconnect(world.ids[1])
        #expect(await settle(fleet, world, until: { states in
            states[world.ids[1]] == .ready && recorder.prepared(world.ids[1]) == 2
        }))
        await fleet.forget(world.ids[0])
        #expect(fleet.state(of: world.ids[0]) == nil)
        #expect(await fleet.pinnedDevices == [world.ids[1]])
        #expect(recorder.endedCount(world.ids[0]) == 1)
        #expect(await !world.central.isConnected(world.ids[0]))
        #expect(await world.central.isConnected(world.ids[1]))
        await fleet.shutdown()
    }
}
