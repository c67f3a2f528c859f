import BleuCore
import Foundation

/// What kind of failure ended a connection or an attempt, which decides how the engine retries.
public enum FailureClass: String, Sendable, Hashable, Codable, CaseIterable {
    /// The link was lost or an attempt did not get through (supervision timeout, connection
    /// failed to be established, connection timeout, the peer went away). Retried quickly.
    case transientLinkLoss
    /// The radio cannot be used: Bluetooth is off, unauthorized or unsupported. Not retried
    /// until the central reports `poweredOn` again.
    case radioUnavailable
    /// The peer does not behave as the profile expects: a missing service or characteristic,
    /// an ATT error, an unsupported operation, malformed data. Repeated protocol failures open
    /// the circuit breaker.
    case protocolError
    /// Anything else. Retried with backoff.
    case unknown

    /// Classifies an error thrown by a ``/BleuCore/CentralManager`` operation.
    public static func classify(_ error: any Error) -> FailureClass {
        guard let error = error as? BleuError else { return .unknown }
        switch error {
        case .bluetoothPoweredOff, .bluetoothUnauthorized, .bluetoothUnavailable:
            return .radioUnavailable
        case .disconnected(_, let reason):
            return classify(reason)
        case .connectionTimeout, .connectionFailed, .notConnected, .peripheralNotFound, .timeout, .sendQueueFull:
            return .transientLinkLoss
        case .serviceNotFound, .characteristicNotFound, .descriptorNotFound, .att, .notSupported, .invalidData,
             .valueTooLong, .pairingFailed:
            return .protocolError
        case .limitReached, .bufferOverflow, .cancelled, .invalidState:
            return .unknown
        }
    }

    /// Classifies the reason a link ended.
    public static func classify(_ reason: DisconnectReason) -> FailureClass {
        switch reason {
        case .supervisionTimeout, .failedToEstablish, .remoteUserTerminated, .localHostTerminated:
            return .transientLinkLoss
        case .poweredOff:
            return .radioUnavailable
        case .hci(let code):
            // Authentication failure (0x05), pairing not allowed (0x18), insufficient security
            // (0x2F): the peer refuses us, which retrying the same way will not fix.
            return [0x05, 0x18, 0x2F].contains(code) ? .protocolError : .transientLinkLoss
        }
    }
}
