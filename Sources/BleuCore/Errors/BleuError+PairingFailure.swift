extension BleuError {
    /// Why pairing failed, or why an operation needed security the link lacks
    /// (``BleuError/pairingFailed(_:)``).
    public enum PairingFailure: Sendable, Hashable, Codable, CustomStringConvertible {
        /// A side ended pairing with an SMP Pairing Failed PDU carrying this reason.
        case smp(SMPReason)
        /// The peer refused the L2CAP channel on `psm` because the link lacks security
        /// (results 0x0005–0x0008: authentication, authorization, key size, encryption).
        case channelSecurity(psm: UInt16, result: UInt16)
        /// The controller could not encrypt the link with the key it was given: the HCI status of
        /// its Encryption Change (0x06 PIN or Key Missing: the peer no longer holds the bond).
        case encryption(status: UInt8)
        /// The peer did not answer within the Security Manager's 30 seconds; no further pairing
        /// is possible on this connection (Vol 3 Part H §3.4).
        case timeout
        /// The platform's Bluetooth stack reported the failure.
        case platform(PlatformError)

        public var description: String {
            switch self {
            case .smp(let reason): "\(reason)"
            case .channelSecurity(let psm, let result):
                "the peripheral's channel on PSM 0x\(hex4(psm)) needs a secure link (result 0x\(hex4(result)))"
            case .encryption(let status):
                switch status {
                case 0x06: "the peer has no key for this bond (HCI status 0x06, PIN or Key Missing)"
                case 0x05: "the peer refused the key (HCI status 0x05, Authentication Failure)"
                default: "the link could not be encrypted (HCI status 0x\(hex2(status)))"
                }
            case .timeout: "the peer did not answer within the Security Manager's 30 s"
            case .platform(let error): "\(error)"
            }
        }
    }
}

/// The reason an SMP Pairing Failed PDU carries (Core Spec Vol 3 Part H §3.5.5). Any byte is
/// kept; the specification's codes have names.
public struct SMPReason: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The user cancelled passkey entry, or it failed (0x01).
    public static let passkeyEntryFailed = SMPReason(rawValue: 0x01)
    /// The OOB data is not available (0x02).
    public static let oobNotAvailable = SMPReason(rawValue: 0x02)
    /// The IO capabilities cannot meet the authentication requirements (0x03).
    public static let authenticationRequirements = SMPReason(rawValue: 0x03)
    /// The confirm value did not match the calculated one (0x04).
    public static let confirmValueFailed = SMPReason(rawValue: 0x04)
    /// Pairing is not supported by the device (0x05).
    public static let pairingNotSupported = SMPReason(rawValue: 0x05)
    /// The resulting encryption key size is too short (0x06).
    public static let encryptionKeySize = SMPReason(rawValue: 0x06)
    /// The SMP command is not supported (0x07).
    public static let commandNotSupported = SMPReason(rawValue: 0x07)
    /// Pairing failed for another reason (0x08).
    public static let unspecifiedReason = SMPReason(rawValue: 0x08)
    /// Too little time passed since the last pairing request or security request (0x09).
    public static let repeatedAttempts = SMPReason(rawValue: 0x09)
    /// A command's parameters were invalid (0x0A).
    public static let invalidParameters = SMPReason(rawValue: 0x0A)
    /// The DHKey check value did not match the calculated one (0x0B).
    public static let dhKeyCheckFailed = SMPReason(rawValue: 0x0B)
    /// The confirm values of the numeric comparison did not match (0x0C).
    public static let numericComparisonFailed = SMPReason(rawValue: 0x0C)
    /// Pairing over BR/EDR is in progress (0x0D).
    public static let brEdrPairingInProgress = SMPReason(rawValue: 0x0D)
    /// Cross-transport key derivation is not allowed (0x0E).
    public static let crossTransportKeyDerivationNotAllowed = SMPReason(rawValue: 0x0E)
    /// The device chose not to accept a distributed key (0x0F).
    public static let keyRejected = SMPReason(rawValue: 0x0F)

    public var description: String {
        let name: String? = switch self {
        case .passkeyEntryFailed: "passkey entry failed or was cancelled"
        case .oobNotAvailable: "OOB data is not available"
        case .authenticationRequirements: "the authentication requirements cannot be met"
        case .confirmValueFailed: "the confirm value failed (a passkey did not match)"
        case .pairingNotSupported: "pairing is not supported"
        case .encryptionKeySize: "the encryption key is too short"
        case .commandNotSupported: "the SMP command is not supported"
        case .unspecifiedReason: "unspecified reason"
        case .repeatedAttempts: "repeated attempts"
        case .invalidParameters: "invalid parameters"
        case .dhKeyCheckFailed: "the DHKey check failed"
        case .numericComparisonFailed: "the numeric comparison failed"
        case .brEdrPairingInProgress: "BR/EDR pairing is in progress"
        case .crossTransportKeyDerivationNotAllowed: "cross-transport key derivation is not allowed"
        case .keyRejected: "a key was rejected"
        default: nil
        }
        return "\(name ?? "reserved reason") (SMP 0x\(hex2(rawValue)))"
    }
}
