import BleuCore

/// A device's state machine: a pure value with a pure reducer. The device actor feeds it
/// events and executes the effects it returns, in order; nothing else changes it.
///
/// Beside ``state`` it keeps what the transitions need: the gates (radio, running, eligible,
/// restoring), the reconnection counters, the circuit breaker, the timer token and its own
/// seeded random source for jitter — so a run replays exactly from its seed.
public struct DeviceMachine: Sendable, Hashable {
    /// The gates: nothing is attempted unless all are open.
    public struct Gates: Sendable, Hashable {
        public var radio: ManagerState = .unknown
        public var running = false
        public var eligible = true
        public var restoring = false

        /// The reason attempts are blocked, or `nil` when every gate is open.
        public var blockingReason: SuspensionReason? {
            if !running { return .stopped }
            if restoring { return .restoring }
            if radio != .poweredOn { return .radioUnavailable(radio) }
            if !eligible { return .notEligible }
            return nil
        }
    }

    /// The current state.
    public internal(set) var state: DeviceState = .idle
    /// How the machine backs off and breaks the circuit.
    public var policy: BackoffPolicy
    /// The gates.
    public internal(set) var gates = Gates()
    /// Failed attempts since the device was last ready; the next backoff is for attempt + 1.
    public internal(set) var attempts = 0
    /// Consecutive protocol failures since the device was last ready or the circuit last opened.
    public internal(set) var protocolFailures = 0
    /// Whether the circuit is half-open: one trial attempt after a cool-down.
    public internal(set) var halfOpen = false
    /// Consecutive writes failing with protocol errors while connected.
    public internal(set) var writeErrors = 0
    /// The token of the current timer; timers carrying another are stale.
    public internal(set) var timerToken: UInt64 = 0
    /// The cool-down under way (circuit open or budget spent) and when it ends. A gate closing
    /// during it suspends the device without forgetting it: when the gates open again before
    /// its end, the device goes back to the cool-down rather than straight to an attempt.
    public internal(set) var cooldown: Cooldown?

    /// A cool-down and its end (time since the clock's origin).
    public struct Cooldown: Sendable, Hashable {
        public var reason: SuspensionReason
        public var until: Duration
    }
    /// The random source for jitter.
    public internal(set) var random: SeededRandomNumberGenerator

    /// Consecutive protocol write errors that degrade a ready device.
    public static let writeErrorThreshold = 3

    /// A machine in ``DeviceState/idle``, drawing jitter from a generator seeded with `seed`.
    public init(policy: BackoffPolicy = .default, seed: UInt64) {
        self.policy = policy
        self.random = SeededRandomNumberGenerator(seed: seed)
    }

    /// The transition: the machine after `event` at time `now` (since the clock's origin),
    /// and the effects to execute, in order.
    public static func reduce(_ machine: DeviceMachine, _ event: DeviceEvent, now: Duration) -> (DeviceMachine, [DeviceEffect]) {
        var next = machine
        let effects = next.apply(event, now: now)
        return (next, effects)
    }

    /// Applies `event` in place and returns the effects (the mutating form of ``reduce(_:_:now:)``).
    public mutating func apply(_ event: DeviceEvent, now: Duration) -> [DeviceEffect] {
        switch event {
        case .start: return gate(now: now) { $0.running = true }
        case .stop: return gate(now: now) { $0.running = false }
        case .centralStateChanged(let radio): return gate(now: now) { $0.radio = radio }
        case .restorationBegan: return gate(now: now) { $0.restoring = true }
        case .policyUpdated(let eligible): return gate(now: now) { $0.eligible = eligible }
        case .restorationEnded(let connected): return restorationEnded(connected: connected, now: now)

        case .resolved:
            guard state == .resolving else { return [] }
            state = .connecting
            return [.connect]
        case .resolveFailed(let failure):
            guard state == .resolving else { return [] }
            return fail(failure, fromReady: false, now: now)

        case .connected:
            switch state {
            case .connecting:
                return startDiscovery(now: now)
            case .discovering, .ready, .degraded:
                return []
            default:
                return [.cancelConnection]  // a link nobody asked for any more
            }
        case .connectFailed(let failure):
            guard state == .connecting else { return [] }
            return fail(failure, fromReady: false, now: now)

        case .disconnected(let failure):
            switch state {
            case .connecting, .discovering: return fail(failure, fromReady: false, now: now)
            case .ready, .degraded: return fail(failure, fromReady: true, now: now)
            default: return []
            }

        case .discovered:
            guard state == .discovering else { return [] }
            state = .ready
            attempts = 0
            protocolFailures = 0
            halfOpen = false
            writeErrors = 0
            cooldown = nil
            return [cancelTimers(), .flushOutgoing]
        case .discoveryFailed(let failure):
            guard state == .discovering else { return [] }
            return [.cancelConnection] + fail(failure, fromReady: false, now: now)

        case .valueReceived:
            return []
        case .writeSucceeded:
            writeErrors = 0
            guard state == .degraded(.operationErrors) else { return [] }
            state = .ready
            return [.flushOutgoing]
        case .writeFailed(let failure):
            guard state.isUsable, failure == .protocolError else { return [] }
            writeErrors += 1
            if state == .ready && writeErrors >= Self.writeErrorThreshold { state = .degraded(.operationErrors) }
            return []
        case .readyToSend:
            return state.isUsable ? [.flushOutgoing] : []
        case .backPressure(let on):
            if on, state == .ready {
                state = .degraded(.backPressure)
            } else if !on, state == .degraded(.backPressure) {
                state = .ready
                return [.flushOutgoing]
            }
            return []

        case .timerFired(let timer, let token):
            guard token == timerToken else { return [] }
            return timerFired(timer, now: now)
        }
    }

