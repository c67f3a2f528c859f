import BleuCore
import Foundation

/// Connection parameters, data length and PHY of established connections.
extension HCIRadio {
    /// The link-layer parameters of the connection to `peer` (either role), as the controller
    /// last reported them; `nil` when not connected.
    public func linkParameters(of peer: UUID) -> HCILinkParameters? {
        connections.anyLink(to: peer).flatMap { linkLayer.parameters[$0.handle] }
    }

    /// Asks for new connection parameters (LE Connection Update) and returns once the controller
    /// reports them. Throws ``HCIHostError`` when the controller refuses the command or does not
    /// answer it, ``/BleuCore/BleuError/timeout(_:after:)`` when the update never completes.
    public func updateConnection(of peer: UUID, _ parameters: LEConnectionParameters) async throws {
        let link = try anyLink(peer)
        _ = try await host.send(.leConnectionUpdate(handle: link.handle.rawValue, parameters))
        try await waitForProcedure(.connectionUpdate(link.handle), .updateConnectionParameters)
    }

    /// Asks the controller to switch the connection's PHY (LE Set PHY) and returns once it
    /// reports the outcome. Throws like ``updateConnection(of:_:)``; a controller without the
    /// LE 2M or Coded PHY feature refuses the command.
    public func setPHY(of peer: UUID, preferring phys: LEPHYSet) async throws {
        let link = try anyLink(peer)
        _ = try await host.send(.leSetPHY(handle: link.handle.rawValue, allPHYs: [], txPHYs: phys, rxPHYs: phys, options: 0))
        try await waitForProcedure(.phyUpdate(link.handle), .updatePHY)
    }

    /// Asks the controller for longer LL payloads (LE Set Data Length, 27…251 octets). Returns
    /// when the controller accepted the command; a Data Length Change event updates
    /// ``linkParameters(of:)`` when the peer agrees.
    public func setDataLength(of peer: UUID, octets: Int) async throws {
        let link = try anyLink(peer)
        let tx = UInt16(max(27, min(octets, 251)))
        _ = try await host.execute(.leSetDataLength(handle: link.handle.rawValue, txOctets: tx, txTime: .packetTime(octets: tx)))
    }

    private func anyLink(_ peer: UUID) throws -> HCILink {
        try requirePoweredOn()
        guard let link = connections.anyLink(to: peer) else { throw BleuError.notConnected(peer) }
        return link
    }

    private func waitForProcedure(_ procedure: LinkProcedure, _ operation: BleuError.Operation) async throws {
        let timeout = configuration.linkProcedureTimeout
        let waiter = Task { [weak self, clock] in
            try? await clock.sleep(for: timeout)
            await self?.procedureTimedOut(procedure, BleuError.timeout(operation, after: timeout))
        }
        defer { waiter.cancel() }
        try await withCheckedThrowingContinuation { linkLayer.wait(for: procedure, $0) }
    }

    private func procedureTimedOut(_ procedure: LinkProcedure, _ error: BleuError) {
        linkLayer.finish(procedure, with: .failure(error))
    }
}
