import DequeModule
import Foundation

/// The outgoing queues of one device: one bounded FIFO per ``QoSClass``, served by weighted
/// round-robin. A pure value: the device's outbox does the I/O.
///
/// Each round serves up to ``SchedulerLimits/weight(of:)`` messages of each class in turn
/// (control, interactive, bulk), skipping empty classes, so a busy class cannot starve another:
/// a message waits at most one round per message ahead of it in its own class. A message taken
/// with ``next()`` stays counted against its class's bound until ``complete(_:)`` or
/// ``requeue(_:_:)``, so a retry never overflows a queue.
public struct OutgoingQueues: Sendable {
    public let limits: SchedulerLimits
    private var queues: [QoSClass: Deque<Data>] = [:]
    private var inFlight: [QoSClass: Int] = [:]
    /// The deepest each class has been (waiting and in flight together).
    public private(set) var peakDepth: [QoSClass: Int] = [:]
    private var current = 0
    private var credit: Int
    private static let order = QoSClass.allCases

    public init(limits: SchedulerLimits) {
        self.limits = limits
        self.credit = limits.weight(of: Self.order[0])
    }

    /// Messages waiting or in flight in a class.
    public func depth(of qos: QoSClass) -> Int { (queues[qos]?.count ?? 0) + (inFlight[qos] ?? 0) }

    /// Messages waiting in every class.
    public var waiting: Int { queues.values.reduce(0) { $0 + $1.count } }

    /// Whether a class is at its bound.
    public func isFull(_ qos: QoSClass) -> Bool { depth(of: qos) >= limits.capacity(of: qos) }

    /// Appends a message to its class; throws ``FleetError/queueFull(device:qos:limit:)`` (with
    /// `device`) when the class is at its bound, or ``FleetError/messageTooLarge(size:maximum:)``.
    public mutating func enqueue(_ message: Data, qos: QoSClass, device: UUID) throws(FleetError) {
        guard message.count <= limits.maximumMessageSize else {
            throw .messageTooLarge(size: message.count, maximum: limits.maximumMessageSize)
        }
        guard !isFull(qos) else { throw .queueFull(device: device, qos: qos, limit: limits.capacity(of: qos)) }
        queues[qos, default: []].append(message)
        peakDepth[qos] = max(peakDepth[qos] ?? 0, depth(of: qos))
    }

    /// Takes the next message by the weighted round-robin, or `nil` when every queue is empty.
    public mutating func next() -> (qos: QoSClass, message: Data)? {
        guard waiting > 0 else { return nil }
        while true {
            let qos = Self.order[current]
            if credit > 0, let message = queues[qos]?.popFirst() {
                credit -= 1
                inFlight[qos, default: 0] += 1
                return (qos, message)
            }
            current = (current + 1) % Self.order.count
            credit = limits.weight(of: Self.order[current])
        }
    }

    /// The message taken from `qos` was delivered.
    public mutating func complete(_ qos: QoSClass) {
        inFlight[qos] = max(0, (inFlight[qos] ?? 0) - 1)
    }

    /// The message taken from `qos` was not delivered: it goes back to the head of its class,
    /// ahead of everything queued since.
    public mutating func requeue(_ message: Data, _ qos: QoSClass) {
        inFlight[qos] = max(0, (inFlight[qos] ?? 0) - 1)
        queues[qos, default: []].prepend(message)
    }
}
