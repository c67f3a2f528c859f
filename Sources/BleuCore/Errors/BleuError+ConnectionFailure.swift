import Foundation

extension BleuError {
    /// Why a connection attempt, or the opening of an L2CAP channel, failed
    /// (``BleuError/connectionFailed(_:reason:)``).
    public enum ConnectionFailure: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The controller or the peer ended the attempt with this HCI reason, such as
        /// ``DisconnectReason/failedToEstablish`` (0x3E).
        case link(DisconnectReason)
        /// The controller refused to start the attempt: the HCI command failed with this status.
        case commandRejected(status: UInt8)
        /// The peer refused the L2CAP channel on `psm` with this LE credit-based connection
        /// result (Core Spec Vol 3 Part A §4.23).
        case channelRefused(psm: UInt16, result: UInt16)
        /// The platform's Bluetooth stack reported the failure.
        case platform(PlatformError)
        /// The backend reported the failure without a reason.
        case unspecified

        public var description: String {
            switch self {
            case .link(let reason): "\(reason)"
            case .commandRejected(let status): "the controller rejected the command (HCI status 0x\(hex2(status)))"
            case .channelRefused(let psm, let result):
                "the peripheral refused the L2CAP channel on PSM 0x\(hex4(psm)) (result 0x\(hex4(result)))"
            case .platform(let error): "\(error)"
            case .unspecified: "no reason was given"
            }
        }
    }
}
