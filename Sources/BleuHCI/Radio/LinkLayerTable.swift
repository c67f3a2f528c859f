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
    case connectionUpdate(ConnectionHandle)
    case phyUpdate(ConnectionHandle)
}

/// Each connection's link layer as the controller last reported it (interval, latency,
/// supervision timeout, data length, PHY), and the callers of a connection update or PHY update
/// waiting for the event that completes it.
struct LinkLayerTable: Sendable {
    private(set) var parameters: [ConnectionHandle: HCILinkParameters] = [:]
    private var waiters: [LinkProcedure: [CheckedContinuation<Void, any Error>]] = [:]

    /// Whether any caller waits for a procedure.
    var hasWaiters: Bool { !waiters.isEmpty }

    mutating func linkOpened(_ handle: ConnectionHandle, _ parameters: HCILinkParameters) {
        self.parameters[handle] = parameters
    }

    /// The link went down: its procedures fail with `error`.
    mutating func linkClosed(_ handle: ConnectionHandle, error: any Error) {
        parameters[handle] = nil
        finish(.connectionUpdate(handle), with: .failure(error))
        finish(.phyUpdate(handle), with: .failure(error))
    }

    mutating func wait(for procedure: LinkProcedure, _ waiter: CheckedContinuation<Void, any Error>) {
        waiters[procedure, default: []].append(waiter)
    }

    /// Ends `procedure` for everyone waiting on it.
    mutating func finish(_ procedure: LinkProcedure, with result: Result<Void, any Error>) {
        for waiter in waiters.removeValue(forKey: procedure) ?? [] { waiter.resume(with: result) }
    }

    /// Takes an LE meta event about an established connection's link layer: records what it
    /// reports and completes the procedure it ends.
    mutating func apply(_ event: LEMetaEvent) {
        switch event {
        case let .connectionUpdateComplete(status, raw, interval, latency, timeout):
            let handle = ConnectionHandle(raw)
            if status == 0 {
                parameters[handle]?.interval = interval
                parameters[handle]?.latency = latency
                parameters[handle]?.supervisionTimeout = timeout
            }
            finish(.connectionUpdate(handle), with: status == 0 ? .success(())
                : .failure(HCIHostError.commandFailed(.leConnectionUpdate, HCIStatus(rawValue: status))))
        case let .phyUpdateComplete(status, raw, tx, rx):
            let handle = ConnectionHandle(raw)
            if status == 0 {
                parameters[handle]?.txPHY = tx
                parameters[handle]?.rxPHY = rx
            }
            finish(.phyUpdate(handle), with: status == 0 ? .success(())
                : .failure(HCIHostError.commandFailed(.leSetPHY, HCIStatus(rawValue: status))))
        case let .dataLengthChange(raw, maxTxOctets, _, maxRxOctets, _):
            parameters[ConnectionHandle(raw)]?.maxTxOctets = maxTxOctets
            parameters[ConnectionHandle(raw)]?.maxRxOctets = maxRxOctets
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
