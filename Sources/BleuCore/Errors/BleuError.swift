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
    /// A connection attempt to the peripheral, or an L2CAP channel to it, failed.
    case connectionFailed(UUID, reason: ConnectionFailure)
    /// The connection to the peer ended, for this reason, while or before the operation ran.
    case disconnected(UUID, DisconnectReason)
    /// The operation needs a connection to the peer and there is none.
    case notConnected(UUID)
    /// The operation did not complete in time: within `after`, when the backend says.
    case timeout(Operation, after: Duration?)
    /// Data received or given was malformed.
    case invalidData(InvalidData)
    /// The peer answered with an Attribute Protocol error.
    case att(ATTError)
    /// The operation is not supported here (by the attribute's properties, the backend, or the peer).
    case notSupported(Unsupported)
    /// A write without response found the link's send queue full; wait for the ready event.
    case sendQueueFull(UUID)
    /// A value is longer than the operation allows.
    case valueTooLong(length: Int, maximum: Int)
    /// A configured limit was reached (connections, subscriptions, queue sizes, ...).
    case limitReached(Limit)
    /// A consumer fell behind and a bounded buffer filled; the stream was ended rather than
    /// dropping data silently.
    case bufferOverflow(OverflowedBuffer)
    /// Pairing with the peer failed or was rejected.
    case pairingFailed(PairingFailure)
    /// The operation was cancelled.
    case cancelled
    /// The operation cannot run in the manager's current state, such as adding a service twice.
    case invalidState(InvalidState)
}

extension BleuError: CustomStringConvertible, LocalizedError {
    /// What failed, then what to do about it: ``summary`` followed by ``remedy``.
    public var description: String { "\(summary) \(remedy)" }

    public var errorDescription: String? { description }

    /// What failed and why, in a sentence, without advice.
    public var summary: String {
        switch self {
        case .bluetoothUnavailable(let state): "Bluetooth is unavailable (state: \(state))."
        case .bluetoothPoweredOff: "Bluetooth is powered off."
        case .bluetoothUnauthorized: "This application is not authorized to use Bluetooth."
        case .peripheralNotFound(let id): "Peripheral \(id) was not found."
        case .serviceNotFound(let uuid): "Service \(uuid) was not found on the peripheral."
        case .characteristicNotFound(let uuid): "Characteristic \(uuid) was not found in the service."
        case .descriptorNotFound(let uuid): "Descriptor \(uuid) was not found on the characteristic."
        case .connectionTimeout(let id): "Connecting to \(id) timed out."
        case .connectionFailed(let id, let reason): "Connecting to \(id) failed: \(reason)."
        case .disconnected(let id, let reason): "The connection to \(id) ended: \(reason)."
        case .notConnected(let id): "\(id) is not connected."
        case .timeout(let operation, let after?): "\(operation.description.capitalizedFirst) timed out after \(after)."
        case .timeout(let operation, nil): "\(operation.description.capitalizedFirst) timed out."
        case .invalidData(let reason): "Invalid data: \(reason)."
        case .att(let error): "The peer answered with \(error)"
        case .notSupported(let what): "Not supported: \(what)."
        case .sendQueueFull(let id): "The send queue to \(id) is full."
        case .valueTooLong(let length, let maximum):
            "The value is \(length) bytes, longer than the \(maximum) bytes allowed."
        case .limitReached(let what): "Limit reached: \(what)."
        case .bufferOverflow(let what): "A buffer filled because its consumer fell behind (\(what))."
        case .pairingFailed(let reason): "Pairing failed: \(reason)."
        case .cancelled: "The operation was cancelled."
        case .invalidState(let reason): "Not possible now: \(reason)."
        }
    }

    /// What the user or the calling code can do about the error, in a sentence or two.
    public var remedy: String {
        switch self {
        case .bluetoothUnavailable(.unsupported):
            "This device has no usable Bluetooth LE radio; run on one that has, or attach an adapter."
        case .bluetoothUnavailable:
            "Wait for the manager to report poweredOn, then try again."
        case .bluetoothPoweredOff:
            "Turn Bluetooth on and try again."
        case .bluetoothUnauthorized:
            "Grant the application the Bluetooth permission in the system settings, then try again."
        case .peripheralNotFound:
            "Make sure it is advertising and in range, then scan again."
        case .serviceNotFound:
            "Check that the peripheral hosts it and that discovery asked for it; discover again if the peripheral changed."
        case .characteristicNotFound:
            "Check the service definition on both sides; discover the characteristics again if the peripheral changed."
        case .descriptorNotFound:
            "Check that the peripheral declares it, and discover the characteristic's descriptors before using them."
        case .connectionTimeout:
            "Make sure it is advertising and in range, or allow a longer timeout."
        case .connectionFailed:
            "Try again; if it keeps failing, move closer, check that the peripheral accepts another connection, or restart it."
        case .disconnected:
            "Reconnect to continue; the operation may not have reached the peer."
        case .notConnected:
            "Connect to it before this operation."
        case .timeout:
            "Retry; if it keeps timing out, move closer to the peer or raise the timeout."
        case .invalidData:
            "Check that both sides use the same format for the value (codec, length, byte order)."
        case .att(let error):
            error.remedy
        case .notSupported:
            "Use an operation that the characteristic's properties, the backend and the peer all allow."
        case .sendQueueFull:
            "Wait until it is ready to send (canSendWriteWithoutResponse) and try again."
        case .valueTooLong:
            "Send less or split the value; a larger ATT MTU raises the limit when both sides support it."
        case .limitReached:
            "Release what is no longer used (connections, subscriptions, queued work), or raise the limit in the configuration."
        case .bufferOverflow:
            "Consume values faster, or subscribe again."
        case .pairingFailed:
            "Remove the stored bond on both devices and pair again; confirm the passkey if asked."
        case .cancelled:
            "Start the operation again if it is still needed."
        case .invalidState(let state):
            state.remedy
        }
    }
}

extension BleuError.InvalidState {
    /// What to do about the state.
    var remedy: String {
        switch self {
        case .channelClosed, .channelClosedByPeer: "Open a new L2CAP channel."
        case .connectionClosed, .servicesChanged: "Connect and discover again."
        case .singleConsumer: "Give each consumer its own stream or subscription."
        case .managerGone, .managerReplaced, .busReset: "Create a new manager."
        case .hubConnectionLost: "Check that the hub still runs, then connect a new bus to it and create new managers."
        case .invalidConfiguration: "Change the setting to a value within its range."
        case .foreignActor: "Create the actor with this actor system."
        case .unexpectedOutcome, .platform: "Try again; if it keeps failing, report it with the log."
        case .psmNotPublished, .serviceNotPublished, .serviceReserved, .serviceIncluded, .staticValueNotAllowed,
             .clientConfigurationDeclared, .handlerForUndeclared, .handlerNotAllowed, .handlerForStaticValue:
            "Check the order of the calls and the service's declaration: finish or undo the earlier step first."
        }
    }
}

extension String {
    /// The string with its first character uppercased.
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
