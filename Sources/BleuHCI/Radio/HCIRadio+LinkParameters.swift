import BleuCore
import Foundation

/// What the controller reported about a connection's link layer.
public struct HCILinkParameters: Sendable, Hashable {
    /// The connection interval (a multiple of 1.25 ms).
    public var interval: Duration
    /// Connection events the peripheral may skip.
    public var latency: UInt16
    /// How long the link survives without a packet (a multiple of 10 ms).
    public var supervisionTimeout: Duration
    /// The longest LL payloads each way (27 until a Data Length Change).
    public var maxTxOctets: UInt16 = 27
    public var maxRxOctets: UInt16 = 27
    /// The PHY each way (LE 1M until a PHY Update Complete).
    public var txPHY: LEPHY = .le1M
    public var rxPHY: LEPHY = .le1M
}

/// A link-layer procedure waiting for the controller's event.
enum LinkProcedure: Hashable, Sendable {
    case connectionUpdate(UInt16)
    case phyUpdate(UInt16)
}

/// Connection parameters, data length and PHY of established connections.
extension HCIRadio {
    /// The link-layer parameters of the connection to `peer` (either role), as the controller
    /// last reported them; `nil` when not connected.
    public func linkParameters(of peer: UUID) -> HCILinkParameters? {
        links.values.first { $0.peer == peer }?.parameters
    }

    /// Asks for new connection parameters (LE Connection Update) and returns once the controller
    /// reports them. Throws ``HCIHostError`` when the controller refuses the command or does not
    /// answer it, ``/BleuCore/BleuError/timeout(operation:)`` when the update never completes.
    public func updateConnection(of peer: UUID, _ parameters: LEConnectionParameters) async throws {
        let link = try anyLink(peer)
        _ = try await host.send(.leConnectionUpdate(handle: link.handle, parameters))
        try await waitForProcedure(.connectionUpdate(link.handle), "the connection update")
    }

    /// Asks the controller to switch the connection's PHY (LE Set PHY) and returns once it
    /// reports the outcome. Throws like ``updateConnection(of:_:)``; a controller without the
    /// LE 2M or Coded PHY feature refuses the command.
    public func setPHY(of peer: UUID, preferring phys: LEPHYSet) async throws {
        let link = try anyLink(peer)
        _ = try await host.send(.leSetPHY(handle: link.handle, allPHYs: [], txPHYs: phys, rxPHYs: phys, options: 0))
        try await waitForProcedure(.phyUpdate(link.handle), "the PHY update")
    }

    /// Asks the controller for longer LL payloads (LE Set Data Length, 27…251 octets). Returns
    /// when the controller accepted the command; a Data Length Change event updates
    /// ``linkParameters(of:)`` when the peer agrees.
    public func setDataLength(of peer: UUID, octets: Int) async throws {
        let link = try anyLink(peer)
        let tx = UInt16(max(27, min(octets, 251)))
        _ = try await host.execute(.leSetDataLength(handle: link.handle, txOctets: tx, txTime: .packetTime(octets: tx)))
    }

    private func anyLink(_ peer: UUID) throws -> HCILink {
        try requirePoweredOn()
        guard let link = links.values.first(where: { $0.peer == peer }) else { throw BleuError.notConnected(peer) }
        return link
    }

    private func waitForProcedure(_ procedure: LinkProcedure, _ name: String) async throws {
        let timeout = configuration.linkProcedureTimeout
        let waiter = Task { [weak self, clock] in
            try? await clock.sleep(for: timeout)
            await self?.finishProcedure(procedure, with: .failure(BleuError.timeout(
                operation: "\(name) (no report from the controller within \(timeout))")))
        }
        defer { waiter.cancel() }
        try await withCheckedThrowingContinuation { procedureWaiters[procedure, default: []].append($0) }
    }

    func finishProcedure(_ procedure: LinkProcedure, with result: Result<Void, any Error>) {
        for waiter in procedureWaiters.removeValue(forKey: procedure) ?? [] { waiter.resume(with: result) }
    }

    /// LE meta events about an established connection's link layer.
    func linkLayerEvent(_ event: LEMetaEvent) {
        switch event {
        case let .connectionUpdateComplete(status, handle, interval, latency, timeout):
            if status == 0 {
                links[handle]?.parameters.interval = interval
                links[handle]?.parameters.latency = latency
                links[handle]?.parameters.supervisionTimeout = timeout
            }
            finishProcedure(.connectionUpdate(handle), with: status == 0 ? .success(())
                : .failure(HCIHostError.commandFailed(.leConnectionUpdate, HCIStatus(rawValue: status))))
        case let .phyUpdateComplete(status, handle, tx, rx):
            if status == 0 {
                links[handle]?.parameters.txPHY = tx
                links[handle]?.parameters.rxPHY = rx
            }
            finishProcedure(.phyUpdate(handle), with: status == 0 ? .success(())
                : .failure(HCIHostError.commandFailed(.leSetPHY, HCIStatus(rawValue: status))))
        case let .dataLengthChange(handle, maxTxOctets, _, maxRxOctets, _):
            links[handle]?.parameters.maxTxOctets = maxTxOctets
            links[handle]?.parameters.maxRxOctets = maxRxOctets
        default:
            break
        }
    }
}

extension Duration {
    /// The air time of an LL data PDU carrying `octets` payload bytes on LE 1M, as LE Set Data
    /// Length asks for it (Core Spec Vol 6 Part B §4.5.10: (octets + 14) × 8 µs; 251 → 2120 µs).
    static func packetTime(octets: UInt16) -> Duration {
        .microseconds((Int64(octets) + 14) * 8)
    }
}
