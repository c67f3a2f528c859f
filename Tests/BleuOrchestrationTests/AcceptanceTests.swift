import BleuCore
import BleuEmulator
import BleuWire
import Foundation
import Testing
@testable import BleuOrchestration

/// The acceptance test of the issue: 16 pinned and 16 pooled peripherals, at most 24 connected,
/// under `.unreliable` faults and explicit link losses, for a bounded run in virtual time.
/// Prints its seeds; set BLEU_FLEET_SEED to replay one.
@Suite("Acceptance · a fleet under faults")
struct AcceptanceTests {
    @Test("16 pinned + 16 pooled, max 24, .unreliable: recovery within bounds, no overlap, bounded queues, data whole and in order")
    func fleetUnderFaults() async throws {
        let seed = ProcessInfo.processInfo.environment["BLEU_FLEET_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0 ... .max)
        print("acceptance: seed \(seed) (replay with BLEU_FLEET_SEED=\(seed))")
        // `.unreliable`'s faults (10 % of connections fail, 5 % of requests get an ATT error, one
        // PDU in 1,000 loses the link) on instant timing, so the run takes seconds, not minutes.
        var emulator = EmulatorConfiguration.unreliable
        emulator.timing = .instant
        emulator.seed = seed
        let world = try await FleetWorld.make(count: 32, configuration: emulator, withoutResponse: { $0 % 2 == 0 })
        defer { world.end() }
        let backoff = BackoffPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(5), attemptBudget: 30,
                                    circuitBreakerThreshold: 6, circuitCooldown: .seconds(10), discoveryTimeout: .seconds(5))
        let limits = SchedulerLimits(capacity: [.control: 4, .interactive: 8, .bulk: 12])
        let configuration = FleetConfiguration(profile: FleetUUID.profile, pool: PoolPolicy(maximumConcurrency: 24),
                                               maximumConnectionAttempts: 4, connectTimeout: .seconds(2), backoff: backoff,
                                               scheduler: limits)
        // Records every connection attempt on its way to the radio, independently of the engine.
        let central = RecordingCentral(world.central)
        let fleet = FleetOrchestrator(central: central, configuration: configuration, clock: world.clock, seed: seed,
                                      store: InMemoryPinnedDeviceStore())
        let pinned = Array(world.ids[0..<16])
        let pooled = Array(world.ids[16..<32])
        let transitions = Locked([(UUID, DeviceState, DeviceState, Duration)]())
        let events = fleet.events()
        let recorder = Task {
            for await event in events {
                if case .stateChanged(let id, let from, let to, let at) = event { transitions.withLock { $0.append((id, from, to, at)) } }
            }
        }
        defer { recorder.cancel() }
        for id in pinned { await fleet.pin(id) }
        for (index, id) in pooled.enumerated() { await fleet.offer(id, rssi: -45 - 3 * index) }
        await fleet.start()
        let eligible = await fleet.eligibleDevices
        #expect(eligible.count == 24 && Set(pinned).isSubset(of: eligible))
        // Virtual time moves in steps of at most 100 ms: an event on its way to a device when the
        // clock moves is stamped late by at most that, well inside the recovery bounds below.
        let step = Duration.milliseconds(100)
        #expect(await settle(fleet, world, rounds: 8_000, maximumStep: step, until: allReady(pinned)))

        // Traffic: numbered messages of several fragments to every eligible device, in the bulk class;
        // one more than the bulk bound is refused with a typed error.
        let receivers = Array(eligible).sorted { $0.uuidString < $1.uuidString }
        let perDevice = limits.capacity(of: .bulk)
        for id in receivers {
            for number in 0..<perDevice { try fleet.send(Self.message(number), to: id, qos: .bulk) }
        }
        // A device the pool left out sends nothing, so its queue fills and refuses one more.
        let idle = try #require(pooled.first { !eligible.contains($0) })
        for number in 0..<perDevice { try fleet.send(Self.message(number), to: idle, qos: .bulk) }
        #expect(throws: FleetError.queueFull(device: idle, qos: .bulk, limit: perDevice)) {
            try fleet.send(Self.message(perDevice), to: idle, qos: .bulk)
        }
        // Explicit link losses on top of the random faults, each followed by recovery.
        var random = SeededRandomNumberGenerator(seed: seed)
        for _ in 0..<6 {
            let victim = pinned.randomElement(using: &random)!
            world.bus.loseLink(between: world.central, and: victim)
            // (The emulator may notice a loss only at the next packet on the link; the recovery
            // bound is checked below over every episode that did happen.)
            _ = await settleQuietly(fleet, world, rounds: 2_000, maximumStep: step) { $0[victim] != .ready }
            #expect(await settle(fleet, world, rounds: 8_000, maximumStep: step, until: allReady(pinned)))
        }
        let delivered = await settle(fleet, world, rounds: 20_000, maximumStep: step) { states in
            receivers.allSatisfy { fleet.writeCounts(of: $0).messages == perDevice } && pinned.allSatisfy { states[$0] == .ready }
        }
        #expect(delivered, "the run ends: every message confirmed and every pinned device ready (seed \(seed))")

