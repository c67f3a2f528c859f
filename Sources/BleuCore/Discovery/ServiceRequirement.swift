import Foundation

/// What a client needs of one GATT service on a peripheral: the characteristics that must be
/// there, whether it wants the others too, and the ones it subscribes to.
package struct ServiceRequirement: Sendable, Hashable {
    /// The service.
    package var service: BluetoothUUID
    /// Characteristics the service must have; a missing one fails with
    /// ``BleuError/characteristicNotFound(_:)``.
    package var required: [BluetoothUUID]
    /// Which characteristics to discover besides the required ones and the subscriptions
    /// (which are always looked for).
    package var discovering: Discovery
    /// Characteristics to subscribe to once found, in this order; each must also be found.
    package var subscriptions: [BluetoothUUID]

    /// Which characteristics a discovery looks for.
    package enum Discovery: Sendable, Hashable {
        /// Every characteristic of the service.
        case all
        /// The required ones and the subscriptions, and these.
        case also([BluetoothUUID])

        /// Only the required ones and the subscriptions.
        package static var nothingElse: Discovery { .also([]) }
    }

    package init(service: BluetoothUUID, required: [BluetoothUUID] = [], discovering: Discovery = .all,
                 subscriptions: [BluetoothUUID] = []) {
        self.service = service
        self.required = required
        self.discovering = discovering
        self.subscriptions = subscriptions
    }
}

/// A service discovered to a ``ServiceRequirement``: its characteristics by UUID, and a value
/// stream for each subscription.
package struct DiscoveredService: Sendable {
    package var service: RemoteService
    /// Every characteristic found, in handle order (a service may hold two of one UUID).
    package var found: [RemoteCharacteristic]
    /// The first characteristic of each UUID.
    package var characteristics: [BluetoothUUID: RemoteCharacteristic]
    /// In the order of ``ServiceRequirement/subscriptions``.
    package var subscriptions: [(uuid: BluetoothUUID, values: AsyncThrowingStream<Data, any Error>)]
}

// The one "discover a service, check its characteristics, subscribe" sequence: the actor
// system, BleuGATT's typed client and the fleet orchestrator all set their links up with it.
extension CentralManager {
    /// Finds `requirement`'s service on `peripheral` (``BleuError/serviceNotFound(_:)`` when it
    /// is not there), then its characteristics and subscriptions as
    /// ``discover(_:in:)`` does.
    package func discover(_ requirement: ServiceRequirement, on peripheral: UUID) async throws -> DiscoveredService {
        let services = try await discoverServices([requirement.service], on: peripheral)
        guard let service = services.first(where: { $0.uuid == requirement.service }) else {
            throw BleuError.serviceNotFound(requirement.service)
        }
        return try await discover(requirement, in: service)
    }

    /// Discovers the characteristics `requirement` asks for in a service already found, checks
    /// the required ones and the subscriptions are there, and subscribes in order. If a
    /// subscription fails, the ones already made are undone before the error is thrown.
    package func discover(_ requirement: ServiceRequirement, in service: RemoteService) async throws -> DiscoveredService {
        let wanted = requirement.required + requirement.subscriptions
        let filter: [BluetoothUUID]? = switch requirement.discovering {
        case .all: nil
        case .also(let others): wanted + others
        }
        let found = try await discoverCharacteristics(filter, for: service)
        var characteristics: [BluetoothUUID: RemoteCharacteristic] = [:]
        for characteristic in found where characteristics[characteristic.uuid] == nil {
            characteristics[characteristic.uuid] = characteristic
        }
        for uuid in wanted where characteristics[uuid] == nil { throw BleuError.characteristicNotFound(uuid) }
        var subscriptions: [(uuid: BluetoothUUID, values: AsyncThrowingStream<Data, any Error>)] = []
        do {
            for uuid in requirement.subscriptions {
                subscriptions.append((uuid, try await subscribe(to: characteristics[uuid]!)))
            }
        } catch {
            for (uuid, _) in subscriptions {
                do {
                    try await unsubscribe(from: characteristics[uuid]!)
                } catch {
                    // The link that failed the subscription is likely gone; its subscriptions end with it.
                }
            }
            throw error
        }
        return DiscoveredService(service: service, found: found, characteristics: characteristics, subscriptions: subscriptions)
    }
}
