@testable import Bleu
import BleuCore
import BleuEmulator
import BleuOrchestration
import BleuTesting
import Distributed
import Foundation
import Testing

/// One central, 16 peripherals hosting 32 actors, ten minutes of virtual time on a radio with
/// faults, peripherals walking out of range and switching their Bluetooth off and on. Runs on
/// its own in CI (`scripts/test.sh`): it keeps a core busy for a while.
@Suite("A fleet of actors over ten minutes of faults")
struct FleetScaleTests {
    static let peripheralCount = 16
    static let actorsPerPeripheral = 2
    static let duration = Duration.seconds(600)
    static let callTimeout = Duration.seconds(5)
    static let connectionTimeout = Duration.seconds(2)
    /// The longest backoff delay: the engine tries again at least this often.
    static let maximumDelay = Duration.seconds(2)
    /// How far the driver moves the clock at once at most.
    static let maximumStep = Duration.milliseconds(100)
    /// The slack of the timed checks. The driver judges idleness from outside: on a loaded
    /// machine a task that has an event to handle but no thread yet (the follower stamping a
    /// state change, a caller reading the clock after its reply) sees the clock moved on by a
    /// step per misjudgement — seen up to several steps when other test processes ran alongside.
    static let slack = Duration.seconds(1)
    static let outOfRange = 1000.0
    static let near = 1.0

    /// What happened to a peripheral: out of range, or its radio off.
    enum Fault: String, Sendable {
        case range, power
    }

    struct Outage: Sendable {
        var peripheral: Int
        var fault: Fault
        var began: Duration
        var ends: Duration
        var restored: Duration?
    }

    /// Every state change the central reported for one actor, stamped in virtual time.
    typealias Log = Locked<[(at: Duration, state: ActorConnectivity)]>

    @Test("every call succeeds or fails typed within its timeout, none runs twice, links come back within the backoff bound, tables stay bounded")
    func tenMinutesOfFaults() async throws {
        let seed = ProcessInfo.processInfo.environment["BLEU_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        print("FleetScaleTests seed: \(seed) (rerun with BLEU_SEED=\(seed))")
        var random = SeededRandomNumberGenerator(seed: seed)

        let clock = ManualClock()
        var emulator = EmulatorConfiguration.instant
        emulator.faults = EmulatorConfiguration.unreliable.faults
        emulator.seed = seed
        emulator.maximumConnectionsPerCentral = Self.peripheralCount + 4
        let bus = EmulatorBus(configuration: emulator, clock: clock)

        // The budget and the circuit breaker are the engine's to test elsewhere (LinkKeepingTests,
        // BleuOrchestrationTests): here they are set out of the way, so every loss is followed by
        // retries no further apart than the longest backoff delay.
        var backoff = BackoffPolicy(initialDelay: .milliseconds(100), maximumDelay: Self.maximumDelay)
        backoff.attemptBudget = 1_000_000
        backoff.circuitBreakerThreshold = 1_000_000
        var configuration = BLEActorSystem.Configuration.fast
        configuration.callTimeout = Self.callTimeout
        configuration.connectionTimeout = Self.connectionTimeout
        configuration.clock = clock
        configuration.links = BLEActorSystem.LinkPolicy(backoff: backoff, seed: seed)

        let calls = Locked<UInt64>(0)
        let driver = VirtualTimeDriver(clock: clock, maximumStep: Self.maximumStep) {
            bus.activity &+ calls.withLock { $0 }
        }
        driver.start()
        defer { driver.stop() }

        // The world: 16 peripherals with two ledgers each, every ledger found by the central.
        var managers: [EmulatedPeripheralManager] = []
        var hosts: [BLEActorSystem] = []
        var ledgers: [[Ledger]] = []
        for _ in 0..<Self.peripheralCount {
            let manager = EmulatedPeripheralManager(bus: bus)
            let host = BLEActorSystem(peripheralManager: manager, configuration: configuration)
            var hosted: [Ledger] = []
            for _ in 0..<Self.actorsPerPeripheral {
                let ledger = Ledger(actorSystem: host)
                try await host.startAdvertising(ledger)
                hosted.append(ledger)
            }
            managers.append(manager)
            hosts.append(host)
            ledgers.append(hosted)
        }
        let central = BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus), configuration: configuration)
        let client = try #require(central.client)
        var remotes: [[Ledger]] = []
        for hosted in ledgers {
            var found: [Ledger] = []
            for ledger in hosted {
                found.append(try await Self.connect(central, to: ledger.id, seed: seed))
            }
            remotes.append(found)
        }

