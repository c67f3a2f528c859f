import BleuCore
import Foundation
import Testing
@testable import BleuOrchestration

/// On the pure core: failure classes, jittered backoff with a budget, fast first
/// retry, resets on success, the circuit breaker and the gates — as properties over seeded
/// random runs (each prints its seed; set BLEU_FLEET_SEED to replay one).
@Suite("Reconnection: classification, backoff, budget, circuit breaker")
struct ReconnectionPropertyTests {
    static func seed(_ name: String) -> UInt64 {
        let seed = ProcessInfo.processInfo.environment["BLEU_FLEET_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0 ... .max)
        print("\(name): seed \(seed) (replay with BLEU_FLEET_SEED=\(seed))")
        return seed
    }

    @Test("failures are classified by what can fix them")
    func classification() {
        let id = UUID()
        let cases: [(any Error, FailureClass)] = [
            (BleuError.disconnected(id, .supervisionTimeout), .transientLinkLoss),
            (BleuError.connectionTimeout(id), .transientLinkLoss),
            (BleuError.connectionFailed(id, reason: .link(.failedToEstablish)), .transientLinkLoss),
            (BleuError.notConnected(id), .transientLinkLoss),
            (BleuError.bluetoothPoweredOff, .radioUnavailable),
            (BleuError.bluetoothUnauthorized, .radioUnavailable),
            (BleuError.disconnected(id, .poweredOff), .radioUnavailable),
            (BleuError.characteristicNotFound(BluetoothUUID(UInt16(0x2A37))), .protocolError),
            (BleuError.serviceNotFound(BluetoothUUID(UInt16(0x180D))), .protocolError),
            (BleuError.att(.unlikelyError), .protocolError),
            (BleuError.notSupported(.characteristicProperties(BluetoothUUID(UInt16(0x2A37)), [.read], .write)), .protocolError),
            (BleuError.disconnected(id, .hci(0x05)), .protocolError),
            (BleuError.cancelled, .unknown),
            (CocoaError(.fileNoSuchFile), .unknown),
        ]
        for (error, expected) in cases {
            #expect(FailureClass.classify(error) == expected, "\(error)")
        }
    }

    @Test("jittered delays stay within [nominal × (1 − jitter), nominal], grow, and stop at the maximum")
    func backoffBounds() {
        var random = SeededRandomNumberGenerator(seed: Self.seed("backoffBounds"))
        for _ in 0..<200 {
            let policy = BackoffPolicy(initialDelay: .milliseconds(Int64.random(in: 1...500, using: &random)),
                                       multiplier: Double.random(in: 1...4, using: &random),
                                       maximumDelay: .seconds(Int64.random(in: 1...60, using: &random)),
                                       jitter: Double.random(in: 0...1, using: &random))
            var previous = Duration.zero
            for attempt in 1...30 {
                let nominal = policy.nominalDelay(attempt: attempt)
                #expect(nominal >= previous && nominal <= max(policy.maximumDelay, policy.initialDelay))
                previous = nominal
                let delay = policy.delay(attempt: attempt, afterTransientLoss: false, using: &random)
                let low = Double(nominal.nanoseconds) * (1 - policy.jitter)
                #expect(Double(delay.nanoseconds) >= low.rounded(.down) - 1 && delay <= nominal,
                        "attempt \(attempt): \(delay) outside [\(low) ns, \(nominal)]")
            }
        }
    }

    @Test("jitter comes from the injected generator: one seed replays, another differs")
    func jitterReplays() {
        let seed = Self.seed("jitterReplays")
        func deadlines(_ seed: UInt64) -> [Duration] {
            var machine = DeviceMachine(seed: seed)
            _ = machine.apply(.centralStateChanged(.poweredOn), now: .zero)
            _ = machine.apply(.start, now: .zero)
            var result: [Duration] = []
            for step in 0..<8 {
                _ = machine.apply(.resolved, now: .seconds(step))
                _ = machine.apply(.connectFailed(.transientLinkLoss), now: .seconds(step))
                if case .backingOff(_, let deadline) = machine.state { result.append(deadline) }
                _ = machine.apply(.timerFired(.backoff, token: machine.timerToken), now: .seconds(step))
            }
            return result
        }
        #expect(deadlines(seed) == deadlines(seed))
        #expect(deadlines(seed) != deadlines(seed &+ 1))
    }