        // Data: whole and in order at every receiver (a message whose confirmation was lost with the
        // link is sent again, so a repeat of the last one may follow it: delivery is at least once).
        for id in receivers {
            let index = world.ids.firstIndex(of: id)!
            let numbers = SchedulerTests.reassemble(world.record(index).writes).map { Self.number(of: $0) }
            var deduplicated: [Int] = []
            for number in numbers where number != deduplicated.last { deduplicated.append(number) }
            #expect(deduplicated == Array(0..<perDevice), "device \(index) received \(numbers) (seed \(seed))")
            for qos in QoSClass.allCases { #expect(fleet.peakQueueDepth(of: id, qos: qos) <= limits.capacity(of: qos)) }
        }
        let statistics = await fleet.radioStatistics
        #expect(central.overlappingAttempts == 0, "never two overlapping attempts to one device, as the radio saw them")
        #expect(central.attempts.values.reduce(0, +) == statistics.attempts, "every attempt the engine counted reached the radio")
        #expect(statistics.peak <= configuration.maximumConnectionAttempts)

        // Recovery, with bounds fixed in advance (not stretched by the attempts an episode took):
        // at most `cap` attempts per fault episode; ready again within the backoff schedule of
        // `cap` attempts plus each attempt's own timeouts; and after a transient loss that the
        // first (fast) retry repaired, within that retry plus one connection and one discovery.
        let cap = 6
        var capBound = Duration.zero
        for attempt in 1...cap {
            capBound += max(backoff.delayBound(attempt: attempt, afterTransientLoss: true),
                            backoff.delayBound(attempt: attempt, afterTransientLoss: false))
            capBound += configuration.connectTimeout + backoff.discoveryTimeout
        }
        let fastBound = backoff.fastRetryDelay + configuration.connectTimeout + backoff.discoveryTimeout
        let log = transitions.withLock { $0 }
        var episodes = 0
        var fastEpisodes = 0
        for id in pinned {
            var lostAt: Duration?
            var transient = false
            var attempts = 0
            for (device, from, to, at) in log where device == id {
                if from.isUsable && !to.isUsable && to != .suspended(.stopped) {
                    lostAt = at
                    attempts = 0
                    if case .backingOff(1, let deadline) = to { transient = deadline - at == backoff.fastRetryDelay } else { transient = false }
                }
                if to == .resolving { attempts += 1 }
                if to == .ready, let start = lostAt {
                    let detail = log.filter { $0.0 == id && $0.3 >= start && $0.3 <= at }.map { "\($0.2) at \($0.3)" }
                    #expect(attempts <= cap, "\(id) needed \(attempts) attempts (seed \(seed)): \(detail)")
                    #expect(at - start <= capBound, "\(id) took \(at - start) (seed \(seed)): \(detail)")
                    if transient && attempts == 1 {
                        #expect(at - start <= fastBound, "\(id) took \(at - start) after a fast retry (seed \(seed)): \(detail)")
                        fastEpisodes += 1
                    }
                    episodes += 1
                    lostAt = nil
                }
            }
        }
        #expect(episodes >= 6, "the run exercised recovery (\(episodes) episodes)")
        #expect(fastEpisodes >= 1, "some transient losses were repaired by the fast retry (seed \(seed))")
        print("acceptance: \(episodes) recoveries (\(fastEpisodes) by the fast retry), \(statistics.attempts) attempts, peak \(statistics.peak) at once")
        await fleet.shutdown()
    }

    static func message(_ number: Int) -> Data {
        var data = withUnsafeBytes(of: UInt32(number).bigEndian) { Data($0) }
        data.append(Data((0..<400).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ number) }))
        return data
    }

    static func number(of message: Data) -> Int {
        Int(message.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    }
}
