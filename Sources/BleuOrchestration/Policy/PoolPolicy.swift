import Foundation

/// How the dynamic pool chooses devices: a score from signal strength, recency and the app's
/// priority, with a bonus for devices already connected so the pool does not flap.
public struct PoolPolicy: Sendable, Hashable, Codable {
    /// Devices connected at once, pinned ones included. Pinned devices always get a place;
    /// pooled ones share what is left, best score first.
    public var maximumConcurrency: Int
    /// Weight of the signal strength (−100 dBm scores 0, −30 dBm scores 1).
    public var rssiWeight: Double
    /// Weight of recency (just heard scores 1, halving every ``recencyHalfLife``).
    public var recencyWeight: Double
    /// Weight of the app's priority (0…1 as given).
    public var priorityWeight: Double
    /// How fast recency decays.
    public var recencyHalfLife: Duration
    /// Added to the score of a pooled device that is already chosen, so a slightly better
    /// newcomer does not evict it (hysteresis).
    public var incumbentBonus: Double

    /// A policy; each parameter sets the property of the same name.
    public init(maximumConcurrency: Int = 8, rssiWeight: Double = 1, recencyWeight: Double = 0.5, priorityWeight: Double = 2,
                recencyHalfLife: Duration = .seconds(30), incumbentBonus: Double = 0.1) {
        self.maximumConcurrency = maximumConcurrency
        self.rssiWeight = rssiWeight
        self.recencyWeight = recencyWeight
        self.priorityWeight = priorityWeight
        self.recencyHalfLife = recencyHalfLife
        self.incumbentBonus = incumbentBonus
    }

    /// What the pool knows of a candidate.
    public struct Candidate: Sendable, Hashable {
        /// The last received signal strength, in dBm.
        public var rssi: Int
        /// When it was last heard (time since the orchestrator's clock origin).
        public var lastSeen: Duration
        /// The app's priority, 0 (none) to 1 (highest).
        public var priority: Double

        public init(rssi: Int, lastSeen: Duration, priority: Double) {
            self.rssi = rssi
            self.lastSeen = lastSeen
            self.priority = priority
        }
    }

    /// The score of a candidate at `now` (higher is better).
    public func score(_ candidate: Candidate, now: Duration, incumbent: Bool) -> Double {
        let signal = min(1, max(0, Double(candidate.rssi + 100) / 70))
        let recency = halving(after: now - candidate.lastSeen, halfLife: recencyHalfLife)
        let priority = min(1, max(0, candidate.priority))
        return rssiWeight * signal + recencyWeight * recency + priorityWeight * priority + (incumbent ? incumbentBonus : 0)
    }

    /// The devices that should be connected: every pinned one, then pooled candidates by score
    /// (ties broken by identifier) up to ``maximumConcurrency``. Pinned devices beyond the
    /// maximum are still all chosen: pinning is a promise.
    public func eligible(pinned: Set<UUID>, candidates: [UUID: Candidate], incumbents: Set<UUID>, now: Duration) -> Set<UUID> {
        var chosen = pinned
        let room = max(0, maximumConcurrency - pinned.count)
        guard room > 0 else { return chosen }
        let ranked = candidates.filter { !pinned.contains($0.key) }
            .map { (id: $0.key, score: score($0.value, now: now, incumbent: incumbents.contains($0.key))) }
            .sorted { $0.score != $1.score ? $0.score > $1.score : $0.id.uuidString < $1.id.uuidString }
        for entry in ranked.prefix(room) { chosen.insert(entry.id) }
        return chosen
    }
}
