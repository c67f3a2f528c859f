import BleuCore

/// How a device waits between reconnection attempts: exponential backoff with jitter, a fast
/// first retry after a transient link loss, a budget of attempts, and a circuit breaker.
public struct BackoffPolicy: Sendable, Hashable, Codable {
    /// The delay before the first retry after a failed attempt (before jitter).
    public var initialDelay: Duration
    /// Each further attempt multiplies the delay by this factor (at least 1).
    public var multiplier: Double
    /// The longest delay before jitter.
    public var maximumDelay: Duration
    /// The fraction of each delay drawn at random (0 none … 1 "full jitter"): the delay is
    /// uniform in `[delay × (1 − jitter), delay]`.
    public var jitter: Double
    /// The delay of the first retry after a ready device lost its link transiently: a device
    /// that was just working is most likely back at once.
    public var fastRetryDelay: Duration
    /// Attempts allowed in a row without reaching ready; when spent the device is suspended
    /// for ``budgetCooldown`` and then starts afresh.
    public var attemptBudget: Int
    /// How long a device whose budget is spent rests.
    public var budgetCooldown: Duration
    /// Consecutive protocol failures that open the circuit breaker.
    public var circuitBreakerThreshold: Int
    /// How long the circuit stays open before one trial attempt (half-open).
    public var circuitCooldown: Duration
    /// How long discovery (services, characteristics, subscriptions) may take once connected.
    public var discoveryTimeout: Duration

    /// A policy; each parameter sets the property of the same name.
    public init(initialDelay: Duration = .milliseconds(200), multiplier: Double = 2, maximumDelay: Duration = .seconds(30),
                jitter: Double = 0.5, fastRetryDelay: Duration = .milliseconds(20), attemptBudget: Int = 12,
                budgetCooldown: Duration = .seconds(120), circuitBreakerThreshold: Int = 3,
                circuitCooldown: Duration = .seconds(60), discoveryTimeout: Duration = .seconds(10)) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.fastRetryDelay = fastRetryDelay
        self.attemptBudget = attemptBudget
        self.budgetCooldown = budgetCooldown
        self.circuitBreakerThreshold = circuitBreakerThreshold
        self.circuitCooldown = circuitCooldown
        self.discoveryTimeout = discoveryTimeout
    }

    /// The defaults: 200 ms doubling to 30 s, half jitter, a 20 ms fast retry, 12 attempts,
    /// the circuit opening after 3 protocol failures for a minute.
    public static let `default` = BackoffPolicy()

    /// The delay before jitter of retry number `attempt` (1 is the first retry).
    public func nominalDelay(attempt: Int) -> Duration {
        let exponent = Double(max(0, attempt - 1))
        let factor = pow(max(1, multiplier), exponent)
        let nanos = Double(initialDelay.nanoseconds) * factor
        let capped = min(nanos, Double(maximumDelay.nanoseconds))
        return .nanoseconds(Int64(capped.isFinite ? capped : Double(maximumDelay.nanoseconds)))
    }

    /// The jittered delay of retry number `attempt`, drawn from `random`; after a transient loss
    /// of a ready link the first retry waits only ``fastRetryDelay``.
    public func delay(attempt: Int, afterTransientLoss: Bool, using random: inout some RandomNumberGenerator) -> Duration {
        if attempt <= 1 && afterTransientLoss { return fastRetryDelay }
        let nominal = nominalDelay(attempt: attempt).nanoseconds
        let spread = Int64(Double(nominal) * min(1, max(0, jitter)))
        guard spread > 0 else { return .nanoseconds(nominal) }
        return .nanoseconds(nominal - Int64.random(in: 0...spread, using: &random))
    }

    /// The longest delay ``delay(attempt:afterTransientLoss:using:)`` can return for `attempt`.
    public func delayBound(attempt: Int, afterTransientLoss: Bool) -> Duration {
        attempt <= 1 && afterTransientLoss ? fastRetryDelay : nominalDelay(attempt: attempt)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
