import BleuCore
import Testing
@testable import BleuOrchestration

/// The transition table, every state × every event, against rows written out by
/// hand (not derived from the implementation). A cell not listed must leave the state as it is
/// and return no effect.
@Suite("Device state machine: the transition table")
struct TransitionTableTests {
    static let now = Duration.seconds(100)
    static let token: UInt64 = 5
    /// No jitter, so the table can name deadlines.
    static let policy = BackoffPolicy(initialDelay: .milliseconds(200), multiplier: 2, maximumDelay: .seconds(30), jitter: 0,
                                      fastRetryDelay: .milliseconds(20), attemptBudget: 12, budgetCooldown: .seconds(120),
                                      circuitBreakerThreshold: 3, circuitCooldown: .seconds(60), discoveryTimeout: .seconds(10))

    /// Every state, with gates that agree with it (a suspended machine has its gate closed).
    static let states: [DeviceState] = [
        .idle, .resolving, .connecting, .discovering, .ready, .degraded(.backPressure), .degraded(.operationErrors),
        .backingOff(attempt: 1, deadline: .seconds(99)),
        .suspended(.radioUnavailable(.poweredOff)), .suspended(.radioUnavailable(.unauthorized)),
        .suspended(.radioUnavailable(.resetting)), .suspended(.stopped), .suspended(.notEligible),
        .suspended(.restoring), .suspended(.circuitOpen), .suspended(.budgetExhausted),
    ]

    /// The radio states that close the radio gate, as fixtures and as events.
    static let radioOff: [ManagerState] = [.poweredOff, .unauthorized, .resetting]

    /// Every event, with the failure classes and timers that change the outcome.
    static let events: [DeviceEvent] = [
        .start, .stop, .centralStateChanged(.poweredOff), .centralStateChanged(.unauthorized),
        .centralStateChanged(.resetting), .centralStateChanged(.poweredOn),
        .restorationBegan, .restorationEnded(connected: true), .restorationEnded(connected: false),
        .policyUpdated(eligible: false), .policyUpdated(eligible: true), .resolved,
    ] + FailureClass.allCases.map { .resolveFailed($0) } + [.connected] + FailureClass.allCases.map { .connectFailed($0) }
        + FailureClass.allCases.map { .disconnected($0) } + [.discovered] + FailureClass.allCases.map { .discoveryFailed($0) } + [
        .valueReceived, .writeSucceeded, .writeFailed(.protocolError),
        .readyToSend, .backPressure(true), .backPressure(false),
        .timerFired(.backoff, token: token), .timerFired(.cooldown, token: token), .timerFired(.discovery, token: token),
        .timerFired(.backoff, token: token - 1),
    ]

    static func machine(in state: DeviceState) -> DeviceMachine {
        var machine = DeviceMachine(policy: policy, seed: 1)
        machine.gates = .init(radio: .poweredOn, running: true, eligible: true, restoring: false)
        switch state {
        case .idle: machine.gates.running = false
        case .suspended(.radioUnavailable(let radio)): machine.gates.radio = radio
        case .suspended(.stopped): machine.gates.running = false
        case .suspended(.notEligible): machine.gates.eligible = false
        case .suspended(.restoring): machine.gates.restoring = true
        default: break
        }
        machine.state = state
        machine.timerToken = token
        return machine
    }

    struct Row {
        let state: DeviceState
        let event: DeviceEvent
        let next: DeviceState
        let effects: [DeviceEffect]
    }

