import BleuCore

/// Everything about how a ``FleetOrchestrator`` runs.
public struct FleetConfiguration: Sendable, Hashable {
    /// The service and characteristics of the devices.
    public var profile: DeviceProfile
    /// The dynamic pool, and the maximum of devices connected at once.
    public var pool: PoolPolicy
    /// Connection attempts the radio runs at once, across the fleet; the rest wait their turn.
    public var maximumConnectionAttempts: Int
    /// How long one connection attempt may take once it has a slot.
    public var connectTimeout: Duration
    /// How long resolving a device the central does not know may scan for it.
    public var scanTimeout: Duration
    /// Backoff, budget, circuit breaker and discovery timeout of every device.
    public var backoff: BackoffPolicy
    /// The outgoing queues of every device.
    public var scheduler: SchedulerLimits
    /// How a fleet with several radios chooses a device's radio.
    public var radioChoice: RadioChoicePolicy

    /// A configuration; each parameter sets the property of the same name.
    public init(profile: DeviceProfile, pool: PoolPolicy = PoolPolicy(), maximumConnectionAttempts: Int = 4,
                connectTimeout: Duration = .seconds(10), scanTimeout: Duration = .seconds(10), backoff: BackoffPolicy = .default,
                scheduler: SchedulerLimits = SchedulerLimits(), radioChoice: RadioChoicePolicy = RadioChoicePolicy()) {
        self.profile = profile
        self.pool = pool
        self.maximumConnectionAttempts = maximumConnectionAttempts
        self.connectTimeout = connectTimeout
        self.scanTimeout = scanTimeout
        self.backoff = backoff
        self.scheduler = scheduler
        self.radioChoice = radioChoice
    }
}
