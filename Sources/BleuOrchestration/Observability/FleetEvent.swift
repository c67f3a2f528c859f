import BleuCore
import Foundation

/// What the orchestrator tells an app about its devices (``FleetOrchestrator/events()``).
public enum FleetEvent: Sendable, Hashable {
    /// A device moved from one state to another at `at` (time since the orchestrator's clock origin).
    case stateChanged(device: UUID, from: DeviceState, to: DeviceState, at: Duration)
    /// A device became ready; `latency` is the time from the start of the attempt (leaving
    /// backoff, suspension or idle) to ready.
    case ready(device: UUID, latency: Duration)
    /// A message arrived from a device, reassembled and validated.
    case message(device: UUID, characteristic: BluetoothUUID, Data)
    /// Incoming data from a device was rejected (malformed, corrupt, or over a limit).
    case rejected(device: UUID, reason: String)
}
