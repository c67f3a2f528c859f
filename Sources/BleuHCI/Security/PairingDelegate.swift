import Foundation

/// The application's part in pairing: whether to pair with a peer that asks, and the user's
/// side of the association model — showing a passkey, typing one, comparing two numbers.
///
/// Every method is `async`, so an application can ask its user and answer when they do. The
/// Security Manager's 30-second timeout runs meanwhile (Core Spec Vol 3 Part H §3.4): a user who
/// answers later than that finds the pairing failed with
/// ``/BleuCore/BleuError/PairingFailure/timeout``.
///
/// Each method has a default: accept every pairing, show nothing, enter no passkey (the pairing
/// fails with Passkey Entry Failed) and refuse every comparison (Numeric Comparison Failed).
/// A device whose ``SecurityManagerConfiguration/ioCapability`` is
/// ``IOCapability/noInputNoOutput`` (the default) only ever pairs with Just Works, which asks
/// the delegate nothing but ``shouldPair(_:)``.
public protocol PairingDelegate: Sendable {
    /// A peer asks to pair: a central's Pairing Request reached this peripheral, or a
    /// peripheral's Security Request reached this central. Return `false` to refuse (the peer
    /// gets Pairing Failed, Pairing Not Supported).
    func shouldPair(_ request: PairingProposal) async -> Bool
    /// Show `passkey` (000000–999999, shown with six digits) to the user, who types it on the
    /// peer.
    func display(passkey: UInt32, to peer: UUID) async
    /// Ask the user for the passkey the peer shows; `nil` cancels the pairing.
    func enterPasskey(for peer: UUID) async -> UInt32?
    /// Ask the user whether the peer shows the same six-digit `number`.
    func confirm(number: UInt32, with peer: UUID) async -> Bool
}

extension PairingDelegate {
    public func shouldPair(_ request: PairingProposal) async -> Bool { true }
    public func display(passkey: UInt32, to peer: UUID) async {}
    public func enterPasskey(for peer: UUID) async -> UInt32? { nil }
    public func confirm(number: UInt32, with peer: UUID) async -> Bool { false }
}

/// A peer's request to pair, as ``PairingDelegate/shouldPair(_:)`` sees it.
public struct PairingProposal: Sendable, Hashable {
    /// The peer, as the radio's managers identify it.
    public var peer: UUID
    /// The address it connected from.
    public var address: PairingAddress
    /// Whether it asks for keys protected against a man in the middle.
    public var wantsAuthentication: Bool
    /// Whether it asks to bond (keep the keys for later connections).
    public var wantsBonding: Bool

    /// A proposal; each parameter sets the property of the same name.
    public init(peer: UUID, address: PairingAddress, wantsAuthentication: Bool, wantsBonding: Bool) {
        self.peer = peer
        self.address = address
        self.wantsAuthentication = wantsAuthentication
        self.wantsBonding = wantsBonding
    }
}

/// A ``PairingDelegate`` with fixed answers: it pairs with every peer, enters `passkey` when
/// asked for one, and accepts every numeric comparison when `confirmsNumbers` is set — for a
/// command-line tool given `--passkey`, and for tests.
public struct FixedPairingDelegate: PairingDelegate {
    /// The passkey entered when asked (`nil`: none, the pairing fails).
    public var passkey: UInt32?
    /// Whether numeric comparisons are accepted.
    public var confirmsNumbers: Bool

    /// A delegate; each parameter sets the property of the same name.
    public init(passkey: UInt32? = nil, confirmsNumbers: Bool = false) {
        self.passkey = passkey
        self.confirmsNumbers = confirmsNumbers
    }

    public func enterPasskey(for peer: UUID) async -> UInt32? { passkey }
    public func confirm(number: UInt32, with peer: UUID) async -> Bool { confirmsNumbers }
}
