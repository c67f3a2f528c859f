import Foundation

/// What an orchestrator does on each new link in place of discovering its ``DeviceProfile``:
/// for a user of the engine whose devices need more than one service and a few
/// subscriptions (the distributed actor system reads every actor service a peripheral hosts).
///
/// The engine still owns the link: it resolves, connects, backs off, breaks the circuit, gates
/// on the radio and the policy, and times ``prepareLink`` out after
/// ``BackoffPolicy/discoveryTimeout``. A device whose `prepareLink` returns is ready; one whose
/// `prepareLink` throws fails the attempt (classified by ``FailureClass/classify(_:)-(Error)``)
/// and is retried after backoff.
public struct LinkSetUp: Sendable {
    /// Sets up a link that was just made (or restored) to the device: discover, read,
    /// subscribe, on the link's central and under its identifier for the device. Cancelled when
    /// the engine abandons the link.
    public var prepareLink: @Sendable (FleetLink) async throws -> Void
    /// The link whose set-up began last was lost or given up (a disconnection, a failed or
    /// timed-out set-up, the policy): release what `prepareLink` built on it.
    public var linkEnded: @Sendable (UUID) -> Void

    /// A set-up; each parameter sets the property of the same name. Use it with several radios:
    /// `prepareLink` is told which central the link is on and the identifier it knows the device by.
    public init(prepareLink: @escaping @Sendable (FleetLink) async throws -> Void, linkEnded: @escaping @Sendable (UUID) -> Void) {
        self.prepareLink = prepareLink
        self.linkEnded = linkEnded
    }

    /// A set-up for a fleet on one radio whose identifiers are the central's: `prepare` is given
    /// the device's identifier, which is the one the central knows it by.
    public init(prepare: @escaping @Sendable (UUID) async throws -> Void, linkEnded: @escaping @Sendable (UUID) -> Void) {
        self.init(prepareLink: { try await prepare($0.device) }, linkEnded: linkEnded)
    }
}
