import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuOrchestration

/// The degraded states: protocol errors on writes, and full queues — on the reducer and on the
/// emulator.
@Suite("Degraded: operation errors and back-pressure", .timeLimit(.minutes(1)))
struct DegradedTests {
    static func fleet(_ world: FleetWorld, limits: SchedulerLimits = SchedulerLimits()) -> FleetOrchestrator {
        let configuration = FleetConfiguration(profile: FleetUUID.profile, pool: PoolPolicy(maximumConcurrency: 4),
                                               backoff: BackoffPolicy(discoveryTimeout: .seconds(60)), scheduler: limits)
        return FleetOrchestrator(central: world.central, configuration: configuration, clock: world.clock, seed: 31,
                                 store: InMemoryPinnedDeviceStore())
    }

    @Test("the reducer: the third protocol write error in a row degrades a ready device; a write that succeeds restores it")
    func operationErrorsReducer() {
        var machine = ReconnectionPropertyTests.readyMachine(policy: .default)
        #expect(machine.apply(.writeFailed(.protocolError), now: .zero).isEmpty)
        #expect(machine.apply(.writeFailed(.transientLinkLoss), now: .zero).isEmpty, "only protocol errors count")
        #expect(machine.apply(.writeFailed(.protocolError), now: .zero).isEmpty)
        #expect(machine.state == .ready)
        _ = machine.apply(.writeSucceeded, now: .zero)
        #expect(machine.writeErrors == 0, "a success resets the count")
        for _ in 0..<DeviceMachine.writeErrorThreshold { _ = machine.apply(.writeFailed(.protocolError), now: .zero) }
        #expect(machine.state == .degraded(.operationErrors))
        #expect(machine.apply(.writeSucceeded, now: .zero) == [.flushOutgoing])
        #expect(machine.state == .ready)
    }

    @Test("on the emulator: writes answered with ATT errors degrade the device, the next confirmed write restores it")
    func operationErrorsEmulator() async throws {
        let world = try await FleetWorld.make(count: 1)
        defer { world.end() }
        let fleet = Self.fleet(world)
        let id = world.ids[0]
        await fleet.pin(id)
        await fleet.start()
        #expect(await settle(fleet, world, until: allReady([id])))
        let events = fleet.events()
        world.responses.withLock { $0.failNext = DeviceMachine.writeErrorThreshold }
        try fleet.send(Data(repeating: 7, count: 300), to: id, qos: .interactive)
        var path: [DeviceState] = []
        for await event in events {
            if case .stateChanged(id, _, let to, _) = event { path.append(to) }
            if path.last == .ready { break }
        }
        #expect(path == [.degraded(.operationErrors), .ready])
        #expect(await settle(fleet, world) { _ in fleet.writeCounts(of: id).messages == 1 }, "the message went through in the end")
        await fleet.shutdown()
    }

    @Test("on the emulator: a full queue degrades the device (back-pressure); draining it restores ready")
    func backPressureEmulator() async throws {
        let world = try await FleetWorld.make(count: 1)
        defer { world.end() }
        let limits = SchedulerLimits(capacity: [.control: 2, .interactive: 2, .bulk: 3])
        let fleet = Self.fleet(world, limits: limits)
        let id = world.ids[0]
        await fleet.pin(id)
        await fleet.start()
        #expect(await settle(fleet, world, until: allReady([id])))
        // The peripheral holds its answers back: the first message stays in flight, the rest wait.
        world.responses.withLock { $0.hold = true }
        for number in 0..<limits.capacity(of: .bulk) { try fleet.send(Data([UInt8(number)]), to: id, qos: .bulk) }
        #expect(await settle(fleet, world) { $0[id] == .degraded(.backPressure) })
        #expect(throws: FleetError.queueFull(device: id, qos: .bulk, limit: 3)) { try fleet.send(Data([9]), to: id, qos: .bulk) }
        await world.releaseResponses()
        #expect(await settle(fleet, world) { states in states[id] == .ready && fleet.writeCounts(of: id).messages == 3 })
        #expect(fleet.queueDepth(of: id, qos: .bulk) == 0)
        await fleet.shutdown()
    }
}