    @Test("a ready device that loses its link retries fast once, then backs off; success resets the count")
    func fastRetryAndReset() {
        let policy = BackoffPolicy.default
        var machine = Self.readyMachine(policy: policy)
        let now = Duration.seconds(10)
        _ = machine.apply(.disconnected(.transientLinkLoss), now: now)
        #expect(machine.state == .backingOff(attempt: 1, deadline: now + policy.fastRetryDelay))
        _ = machine.apply(.timerFired(.backoff, token: machine.timerToken), now: now)
        _ = machine.apply(.resolved, now: now)
        _ = machine.apply(.connectFailed(.transientLinkLoss), now: now)
        guard case .backingOff(2, let deadline) = machine.state else { Issue.record("\(machine.state)"); return }
        #expect(deadline - now <= policy.nominalDelay(attempt: 2) && deadline - now >= policy.nominalDelay(attempt: 2) * 0.5)
        _ = machine.apply(.timerFired(.backoff, token: machine.timerToken), now: now)
        _ = machine.apply(.resolved, now: now)
        _ = machine.apply(.connected, now: now)
        _ = machine.apply(.discovered, now: now)
        #expect(machine.state == .ready && machine.attempts == 0)
        _ = machine.apply(.disconnected(.transientLinkLoss), now: now)
        #expect(machine.state == .backingOff(attempt: 1, deadline: now + policy.fastRetryDelay), "the count reset on success")
    }

    @Test("repeated protocol failures open the circuit; half-open allows one trial; success closes it")
    func circuitBreaker() {
        let policy = BackoffPolicy(circuitBreakerThreshold: 3, circuitCooldown: .seconds(60))
        var machine = Self.readyMachine(policy: policy)
        var now = Duration.seconds(1)
        _ = machine.apply(.disconnected(.protocolError), now: now)
        for failure in 2...3 {
            _ = machine.apply(.timerFired(.backoff, token: machine.timerToken), now: now)
            _ = machine.apply(.resolved, now: now)
            _ = machine.apply(.connected, now: now)
            let effects = machine.apply(.discoveryFailed(.protocolError), now: now)
            if failure < 3 {
                #expect(machine.state.name == "backingOff")
            } else {
                #expect(machine.state == .suspended(.circuitOpen))
                #expect(effects == [.cancelConnection, .startTimer(.cooldown, deadline: now + .seconds(60), token: machine.timerToken)])
            }
        }
        now += .seconds(60)
        #expect(machine.apply(.timerFired(.cooldown, token: machine.timerToken), now: now) == [.resolve])
        #expect(machine.halfOpen)
        _ = machine.apply(.resolved, now: now)
        _ = machine.apply(.connected, now: now)
        _ = machine.apply(.discoveryFailed(.protocolError), now: now)
        #expect(machine.state == .suspended(.circuitOpen), "one failure in half-open opens the circuit again")
        _ = machine.apply(.timerFired(.cooldown, token: machine.timerToken), now: now)
        _ = machine.apply(.resolved, now: now)
        _ = machine.apply(.connected, now: now)
        _ = machine.apply(.discovered, now: now)
        #expect(machine.state == .ready && !machine.halfOpen && machine.protocolFailures == 0)
    }

    @Test("a gate closing during an open circuit keeps the cool-down: reopening early returns to it, late ends it")
    func cooldownSurvivesGates() {
        let policy = BackoffPolicy(circuitBreakerThreshold: 1, circuitCooldown: .seconds(60))
        var machine = Self.readyMachine(policy: policy)
        _ = machine.apply(.disconnected(.protocolError), now: .seconds(10))
        #expect(machine.state == .suspended(.circuitOpen))
        #expect(machine.cooldown == DeviceMachine.Cooldown(reason: .circuitOpen, until: .seconds(70)))
        // The radio goes off and on again 20 s into the cool-down: back to it, same end.
        #expect(machine.apply(.centralStateChanged(.poweredOff), now: .seconds(20)) == [.cancelTimers])
        #expect(machine.state == .suspended(.radioUnavailable(.poweredOff)))
        let back = machine.apply(.centralStateChanged(.poweredOn), now: .seconds(30))
        #expect(machine.state == .suspended(.circuitOpen))
        #expect(back == [.startTimer(.cooldown, deadline: .seconds(70), token: machine.timerToken)])
        #expect(!machine.halfOpen)
        // Off again, and on only after the cool-down's end: it is over, one trial attempt (half-open).
        _ = machine.apply(.policyUpdated(eligible: false), now: .seconds(40))
        #expect(machine.apply(.policyUpdated(eligible: true), now: .seconds(80)) == [.resolve])
        #expect(machine.state == .resolving && machine.halfOpen && machine.cooldown == nil)
        // Ready forgets everything; a later gate cycle starts an attempt at once.
        for event in [DeviceEvent.resolved, .connected, .discovered] { _ = machine.apply(event, now: .seconds(80)) }
        _ = machine.apply(.stop, now: .seconds(90))
        #expect(machine.apply(.start, now: .seconds(91)) == [.resolve])
    }