    // MARK: Gates

    private mutating func gate(now: Duration, _ change: (inout Gates) -> Void) -> [DeviceEffect] {
        change(&gates)
        if let reason = gates.blockingReason {
            return block(reason)
        }
        switch state {
        case .idle:
            return begin()
        case .suspended(let reason) where reason.isGate:
            return resume(now: now)
        default:
            return []
        }
    }

    /// Every gate is open again: back to a cool-down that has not ended, else an attempt (after
    /// a cool-down that ended meanwhile, as when its timer fires).
    private mutating func resume(now: Duration) -> [DeviceEffect] {
        guard let cooldown else { return begin() }
        if now < cooldown.until {
            state = .suspended(cooldown.reason)
            return [startTimer(.cooldown, deadline: cooldown.until)]
        }
        return endCooldown()
    }

    /// The cool-down is over: one trial attempt after an open circuit, a fresh budget after a
    /// spent one.
    private mutating func endCooldown() -> [DeviceEffect] {
        switch cooldown?.reason {
        case .circuitOpen?: halfOpen = true
        case .budgetExhausted?: attempts = 0
        default: break
        }
        cooldown = nil
        return begin()
    }

    /// Moves to `suspended(reason)`, giving up the link and the timer.
    private mutating func block(_ reason: SuspensionReason) -> [DeviceEffect] {
        switch state {
        case .idle where reason == .stopped:
            return []
        case .idle:
            state = .suspended(reason)
            return []
        case .suspended(let current):
            guard current != reason else { return [] }
            state = .suspended(reason)
            return current.isGate ? [] : [cancelTimers()]
        case .backingOff:
            state = .suspended(reason)
            return [cancelTimers()]
        case .resolving, .connecting, .discovering, .ready, .degraded:
            state = .suspended(reason)
            return [cancelTimers(), .cancelConnection]
        }
    }

    /// A restored link is taken over only by a device waiting for restoration (idle, or
    /// suspended by a gate) whose gates are all open now; anywhere else it is refused.
    private mutating func restorationEnded(connected: Bool, now: Duration) -> [DeviceEffect] {
        let waiting: Bool
        switch state {
        case .idle: waiting = true
        case .suspended(let reason): waiting = reason.isGate
        default: waiting = false
        }
        gates.restoring = false
        if connected, waiting, gates.blockingReason == nil {
            return startDiscovery(now: now)
        }
        let effects = gate(now: now) { _ in }
        return connected && !state.holdsLink ? effects + [.cancelConnection] : effects
    }

    // MARK: Attempts

    private mutating func begin() -> [DeviceEffect] {
        state = .resolving
        return [.resolve]
    }

    private mutating func startDiscovery(now: Duration) -> [DeviceEffect] {
        state = .discovering
        return [.discover, startTimer(.discovery, deadline: now + policy.discoveryTimeout)]
    }

    /// A failure in an attempt or of a link: back off, or open the circuit, or rest when the
    /// budget is spent.
    private mutating func fail(_ failure: FailureClass, fromReady: Bool, now: Duration) -> [DeviceEffect] {
        if failure == .protocolError {
            protocolFailures += 1
            if halfOpen || protocolFailures >= max(1, policy.circuitBreakerThreshold) {
                halfOpen = false
                protocolFailures = 0  // the open circuit is the memory of them now
                return startCooldown(.circuitOpen, until: now + policy.circuitCooldown)
            }
        }
        if fromReady { attempts = 0 }
        attempts += 1
        if attempts > max(1, policy.attemptBudget) {
            return startCooldown(.budgetExhausted, until: now + policy.budgetCooldown)
        }
        let fast = fromReady && failure == .transientLinkLoss
        let deadline = now + policy.delay(attempt: attempts, afterTransientLoss: fast, using: &random)
        state = .backingOff(attempt: attempts, deadline: deadline)
        return [startTimer(.backoff, deadline: deadline)]
    }

    private mutating func startCooldown(_ reason: SuspensionReason, until deadline: Duration) -> [DeviceEffect] {
        state = .suspended(reason)
        cooldown = Cooldown(reason: reason, until: deadline)
        return [startTimer(.cooldown, deadline: deadline)]
    }

    private mutating func timerFired(_ timer: DeviceTimer, now: Duration) -> [DeviceEffect] {
        switch (state, timer) {
        case (.backingOff, .backoff):
            return begin()
        case (.suspended(.circuitOpen), .cooldown), (.suspended(.budgetExhausted), .cooldown):
            return endCooldown()
        case (.discovering, .discovery):
            return [.cancelConnection] + fail(.transientLinkLoss, fromReady: false, now: now)
        default:
            return []
        }
    }

    // MARK: Timers

    private mutating func startTimer(_ timer: DeviceTimer, deadline: Duration) -> DeviceEffect {
        timerToken &+= 1
        return .startTimer(timer, deadline: deadline, token: timerToken)
    }

    private mutating func cancelTimers() -> DeviceEffect {
        timerToken &+= 1
        return .cancelTimers
    }
}