        // The central's view of each peripheral, through its first actor.
        let logs = (0..<Self.peripheralCount).map { _ in Log([]) }
        var followers: [Task<Void, Never>] = []
        for (index, log) in logs.enumerated() {
            let states = central.connectivity(of: remotes[index][0].id)
            followers.append(Task {
                for await state in states {
                    log.withLock { $0.append((clock.now.offset, state)) }
                    calls.withLock { $0 &+= 1 }
                }
            })
        }
        defer { for follower in followers { follower.cancel() } }

        var outages: [Outage] = []
        var active: [Int: Int] = [:]   // peripheral → index in outages
        var successes = 0
        var failures: [String: Int] = [:]
        var token = 0
        // The central's tables, sampled every 100 ms of virtual time while calls run.
        struct Largest: Sendable {
            var waiters = 0
            var relocations = 0
            var devices = 0
        }
        let largest = Locked(Largest())
        let sampler = Task {
            while !Task.isCancelled {
                let waiters = client.waiters.count
                let relocations = client.state.withLock { $0.relocations.count }
                let devices = client.fleet.states.count
                largest.withLock { largest in
                    largest.waiters = max(largest.waiters, waiters)
                    largest.relocations = max(largest.relocations, relocations)
                    largest.devices = max(largest.devices, devices)
                }
                do {
                    try await clock.sleep(for: .milliseconds(100))
                } catch {
                    return
                }
            }
        }
        defer { sampler.cancel() }
        let start = clock.now.offset
        while clock.now.offset - start < Self.duration {
            // Faults end, and new ones begin on peripherals that are ready again.
            let now = clock.now.offset
            for (peripheral, index) in active where outages[index].ends <= now {
                switch outages[index].fault {
                case .range: bus.setDistance(Self.near, of: managers[peripheral])
                case .power: bus.setState(.poweredOn, of: managers[peripheral])
                }
                outages[index].restored = now
                active[peripheral] = nil
            }
            if active.count < 3, Double.random(in: 0..<1, using: &random) < 0.5 {
                let candidates = (0..<Self.peripheralCount).filter { peripheral in
                    active[peripheral] == nil && central.currentConnectivity(of: remotes[peripheral][0].id) == .ready
                }
                if let peripheral = candidates.randomElement(using: &random) {
                    let fault: Fault = Bool.random(using: &random) ? .range : .power
                    let length = Duration.milliseconds(Int.random(in: 1000...4000, using: &random))
                    switch fault {
                    case .range: bus.setDistance(Self.outOfRange, of: managers[peripheral])
                    case .power: bus.setState(.poweredOff, of: managers[peripheral])
                    }
                    active[peripheral] = outages.count
                    outages.append(Outage(peripheral: peripheral, fault: fault, began: now, ends: now + length))
                }
            }

            // A call to every actor at once.
            let round = token
            let outcomes = await withTaskGroup(of: (Int, Result<Int, any Error>, Duration).self) { group in
                for (index, remote) in remotes.joined().enumerated() {
                    group.addTask {
                        let began = clock.now
                        let result: Result<Int, any Error>
                        do {
                            result = .success(try await remote.apply(round + index))
                        } catch {
                            result = .failure(error)
                        }
                        calls.withLock { $0 &+= 1 }
                        return (round + index, result, began.duration(to: clock.now))
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            token += outcomes.count
            for (token, outcome, elapsed) in outcomes {
                #expect(elapsed <= Self.callTimeout + Self.slack,
                        "call \(token) took \(elapsed) of virtual time (seed \(seed))")
                switch outcome {
                case .success(let executions):
                    #expect(executions == 1, "token \(token) ran \(executions) times (seed \(seed))")
                    successes += 1
                case .failure(let error):
                    #expect(UnreliableTests.isTyped(error), "call \(token) failed untyped: \(error) (seed \(seed))")
                    failures["\(type(of: error)): \(String(describing: error).replacing(/[0-9A-F]{8}-[0-9A-F-]{27}/, with: "…"))", default: 0] += 1
                }
            }
            try await clock.sleep(for: .milliseconds(500))
        }

        // Every fault ends; every actor is ready again within the backoff bound.
        let ended = clock.now.offset
        for (peripheral, index) in active {
            switch outages[index].fault {
            case .range: bus.setDistance(Self.near, of: managers[peripheral])
            case .power: bus.setState(.poweredOn, of: managers[peripheral])
            }
            outages[index].restored = ended
        }
        for remote in remotes.joined() {
            var states = central.connectivity(of: remote.id).makeAsyncIterator()
            while let state = await states.next(), state != .ready {}
        }
        // The followers record the last recoveries too (their streams may lag the ones above);
        // a minute of virtual time is far more than any bound below.
        let deadline = clock.now.advanced(by: .seconds(60))
        for (index, log) in logs.enumerated() {
            let restored = outages.filter { $0.peripheral == index }.compactMap(\.restored).max() ?? .zero
            while clock.now < deadline, !log.withLock({ $0.contains { $0.at >= restored && $0.state == .ready } }) {
                try await clock.sleep(for: .milliseconds(100))
            }
        }

        print("FleetScaleTests: \(outages.count) outages, \(successes) calls succeeded, failures: \(failures.sorted { $0.key < $1.key }) (seed \(seed))")
        sampler.cancel()
        let tables = largest.withLock { $0 }
        print("FleetScaleTests: largest tables: link waiters \(tables.waiters), relocations \(tables.relocations), engine devices \(tables.devices)")
        #expect(outages.count >= 20, "faults were injected (seed \(seed))")
        #expect(successes > token / 2, "most calls succeed (seed \(seed))")

        // Back within the bound: after a restore, each failed attempt may cost one backoff delay
        // and one connection timeout (an attempt that began out of range), and the setup one more.
        for outage in outages {
            let restored = try #require(outage.restored)
            let after = logs[outage.peripheral].withLock { log in log.filter { $0.at >= restored } }
            let ready = try #require(after.first { $0.state == .ready },
                                     "peripheral \(outage.peripheral) ready again after \(outage.fault) (seed \(seed))")
            let attempts = after.prefix { $0.state != .ready }.filter {
                if case .backingOff = $0.state { return true }
                return false
            }.count
            let bound = (Self.maximumDelay + Self.connectionTimeout * 2) * (attempts + 1) + Self.slack
            #expect(ready.at - restored <= bound,
                    "peripheral \(outage.peripheral) ready \(ready.at - restored) after its \(outage.fault) outage ended, \(attempts) retries; bound \(bound) (seed \(seed))")
        }
        for log in logs {
            for entry in log.withLock({ $0 }) {
                if case .backingOff(_, let retryIn) = entry.state {
                    #expect(retryIn <= Self.maximumDelay, "a retry \(retryIn) away (seed \(seed))")
                }
            }
        }

