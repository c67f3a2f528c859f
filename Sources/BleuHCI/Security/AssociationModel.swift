/// How a pairing authenticates (Core Specification Vol 3 Part H §2.3.5.1): chosen from the two
/// sides' Pairing Request and Pairing Response.
public enum AssociationModel: Hashable, Sendable, CustomStringConvertible {
    /// No user involvement; the keys are unauthenticated (no protection against a man in the
    /// middle).
    case justWorks
    /// Both sides show a six-digit number and the users confirm they match (Secure Connections).
    case numericComparison
    /// A six-digit passkey shown on one side is typed on the other (or typed on both).
    case passkeyEntry(PasskeyEntry)
    /// Data exchanged out of band (NFC, a QR code) authenticates the pairing.
    case outOfBand

    /// Who shows the passkey and who types it.
    public enum PasskeyEntry: Hashable, Sendable {
        /// The initiator (central) shows it; the responder types it.
        case initiatorDisplays
        /// The responder (peripheral) shows it; the initiator types it.
        case responderDisplays
        /// Neither can show one: the users type the same passkey on both.
        case bothInput
    }

    /// Whether the resulting keys are authenticated (protected against a man in the middle).
    public var isAuthenticated: Bool { self != .justWorks }

    public var description: String {
        switch self {
        case .justWorks: "Just Works"
        case .numericComparison: "Numeric Comparison"
        case .passkeyEntry(.initiatorDisplays): "Passkey Entry (the central displays)"
        case .passkeyEntry(.responderDisplays): "Passkey Entry (the peripheral displays)"
        case .passkeyEntry(.bothInput): "Passkey Entry (typed on both)"
        case .outOfBand: "Out of Band"
        }
    }

    /// The model for a pairing between `initiator`'s request and `responder`'s response;
    /// `secureConnections` when both set the SC bit. Out-of-band data decides first (with
    /// Secure Connections one side's is enough; legacy pairing needs both), then whether either
    /// side asks for MITM protection, then the two IO capabilities (§2.3.5.1, Table 2.8).
    public static func select(initiator: PairingFeatures, responder: PairingFeatures, secureConnections: Bool) -> AssociationModel {
        let oob = secureConnections ? initiator.oobDataPresent || responder.oobDataPresent
                                    : initiator.oobDataPresent && responder.oobDataPresent
        if oob { return .outOfBand }
        guard initiator.authentication.contains(.mitm) || responder.authentication.contains(.mitm) else { return .justWorks }
        return byIOCapabilities(initiator: initiator.ioCapability, responder: responder.ioCapability,
                                secureConnections: secureConnections)
    }

    /// Table 2.8: the model of two IO capabilities when MITM protection is asked for. A
    /// reserved capability counts as NoInputNoOutput.
    static func byIOCapabilities(initiator: IOCapability, responder: IOCapability, secureConnections: Bool) -> AssociationModel {
        let displays: Set<IOCapability> = [.displayOnly, .displayYesNo, .keyboardDisplay]
        let types: Set<IOCapability> = [.keyboardOnly, .keyboardDisplay]
        let confirms: Set<IOCapability> = [.displayYesNo, .keyboardDisplay]
        if secureConnections, confirms.contains(initiator), confirms.contains(responder) { return .numericComparison }
        switch (types.contains(initiator), types.contains(responder)) {
        case (false, false):
            return .justWorks
        case (true, false):
            return displays.contains(responder) ? .passkeyEntry(.responderDisplays) : .justWorks
        case (false, true):
            return displays.contains(initiator) ? .passkeyEntry(.initiatorDisplays) : .justWorks
        case (true, true):
            // Both can type; one that can also show does (the initiator first).
            if initiator == .keyboardDisplay { return .passkeyEntry(.initiatorDisplays) }
            if responder == .keyboardDisplay { return .passkeyEntry(.responderDisplays) }
            return .passkeyEntry(.bothInput)
        }
    }
}
