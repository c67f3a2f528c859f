import Foundation

/// How an orchestrator with several radios chooses the one a device connects through: the radio
/// that hears it best, in dB, less penalties for a radio short of connection slots, busy with
/// attempts, or where this device failed lately. Scores are in dB so the penalties read as
/// "worth this much signal".
///
/// A radio is chosen again at every attempt (after a lost link, a failure, a radio gone), so
/// failures move a device to another radio and a radio that goes away hands its devices over.
public struct RadioChoicePolicy: Sendable, Hashable, Codable {
    /// The signal strength scored for a radio that knows the device but has not heard it lately,
    /// in dBm (the lowest a controller reports). Only a fleet on one central whose identifiers
    /// are its own knows devices it has not heard; with several radios every option was heard.
    public var unheardRSSI: Int
    /// Subtracted when the radio has no free connection slot: large enough that a full radio
    /// loses to any radio with room unless that one's other penalties (attempts, failures) are
    /// larger still; when every radio is full the best is tried (its controller may refuse).
    public var fullPenalty: Double
    /// Subtracted in proportion to the share of the radio's slots in use (this much when all
    /// are): devices heard alike spread over radios.
    public var occupancyPenalty: Double
    /// Subtracted per connection attempt under way on the radio.
    public var attemptPenalty: Double
    /// Subtracted per recent failure of this device on this radio (a failed connection or
    /// set-up, a lost link), each counting half after every ``failureHalfLife``.
    public var failurePenalty: Double
    /// How fast a failure is forgiven.
    public var failureHalfLife: Duration
    /// How long a sighting counts: a device heard within it is connected without scanning again.
    public var sightingLifetime: Duration
    /// After the first radio hears a device, how long the others may listen before the choice
    /// is made (a radio that hears it better may report later).
    public var listenWindow: Duration

    /// A policy; each parameter sets the property of the same name.
    public init(unheardRSSI: Int = -127, fullPenalty: Double = 100, occupancyPenalty: Double = 10, attemptPenalty: Double = 6,
                failurePenalty: Double = 12, failureHalfLife: Duration = .seconds(60), sightingLifetime: Duration = .seconds(30),
                listenWindow: Duration = .milliseconds(300)) {
        self.unheardRSSI = unheardRSSI
        self.fullPenalty = fullPenalty
        self.occupancyPenalty = occupancyPenalty
        self.attemptPenalty = attemptPenalty
        self.failurePenalty = failurePenalty
        self.failureHalfLife = failureHalfLife
        self.sightingLifetime = sightingLifetime
        self.listenWindow = listenWindow
    }

    /// What is known of one radio for one device at the time of the choice.
    public struct Option: Sendable, Hashable {
        /// The radio's position in the orchestrator's list.
        public var radio: Int
        /// The device's signal strength as this radio last heard it, `nil` when it was not
        /// heard lately (the radio knows it from before).
        public var rssi: Int?
        /// Devices assigned to the radio now (connected, connecting or setting up), this one excluded.
        public var assigned: Int
        /// Links the radio can hold at once.
        public var slots: Int
        /// Connection attempts under way on the radio.
        public var attempts: Int
        /// This device's failures on this radio, already decayed (see ``decayedFailures(_:age:)``).
        public var failures: Double

        /// An option; each parameter sets the property of the same name.
        public init(radio: Int, rssi: Int?, assigned: Int, slots: Int, attempts: Int, failures: Double) {
            self.radio = radio
            self.rssi = rssi
            self.assigned = assigned
            self.slots = slots
            self.attempts = attempts
            self.failures = failures
        }
    }

    /// The score of an option (higher is better), in dB.
    public func score(_ option: Option) -> Double {
        let slots = max(1, option.slots)
        var score = Double(option.rssi ?? unheardRSSI)
        if option.assigned >= slots { score -= fullPenalty }
        score -= occupancyPenalty * Double(min(option.assigned, slots)) / Double(slots)
        score -= attemptPenalty * Double(option.attempts)
        score -= failurePenalty * option.failures
        return score
    }

    /// The best option's radio (ties go to the radio listed first), or `nil` when there is none.
    public func choose(_ options: [Option]) -> Int? {
        var best: (radio: Int, score: Double)?
        for option in options.sorted(by: { $0.radio < $1.radio }) {
            let score = score(option)
            if best == nil || score > best!.score { best = (option.radio, score) }
        }
        return best?.radio
    }

    /// Failures that weighed `weight` when the last of them came, `age` ago, as they weigh now:
    /// halved every ``failureHalfLife``.
    public func decayedFailures(_ weight: Double, age: Duration) -> Double {
        guard weight > 0 else { return 0 }
        return weight * halving(after: age, halfLife: failureHalfLife)
    }
}
