import BleuCore
import Foundation

/// One connected peripheral as the central's side of the actor system sees it: a channel per
/// hosted actor, and the services each actor is hosted under.
final class ConnectedPeripheral: Sendable {
    let id: UUID
    let ready: ReadySignal
    let channels: [UUID: ClientChannel]
    /// Actor id → the service UUIDs it is hosted under on this peripheral.
    let services: [UUID: Set<BluetoothUUID>]

    init(id: UUID, channels: [UUID: ClientChannel], services: [UUID: Set<BluetoothUUID>], ready: ReadySignal) {
        self.id = id
        self.ready = ready
        self.channels = channels
        self.services = services
    }

    /// The actors hosted under `service`.
    func actors(hostedUnder service: BluetoothUUID) -> [UUID] {
        services.filter { $0.value.contains(service) }.map(\.key).sorted { $0.uuidString < $1.uuidString }
    }

    var isOpen: Bool { !channels.values.contains { $0.isClosed } }

    func close(_ error: any Error) {
        ready.close(error)
        for channel in channels.values { channel.close(error) }
    }
}
