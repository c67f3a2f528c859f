import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuOrchestration

/// Across devices: a device with a full bulk backlog next to light devices on one
/// radio, on the realistic link in virtual time. Each device has its own pump, so the light
/// devices are done long before the heavy one; a scheduler that served devices in turn from one
/// queue would make them wait for the whole backlog.
@Suite("Fairness across devices", .timeLimit(.minutes(2)))
struct FairnessTests {
    @Test("light devices finish within a bound while a heavy device's backlog is still draining")
    func lightDevicesAreNotHeldUp() async throws {
        var emulator = EmulatorConfiguration.default
        emulator.connectionInterval = .microseconds(7500)
        emulator.advertisingInterval = .milliseconds(20)
        emulator.rssi.variation = 0
        emulator.seed = 5
        let world = try await FleetWorld.make(count: 4, configuration: emulator)
        defer { world.end() }
        let limits = SchedulerLimits(capacity: [.control: 8, .interactive: 8, .bulk: 64])
        let configuration = FleetConfiguration(profile: FleetUUID.profile, pool: PoolPolicy(maximumConcurrency: 4),
                                               backoff: BackoffPolicy(discoveryTimeout: .seconds(60)), scheduler: limits)
        let fleet = FleetOrchestrator(central: world.central, configuration: configuration, clock: world.clock, seed: 41,
                                      store: InMemoryPinnedDeviceStore())
        for id in world.ids { await fleet.pin(id) }
        await fleet.start()
        // On the realistic link every radio operation waits on the clock: little patience before
        // moving it on, one connection interval at a time, and room for many steps.
        #expect(await settle(fleet, world, rounds: 40_000, busyPatience: 40, maximumStep: emulator.connectionInterval, until: allReady(world.ids)))

        let heavy = world.ids[0]
        let light = Array(world.ids[1...])
        let message = Data(repeating: 0xA5, count: 1000)
        let backlog = limits.capacity(of: .bulk)
        let start = world.clock.now
        for _ in 0..<backlog { try fleet.send(message, to: heavy, qos: .bulk) }
        for id in light {
            for _ in 0..<2 { try fleet.send(message, to: id, qos: .bulk) }
        }
        #expect(await settle(fleet, world, rounds: 40_000, busyPatience: 40, maximumStep: emulator.connectionInterval) { _ in
            light.allSatisfy { fleet.writeCounts(of: $0).messages == 2 }
        })
        let lightDone = start.duration(to: world.clock.now)
        let heavyThen = fleet.writeCounts(of: heavy).messages
        #expect(await settle(fleet, world, rounds: 40_000, busyPatience: 40, maximumStep: emulator.connectionInterval) { _ in fleet.writeCounts(of: heavy).messages == backlog })
        let heavyDone = start.duration(to: world.clock.now)
        print("fairness: light devices done after \(lightDone) (heavy then \(heavyThen)/\(backlog)); heavy done after \(heavyDone)")

        // Bound: two 1000-byte messages take a handful of connection events on an idle link; a
        // shared radio may stretch that, but not to the heavy device's backlog.
        #expect(lightDone <= emulator.connectionInterval * 40, "light devices took \(lightDone)")
        #expect(heavyThen * 4 <= backlog, "the heavy backlog was still draining when the light devices were done")
        #expect(lightDone * 4 <= heavyDone)
        await fleet.shutdown()
    }
}
