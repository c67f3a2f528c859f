/// The classes of outgoing traffic, from the most to the least urgent.
public enum QoSClass: String, Sendable, Hashable, Codable, CaseIterable {
    /// Commands that change what a device does; small and urgent.
    case control
    /// Traffic a user waits for.
    case interactive
    /// Everything else: logs, firmware, sync.
    case bulk
}

/// Bounds and weights of the outgoing queues of one device.
public struct SchedulerLimits: Sendable, Hashable, Codable {
    /// Messages each class holds before ``FleetError/queueFull(device:qos:limit:)``.
    public var capacity: [QoSClass: Int]
    /// Messages of each class sent per round of the weighted round-robin; every class with
    /// messages gets its turn in each round, so none starves.
    public var weights: [QoSClass: Int]
    /// The largest message accepted.
    public var maximumMessageSize: Int

    /// Limits; each parameter sets the property of the same name.
    public init(capacity: [QoSClass: Int] = [.control: 16, .interactive: 64, .bulk: 256],
                weights: [QoSClass: Int] = [.control: 4, .interactive: 2, .bulk: 1],
                maximumMessageSize: Int = 16 * 1024) {
        self.capacity = capacity
        self.weights = weights
        self.maximumMessageSize = maximumMessageSize
    }

    /// The capacity of a class (at least 1).
    public func capacity(of qos: QoSClass) -> Int { max(1, capacity[qos] ?? 1) }

    /// The weight of a class (at least 1).
    public func weight(of qos: QoSClass) -> Int { max(1, weights[qos] ?? 1) }
}
