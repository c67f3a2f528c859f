import BleuCore
import Foundation

/// Errors of the fleet engine. Each says what failed and what to do.
public enum FleetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The device's queue of this class is full.
    case queueFull(device: UUID, qos: QoSClass, limit: Int)
    /// The message is larger than the scheduler accepts.
    case messageTooLarge(size: Int, maximum: Int)
    /// The device is not managed by this orchestrator (pin or offer it first).
    case unknownDevice(UUID)
    /// The profile has no characteristic to write to.
    case notWritable(UUID)

    public var description: String {
        switch self {
        case .queueFull(let device, let qos, let limit):
            "The \(qos) queue of \(device) is full (\(limit) messages). Wait for it to drain, or raise SchedulerLimits.capacity."
        case .messageTooLarge(let size, let maximum):
            "The message is \(size) bytes, more than the \(maximum) allowed. Split it, or raise SchedulerLimits.maximumMessageSize."
        case .unknownDevice(let id):
            "\(id) is not managed by this orchestrator. Pin it or offer it to the pool first."
        case .notWritable(let id):
            "The profile of \(id) names no characteristic to write to. Set DeviceProfile.writeCharacteristic."
        }
    }
}
