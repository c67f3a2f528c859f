import BleuOrchestration

extension BLEActorSystem {
    /// How a central system keeps the links to the actors it holds: the fleet engine's
    /// reconnection machinery (``/BleuOrchestration/BackoffPolicy``, ``/BleuOrchestration/PoolPolicy``),
    /// and what a call does while its actor's link is down.
    public struct LinkPolicy: Sendable, Hashable {
        /// What a call made while its actor's link is down does.
        public enum CallPolicy: Sendable, Hashable {
            /// Waits for the link, up to the call's timeout, then sends the call.
            case waitForConnection
            /// Fails at once with ``/BleuCore/BleuError/disconnected(_:_:)``.
            case failFast
        }

        /// Which actors' peripherals are kept connected.
        public enum Retention: Sendable, Hashable {
            /// Every actor the application was handed (discovered, resolved, connected) stays
            /// connected, however many there are, until ``BLEActorSystem/disconnect(from:)-(PeripheralActor)``.
            case pinned
            /// Held actors share ``LinkPolicy/pool``'s ``/BleuOrchestration/PoolPolicy/maximumConcurrency``
            /// links, best signal and most recently heard first; `priority` (0…1) weighs in.
            case pooled(priority: Double)
        }

        /// What a call does while its actor's link is down (default: waits).
        public var callPolicy: CallPolicy
        /// Which peripherals stay connected (default: every held actor's).
        public var retention: Retention
        /// Backoff between attempts, the attempt budget and the circuit breaker. Its
        /// `discoveryTimeout` is replaced by the system's ``Configuration/connectionTimeout``.
        public var backoff: BackoffPolicy
        /// The pool of the `.pooled` retention.
        public var pool: PoolPolicy
        /// Connection attempts the radio runs at once; the others wait their turn.
        public var maximumSimultaneousAttempts: Int
        /// How long a call waits for its actor's link before it also scans for the actor on
        /// other peripherals (an app that restarted, a device that came back under a new
        /// identifier); a failed attempt to reach the known peripheral starts that search at once.
        public var relocateAfter: Duration
        /// The seed of the backoff's jitter; `nil` draws one (the engine logs it in its session id).
        public var seed: UInt64?

        /// A policy; each parameter sets the property of the same name. The defaults suit a
        /// phone talking to a handful of peripherals: retries after 100 ms doubling up to 10 s
        /// (half jitter, 20 ms after a working link dropped), 12 attempts then a 30 s rest, the
        /// circuit opening for 30 s after 3 protocol failures in a row, 4 attempts at once.
        public init(callPolicy: CallPolicy = .waitForConnection, retention: Retention = .pinned,
                    backoff: BackoffPolicy = BackoffPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(10),
                                                           budgetCooldown: .seconds(30), circuitCooldown: .seconds(30)),
                    pool: PoolPolicy = PoolPolicy(), maximumSimultaneousAttempts: Int = 4, relocateAfter: Duration = .seconds(2),
                    seed: UInt64? = nil) {
            self.callPolicy = callPolicy
            self.retention = retention
            self.backoff = backoff
            self.pool = pool
            self.maximumSimultaneousAttempts = max(1, maximumSimultaneousAttempts)
            self.relocateAfter = relocateAfter
            self.seed = seed
        }
    }
}
