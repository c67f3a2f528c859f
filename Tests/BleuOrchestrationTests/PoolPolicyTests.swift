import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuOrchestration

/// Pinned and pooled together; the score; pinned devices evicting pooled ones;
/// policy changes at run time.
@Suite("Policies: pinned set and dynamic pool")
struct PoolPolicyTests {
    static let ids = (0..<6).map { UUID(uuidString: "00000000-0000-0000-0000-00000000000\($0)")! }

    @Test("the score rises with signal, recency and app priority")
    func score() {
        let policy = PoolPolicy()
        let now = Duration.seconds(100)
        let base = PoolPolicy.Candidate(rssi: -70, lastSeen: now, priority: 0.2)
        var stronger = base; stronger.rssi = -50
        var older = base; older.lastSeen = .seconds(40)
        var favoured = base; favoured.priority = 0.9
        let s = policy.score(base, now: now, incumbent: false)
        #expect(policy.score(stronger, now: now, incumbent: false) > s)
        #expect(policy.score(older, now: now, incumbent: false) < s)
        #expect(policy.score(favoured, now: now, incumbent: false) > s)
        #expect(policy.score(base, now: now, incumbent: true) == s + policy.incumbentBonus)
    }

    @Test("pinned devices always count toward the maximum and push out the weakest pooled ones")
    func pinnedEvictPooled() {
        let policy = PoolPolicy(maximumConcurrency: 4)
        var candidates: [UUID: PoolPolicy.Candidate] = [:]
        for (index, id) in Self.ids.enumerated() {
            candidates[id] = .init(rssi: -40 - 10 * index, lastSeen: .zero, priority: 0)
        }
        #expect(policy.eligible(pinned: [], candidates: candidates, incumbents: [], now: .zero) == Set(Self.ids[0..<4]))
        let pinned: Set = [Self.ids[5]]
        #expect(policy.eligible(pinned: pinned, candidates: candidates, incumbents: [], now: .zero)
                == Set(Self.ids[0..<3]).union(pinned))
        let allPinned = Set(Self.ids[0..<5])
        #expect(policy.eligible(pinned: allPinned, candidates: candidates, incumbents: [], now: .zero) == allPinned,
                "pinning beyond the maximum keeps every pinned device and no pooled one")
    }

    @Test("an incumbent keeps its place against a slightly better newcomer")
    func hysteresis() {
        let policy = PoolPolicy(maximumConcurrency: 1, incumbentBonus: 0.1)
        let candidates: [UUID: PoolPolicy.Candidate] = [
            Self.ids[0]: .init(rssi: -60, lastSeen: .zero, priority: 0),
            Self.ids[1]: .init(rssi: -59, lastSeen: .zero, priority: 0),
        ]
        #expect(policy.eligible(pinned: [], candidates: candidates, incumbents: [Self.ids[0]], now: .zero) == [Self.ids[0]])
        #expect(policy.eligible(pinned: [], candidates: candidates, incumbents: [], now: .zero) == [Self.ids[1]])
    }

    @Test("on the emulator: the pool fills to the maximum, pinning evicts, policy changes connect and disconnect")
    func runTime() async throws {
        let world = try await FleetWorld.make(count: 6)
        defer { world.end() }
        let configuration = FleetConfiguration(profile: FleetUUID.profile, pool: PoolPolicy(maximumConcurrency: 4),
                                               backoff: BackoffPolicy(discoveryTimeout: .seconds(60)))
        let fleet = FleetOrchestrator(central: world.central, configuration: configuration, clock: world.clock, seed: 3,
                                      store: InMemoryPinnedDeviceStore())
        let ids = world.ids
        await fleet.pin(ids[0])
        for index in 1..<6 { await fleet.offer(ids[index], rssi: -40 - 8 * index) }
        await fleet.start()
        let connectedSet: @Sendable (Set<Int>) -> @Sendable ([UUID: DeviceState]) -> Bool = { wanted in
            { states in
                ids.indices.allSatisfy { wanted.contains($0) ? states[ids[$0]] == .ready : states[ids[$0]] == .suspended(.notEligible) }
            }
        }
        #expect(await settle(fleet, world, until: connectedSet([0, 1, 2, 3])))
        await fleet.pin(ids[5])
        #expect(await settle(fleet, world, until: connectedSet([0, 1, 2, 5])), "the pinned device evicts the weakest pooled one")
        #expect(await !world.central.isConnected(ids[3]) || fleet.state(of: ids[3]) == .suspended(.notEligible))
        var policy = await fleet.poolPolicy
        policy.maximumConcurrency = 5
        await fleet.setPool(policy)
        #expect(await settle(fleet, world, until: connectedSet([0, 1, 2, 3, 5])))
        policy.maximumConcurrency = 2
        await fleet.setPool(policy)
        #expect(await settle(fleet, world, until: connectedSet([0, 5])), "pinned devices keep their places")
        await fleet.offer(ids[4], rssi: -30, priority: 1)
        await fleet.unpin(ids[5])
        #expect(await settle(fleet, world, until: connectedSet([0, 4])), "a favoured newcomer takes the pooled place")
        await fleet.shutdown()
    }
}