        // No call ran twice, and every call that succeeded ran.
        var executed: [Int: Int] = [:]
        for ledger in ledgers.joined() {
            for (token, count) in try await ledger.counts() { executed[token, default: 0] += count }
        }
        #expect(executed.values.allSatisfy { $0 == 1 }, "a call ran twice (seed \(seed))")
        #expect(executed.count >= successes)

        // Bounded tables: nothing waits, nothing is being searched for, one engine entry per peripheral.
        #expect(client.waiters.count == 0)
        #expect(client.state.withLock { $0.relocations.count } == 0)
        #expect(client.fleet.states.count == Self.peripheralCount)
        let actors = Self.peripheralCount * Self.actorsPerPeripheral
        client.state.withLock { state in
            #expect(state.directory.count == actors)
            #expect(state.links.count == Self.peripheralCount)
            for count in [state.epochs.count, state.lastLoss.count, state.rssi.count, state.linkedBefore.count, state.held.count] {
                #expect(count <= Self.peripheralCount)
            }
        }
        // Each peripheral keeps one session per hosted actor for the central's current link.
        for host in hosts {
            let sessions = try #require(host.host).state.withLock { ($0.sessions.count, $0.callsInSlots.count) }
            #expect(sessions.0 <= Self.actorsPerPeripheral, "sessions at a peripheral: \(sessions.0) (seed \(seed))")
            #expect(sessions.1 <= Self.actorsPerPeripheral, "call slots at a peripheral: \(sessions.1) (seed \(seed))")
        }
        #expect(tables.waiters <= Self.peripheralCount * Self.actorsPerPeripheral)
        #expect(tables.relocations <= Self.peripheralCount * Self.actorsPerPeripheral)
        #expect(tables.devices <= Self.peripheralCount)
    }

    /// Connects to a ledger; a connection fault of the radio may fail an attempt (typed), so
    /// it tries a few times.
    static func connect(_ central: BLEActorSystem, to id: UUID, seed: UInt64) async throws -> Ledger {
        var lastError: (any Error)?
        for _ in 0..<5 {
            do {
                return try await central.connect(to: id, as: Ledger.self)
            } catch {
                #expect(UnreliableTests.isTyped(error), "connecting failed untyped: \(error) (seed \(seed))")
                lastError = error
            }
        }
        throw try #require(lastError)
    }
}
