import BleuCore
import BleuOrchestration
import CoreMetrics
import Foundation

/// The central's view of its links, for the application: connectivity per peripheral (from
/// the engine's state changes) and metrics per actor.
///
/// | label | kind | meaning |
/// |---|---|---|
/// | `bleu_actor_reconnects` | counter, `actor` | links set up again to the actor's peripheral after one ended |
/// | `bleu_actor_call_failures` | counter, `actor`, `reason` | calls that failed before a reply came (`timeout`, `disconnected`, `cancelled`, `protocol`, `other`) |
final class LinkObserver: Sendable {
    private let broadcaster = EventBroadcaster<(peripheral: UUID, connectivity: ActorConnectivity)>(bufferLimit: 256)
    private let current = Locked<[UUID: ActorConnectivity]>([:])
    private let factory: any MetricsFactory
    private let task = Locked<Task<Void, Never>?>(nil)

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    deinit {
        task.withLock { $0 }?.cancel()
        broadcaster.finish()
    }

    /// Follows the engine's state changes from now on.
    func follow(_ events: AsyncStream<FleetEvent>, lastLoss: @escaping @Sendable (UUID) -> DisconnectReason?) {
        let current = current
        let broadcaster = broadcaster
        let following = Task {
            for await event in events {
                guard case .stateChanged(let device, _, let to, let at) = event else { continue }
                let connectivity = ActorConnectivity(to, at: at, lastLoss: lastLoss(device))
                current.withLock { $0[device] = connectivity }
                broadcaster.yield((device, connectivity))
            }
        }
        task.withLock { $0 = following }
    }

    /// The connectivity of a peripheral the engine manages, or `nil`.
    func connectivity(of peripheral: UUID) -> ActorConnectivity? {
        current.withLock { $0[peripheral] }
    }

    /// The engine no longer manages the peripheral.
    func forget(_ peripheral: UUID, lastLoss: DisconnectReason?) {
        current.withLock { $0[peripheral] = nil }
        broadcaster.yield((peripheral, .disconnected(lastLoss)))
    }

    /// Every change from now on, for every peripheral.
    func changes() -> AsyncStream<(peripheral: UUID, connectivity: ActorConnectivity)> {
        broadcaster.subscribe()
    }

    func reconnected(_ actors: some Sequence<UUID>) {
        for actor in actors {
            Counter(label: "bleu_actor_reconnects", dimensions: [("actor", actor.uuidString)], factory: factory).increment()
        }
    }

    func callFailed(_ actor: UUID, _ error: any Error) {
        let reason = switch error {
        case BleuError.timeout: "timeout"
        case BleuError.disconnected, BleuError.notConnected: "disconnected"
        case BleuError.cancelled, is CancellationError: "cancelled"
        case is BLEActorSystemError: "protocol"
        default: "other"
        }
        Counter(label: "bleu_actor_call_failures", dimensions: [("actor", actor.uuidString), ("reason", reason)],
                factory: factory).increment()
    }
}
