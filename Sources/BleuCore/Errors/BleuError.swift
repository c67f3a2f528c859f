import Foundation

/// The error Bleu's APIs throw. Each case says what failed and carries what is needed to act
/// on it; ``description`` says what to do.
public enum BleuError: Error, Sendable, Hashable, Codable {
    /// The radio cannot be used in its current state (unknown, resetting, unsupported).
    case bluetoothUnavailable(ManagerState)
    /// Bluetooth is turned off.
    case bluetoothPoweredOff
    /// The application is not allowed to use Bluetooth.
    case bluetoothUnauthorized
    /// No peripheral with this identifier is known, or it did not answer a scan.
    case peripheralNotFound(UUID)
    /// The peripheral has no service with this UUID.
    case serviceNotFound(BluetoothUUID)
    /// The service has no characteristic with this UUID.
    case characteristicNotFound(BluetoothUUID)
    /// The characteristic has no descriptor with this UUID.
    case descriptorNotFound(BluetoothUUID)
    /// A connection attempt to the peripheral did not complete in time.
    case connectionTimeout(UUID)
    /// A connection attempt to the peripheral failed.
    case connectionFailed(UUID, reason: String)
    /// The connection to the peer ended, for this reason, while or before the operation ran.
    case disconnected(UUID, DisconnectReason)
    /// The operation needs a connection to the peer and there is none.
    case notConnected(UUID)
    /// The operation did not complete in time.
    case timeout(operation: String)
    /// Data received or given was malformed.
    case invalidData(String)
    /// The peer answered with an Attribute Protocol error.
    case att(ATTError)
    /// The operation is not supported here (by the attribute's properties, the backend, or the peer).
    case notSupported(String)
    /// A write without response found the link's send queue full; wait for the ready event.
    case sendQueueFull(UUID)
    /// A value is longer than the operation allows.
    case valueTooLong(length: Int, maximum: Int)
    /// A configured limit was reached (connections, subscriptions, queue sizes, ...).
    case limitReached(String)
    /// A consumer fell behind and a bounded buffer filled; the stream was ended rather than
    /// dropping data silently.
    case bufferOverflow(String)
    /// Pairing with the peer failed or was rejected.
    case pairingFailed(String)
    /// The operation was cancelled.
    case cancelled
    /// The operation cannot run in the manager's current state, such as adding a service twice.
    case invalidState(String)
}

extension BleuError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .bluetoothUnavailable(let state):
            "Bluetooth is unavailable (state: \(state)). Wait for the manager to report poweredOn."
        case .bluetoothPoweredOff:
            "Bluetooth is powered off. Turn Bluetooth on and try again."
        case .bluetoothUnauthorized:
            "This application is not authorized to use Bluetooth. Grant the Bluetooth permission."
        case .peripheralNotFound(let id):
            "Peripheral \(id) was not found. Make sure it is advertising and in range, then scan again."
        case .serviceNotFound(let uuid):
            "Service \(uuid) was not found on the peripheral. Check that the peripheral hosts it."
        case .characteristicNotFound(let uuid):
            "Characteristic \(uuid) was not found in the service. Check the service definition."
        case .descriptorNotFound(let uuid):
            "Descriptor \(uuid) was not found on the characteristic."
        case .connectionTimeout(let id):
            "Connecting to \(id) timed out. Make sure it is advertising and in range, or allow a longer timeout."
        case .connectionFailed(let id, let reason):
            "Connecting to \(id) failed: \(reason)."
        case .disconnected(let id, let reason):
            "The connection to \(id) ended: \(reason). Reconnect to continue."
        case .notConnected(let id):
            "\(id) is not connected. Connect before this operation."
        case .timeout(let operation):
            "\(operation) timed out."
        case .invalidData(let reason):
            "Invalid data: \(reason)."
        case .att(let error):
            "The peer answered with \(error)"
        case .notSupported(let what):
            "Not supported: \(what)."
        case .sendQueueFull(let id):
            "The send queue to \(id) is full. Wait until it is ready to send (canSendWriteWithoutResponse) and try again."
        case .valueTooLong(let length, let maximum):
            "The value is \(length) bytes, longer than the \(maximum) bytes allowed. Send less, or split it."
        case .limitReached(let what):
            "Limit reached: \(what)."
        case .bufferOverflow(let what):
            "A buffer filled because its consumer fell behind (\(what)). Consume values faster or subscribe again."
        case .pairingFailed(let reason):
            "Pairing failed: \(reason)."
        case .cancelled:
            "The operation was cancelled."
        case .invalidState(let reason):
            "Not possible now: \(reason)."
        }
    }

    public var errorDescription: String? { description }
}
