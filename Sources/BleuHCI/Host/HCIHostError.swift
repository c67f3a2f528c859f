import BleuCore

/// What went wrong between the host and its controller.
public enum HCIHostError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The controller neither completed nor acknowledged the command in time. The host gives the
    /// command slot back, so later commands still go out.
    case commandTimeout(HCIOpcode, after: Duration)
    /// The controller refused the command or it failed.
    case commandFailed(HCIOpcode, HCIStatus)
    /// More commands are waiting than the host's bound allows.
    case commandQueueFull(limit: Int)
    /// More ACL packets are waiting for controller buffers than the host's bound allows.
    case aclQueueFull(limit: Int)
    /// The connection handle is not (or no longer) connected.
    case unknownConnection(UInt16)
    /// The link to the controller closed, for this reason.
    case transportClosed(TransportEnd)
    /// The start-up sequence's command with this opcode failed with `cause`.
    indirect case initializationFailed(step: HCIOpcode, cause: HCIHostError)
    /// The host has not been started, or has been stopped.
    case notRunning

    public var description: String {
        switch self {
        case let .commandTimeout(opcode, after):
            "HCI command \(opcode) got no answer within \(after); the controller may not support it"
        case let .commandFailed(opcode, status): "HCI command \(opcode) failed: \(status)"
        case .commandQueueFull(let limit): "more than \(limit) HCI commands are waiting; slow down"
        case .aclQueueFull(let limit):
            "more than \(limit) ACL packets are waiting for controller buffers; wait for the link to drain"
        case .unknownConnection(let handle): "no connection with handle 0x\(hex4(handle))"
        case .transportClosed(let reason): "the link to the controller closed: \(reason)"
        case let .initializationFailed(step, cause):
            "controller start-up failed at \(step): \(cause); check the transport and that the controller supports LE"
        case .notRunning: "the HCI host is not running; call start() first"
        }
    }
}

/// Why the host's link to its controller closed (``HCIHostError/transportClosed(_:)``).
public enum TransportEnd: Sendable, Hashable, CustomStringConvertible {
    /// The host was stopped.
    case stopped
    /// The controller closed the link.
    case closedByController
    /// Receiving from the controller failed.
    case receiveFailed(HCITransportError)
    /// Sending to the controller failed.
    case sendFailed(HCITransportError)

    public var description: String {
        switch self {
        case .stopped: "the host was stopped"
        case .closedByController: "the controller closed the link"
        case .receiveFailed(let error): "receiving failed: \(error)"
        case .sendFailed(let error): "sending failed: \(error)"
        }
    }
}