    /// The rows that change something.
    static var rows: [Row] {
        var rows: [Row] = []
        func row(_ state: DeviceState, _ event: DeviceEvent, _ next: DeviceState, _ effects: [DeviceEffect] = []) {
            rows.append(Row(state: state, event: event, next: next, effects: effects))
        }
        let t = token + 1
        let linked: [DeviceState] = [.resolving, .connecting, .discovering, .ready, .degraded(.backPressure), .degraded(.operationErrors)]
        let backingOff = DeviceState.backingOff(attempt: 1, deadline: .seconds(99))
        let cooling: [DeviceState] = [.suspended(.circuitOpen), .suspended(.budgetExhausted)]
        let backoff1 = DeviceState.backingOff(attempt: 1, deadline: now + .milliseconds(200))
        let fast1 = DeviceState.backingOff(attempt: 1, deadline: now + .milliseconds(20))
        let discoveryTimer = DeviceEffect.startTimer(.discovery, deadline: now + .seconds(10), token: t)

        // Gates closing: the link and the timer are given up.
        let gates: [SuspensionReason] = [.stopped, .restoring, .notEligible] + radioOff.map { .radioUnavailable($0) }
        let closing: [(DeviceEvent, SuspensionReason)] = [
            (.stop, .stopped), (.restorationBegan, .restoring), (.policyUpdated(eligible: false), .notEligible),
        ] + radioOff.map { (.centralStateChanged($0), .radioUnavailable($0)) }
        /// The order in which closed gates are named: stopped, restoring, radio, eligibility.
        func rank(_ reason: SuspensionReason) -> Int {
            switch reason {
            case .stopped: 0
            case .restoring: 1
            case .radioUnavailable: 2
            default: 3
            }
        }
        for (event, reason) in closing {
            for state in linked { row(state, event, .suspended(reason), [.cancelTimers, .cancelConnection]) }
            row(backingOff, event, .suspended(reason), [.cancelTimers])
            for state in cooling { row(state, event, .suspended(reason), [.cancelTimers]) }
            for other in gates where other != reason {
                // Only one gate is closed in each fixture. A new radio state replaces the old one;
                // otherwise two gates are closed and the first in order names the suspension.
                let named = rank(other) == 2 && rank(reason) == 2 ? reason : (rank(reason) < rank(other) ? reason : other)
                if named != other { row(.suspended(other), event, .suspended(named)) }
            }
        }
        // Idle is not running, so "stopped" comes first for any other gate: it stays idle.

        // Gates opening.
        row(.idle, .start, .resolving, [.resolve])
        row(.suspended(.stopped), .start, .resolving, [.resolve])
        for radio in radioOff { row(.suspended(.radioUnavailable(radio)), .centralStateChanged(.poweredOn), .resolving, [.resolve]) }
        row(.suspended(.notEligible), .policyUpdated(eligible: true), .resolving, [.resolve])
        row(.suspended(.restoring), .restorationEnded(connected: false), .resolving, [.resolve])
        row(.suspended(.restoring), .restorationEnded(connected: true), .discovering, [.discover, discoveryTimer])
        // Restoration ending with a link elsewhere: a link nobody wants (idle is stopped).
        row(.idle, .restorationEnded(connected: true), .idle, [.cancelConnection])
        for reason in gates where reason != .restoring {
            row(.suspended(reason), .restorationEnded(connected: true), .suspended(reason), [.cancelConnection])
        }
        for state in cooling + [.resolving, backingOff] { row(state, .restorationEnded(connected: true), state, [.cancelConnection]) }

        // Resolving and connecting: every failure class backs off (one protocol failure does not
        // open the circuit).
        let backoffTimer = DeviceEffect.startTimer(.backoff, deadline: now + .milliseconds(200), token: t)
        row(.resolving, .resolved, .connecting, [.connect])
        for failure in FailureClass.allCases { row(.resolving, .resolveFailed(failure), backoff1, [backoffTimer]) }
        row(.connecting, .connected, .discovering, [.discover, discoveryTimer])
        for state in [DeviceState.idle, .resolving, backingOff] + cooling + gates.map({ .suspended($0) }) {
            row(state, .connected, state, [.cancelConnection])
        }
        for failure in FailureClass.allCases { row(.connecting, .connectFailed(failure), backoff1, [backoffTimer]) }

        // Link loss: fast first retry after a transient loss of a working link.
        for failure in FailureClass.allCases {
            for state in [DeviceState.connecting, .discovering] { row(state, .disconnected(failure), backoff1, [backoffTimer]) }
            for state in [DeviceState.ready, .degraded(.backPressure), .degraded(.operationErrors)] {
                if failure == .transientLinkLoss {
                    row(state, .disconnected(failure), fast1, [.startTimer(.backoff, deadline: now + .milliseconds(20), token: t)])
                } else {
                    row(state, .disconnected(failure), backoff1, [backoffTimer])
                }
            }
        }

        // Discovery.
        row(.discovering, .discovered, .ready, [.cancelTimers, .flushOutgoing])
        for failure in FailureClass.allCases { row(.discovering, .discoveryFailed(failure), backoff1, [.cancelConnection, backoffTimer]) }
        row(.discovering, .timerFired(.discovery, token: token), backoff1,
            [.cancelConnection, .startTimer(.backoff, deadline: now + .milliseconds(200), token: t)])

        // Traffic.
        row(.degraded(.operationErrors), .writeSucceeded, .ready, [.flushOutgoing])
        for state in [DeviceState.ready, .degraded(.backPressure), .degraded(.operationErrors)] {
            row(state, .readyToSend, state, [.flushOutgoing])
        }
        row(.ready, .backPressure(true), .degraded(.backPressure))
        row(.degraded(.backPressure), .backPressure(false), .ready, [.flushOutgoing])

        // Timers.
        row(backingOff, .timerFired(.backoff, token: token), .resolving, [.resolve])
        for state in cooling { row(state, .timerFired(.cooldown, token: token), .resolving, [.resolve]) }
        return rows
    }

    @Test("every state × every event gives the listed state and effects (unlisted: unchanged, none)")
    func table() {
        var expected: [String: Row] = [:]
        for row in Self.rows {
            let key = "\(row.state) × \(row.event)"
            #expect(expected[key] == nil, "the table lists \(key) twice")
            expected[key] = row
        }
        var cells = 0
        for state in Self.states {
            for event in Self.events {
                let key = "\(state) × \(event)"
                let (next, effects) = DeviceMachine.reduce(Self.machine(in: state), event, now: Self.now)
                let row = expected.removeValue(forKey: key)
                #expect(next.state == (row?.next ?? state), "\(key)")
                #expect(effects == (row?.effects ?? []), "\(key)")
                cells += 1
            }
        }
        #expect(cells == Self.states.count * Self.events.count)
        #expect(expected.isEmpty, "rows name cells outside the table: \(expected.keys.sorted())")
    }

    @Test("the reducer is pure: the same machine and event give the same result")
    func purity() {
        for state in Self.states {
            for event in Self.events {
                let machine = Self.machine(in: state)
                let first = DeviceMachine.reduce(machine, event, now: Self.now)
                let second = DeviceMachine.reduce(machine, event, now: Self.now)
                #expect(first.0 == second.0 && first.1 == second.1)
            }
        }
    }
}