    @Test("a gate closing during a spent budget's rest keeps the rest")
    func budgetRestSurvivesGates() {
        let policy = BackoffPolicy(attemptBudget: 1, budgetCooldown: .seconds(120))
        var machine = Self.readyMachine(policy: policy)
        _ = machine.apply(.disconnected(.transientLinkLoss), now: .zero)
        _ = machine.apply(.timerFired(.backoff, token: machine.timerToken), now: .zero)
        _ = machine.apply(.resolveFailed(.transientLinkLoss), now: .seconds(1))
        #expect(machine.state == .suspended(.budgetExhausted))
        _ = machine.apply(.stop, now: .seconds(2))
        #expect(machine.apply(.start, now: .seconds(3)) == [.startTimer(.cooldown, deadline: .seconds(121), token: machine.timerToken)])
        #expect(machine.state == .suspended(.budgetExhausted))
        #expect(machine.apply(.timerFired(.cooldown, token: machine.timerToken), now: .seconds(121)) == [.resolve])
        #expect(machine.attempts == 0)
    }

    @Test("a spent budget suspends the device for the cool-down, after which attempts start afresh")
    func budget() {
        let policy = BackoffPolicy(attemptBudget: 4, budgetCooldown: .seconds(120))
        var machine = Self.readyMachine(policy: policy)
        _ = machine.apply(.disconnected(.transientLinkLoss), now: .zero)
        for _ in 0..<4 {
            _ = machine.apply(.timerFired(.backoff, token: machine.timerToken), now: .zero)
            _ = machine.apply(.resolveFailed(.transientLinkLoss), now: .zero)
        }
        #expect(machine.state == .suspended(.budgetExhausted))
        #expect(machine.apply(.timerFired(.cooldown, token: machine.timerToken), now: .seconds(120)) == [.resolve])
        #expect(machine.attempts == 0)
    }

    @Test("over random event sequences: no attempt while a gate is closed, deadlines within bounds, budget kept")
    func randomRuns() {
        let seed = Self.seed("randomRuns")
        var random = SeededRandomNumberGenerator(seed: seed)
        let policy = BackoffPolicy(attemptBudget: 6, circuitBreakerThreshold: 3)
        let failures = FailureClass.allCases
        for run in 0..<300 {
            var machine = DeviceMachine(policy: policy, seed: random.next())
            var now = Duration.zero
            for step in 0..<200 {
                now += .milliseconds(Int64.random(in: 0...500, using: &random))
                let failure = failures.randomElement(using: &random)!
                let candidates: [DeviceEvent] = [
                    .start, .stop, .centralStateChanged(Bool.random(using: &random) ? .poweredOn : .poweredOff),
                    .restorationBegan, .restorationEnded(connected: Bool.random(using: &random)),
                    .policyUpdated(eligible: Bool.random(using: &random)), .resolved, .resolveFailed(failure),
                    .connected, .connectFailed(failure), .disconnected(failure), .discovered, .discoveryFailed(failure),
                    .valueReceived, .writeSucceeded, .writeFailed(failure), .readyToSend, .backPressure(Bool.random(using: &random)),
                    .timerFired(DeviceTimer.allCases.randomElement(using: &random)!,
                                token: Bool.random(using: &random) ? machine.timerToken : machine.timerToken &- 1),
                ]
                // Favour the happy path so runs reach ready and fail from there too.
                let event = Int.random(in: 0..<4, using: &random) == 0 ? candidates.randomElement(using: &random)!
                    : [.start, .centralStateChanged(.poweredOn), .resolved, .connected, .discovered,
                       .timerFired(.backoff, token: machine.timerToken), .timerFired(.cooldown, token: machine.timerToken),
                       .disconnected(failure)].randomElement(using: &random)!
                let before = machine
                let effects = machine.apply(event, now: now)
                let context = "run \(run) step \(step): \(before.state) × \(event) → \(machine.state) \(effects)"
                if machine.gates.blockingReason != nil {
                    #expect(!machine.state.holdsLink && machine.state != .resolving, "\(context)")
                    #expect(!effects.contains(.resolve) && !effects.contains(.connect) && !effects.contains(.discover), "\(context)")
                }
                if case .backingOff(let attempt, let deadline) = machine.state, machine.state != before.state {
                    #expect(attempt >= 1 && attempt <= policy.attemptBudget, "\(context)")
                    let bound = max(policy.delayBound(attempt: attempt, afterTransientLoss: true),
                                    policy.delayBound(attempt: attempt, afterTransientLoss: false))
                    #expect(deadline >= now && deadline - now <= bound, "\(context)")
                }
                if machine.state == .ready && before.state != .ready && before.state.name != "degraded" {
                    #expect(machine.attempts == 0 && machine.protocolFailures == 0, "\(context)")
                }
                #expect(machine.protocolFailures < policy.circuitBreakerThreshold, "\(context)")
                if effects.contains(.connect) { #expect(machine.state == .connecting, "\(context)") }
            }
        }
    }

    static func readyMachine(policy: BackoffPolicy) -> DeviceMachine {
        var machine = DeviceMachine(policy: policy, seed: 7)
        for event in [DeviceEvent.centralStateChanged(.poweredOn), .start, .resolved, .connected, .discovered] {
            _ = machine.apply(event, now: .zero)
        }
        precondition(machine.state == .ready)
        return machine
    }
}
