import BleuCore
import Foundation

/// The typed GATT client of one connected peripheral: discovers services as the types that
/// declare them, then reads, writes and subscribes with values, never bare bytes.
///
/// It runs on any backend: it talks only to a ``/BleuCore/CentralManager``.
///
/// ```swift
/// try await central.connect(peripheral)
/// let client = GATTClient(central: central, peripheral: peripheral)
/// let heartRate = try await client.discover(HeartRateService.self)
/// let location = try await heartRate.read(HeartRateService.bodySensorLocation)     // BodySensorLocation
/// for try await measurement in try await heartRate.subscribe(to: HeartRateService.measurement) {
///     print(measurement.heartRate)
/// }
/// ```
///
/// Typed subscriptions through one client are counted per characteristic: the peripheral is
/// told to stop sending when the last of their streams ends.
public final class GATTClient: Sendable {
    /// The radio the client uses.
    public let central: any CentralManager
    /// The peripheral, as `central` identifies it.
    public let peripheral: UUID

    struct Subscriptions {
        /// Open typed value streams per characteristic value handle.
        var counts: [UInt16: Int] = [:]
        /// Unsubscriptions under way, per value handle; at most one each.
        var unsubscribing: [UInt16: (id: Int, task: Task<Void, Never>)] = [:]
        var nextID = 0
        /// Value handles whose notifications or indications this client turned on and has not
        /// turned off (``GATTClient/isNotifying(_:)``).
        var notifying: Set<UInt16> = []
        /// Unsubscriptions the peripheral did not take, and the last one's error.
        var failed = 0
        var lastFailure: (any Error)?
    }

    let subscriptions = Locked(Subscriptions())

    /// A client of `peripheral`, which `central` must have connected (or connect before the
    /// first operation).
    public init(central: any CentralManager, peripheral: UUID) {
        self.central = central
        self.peripheral = peripheral
    }

    // MARK: Discovery

    /// Discovers a service type and only the characteristics it declares. Throws
    /// ``GATTError/serviceNotFound(service:uuid:peripheral:)`` when the peripheral does not host it.
    public func discover<Service: GATTService>(_ service: Service.Type) async throws -> RemoteGATTService {
        try await discover(Service.declaration, name: Service.uuid.name ?? String(describing: Service.self))
    }

    /// Discovers a declared service and only the characteristics the declaration lists.
    public func discover(_ declaration: ServiceDeclaration, name: String? = nil) async throws -> RemoteGATTService {
        let uuids = declaration.characteristicUUIDs
        return try await discoverService(declaration.uuid, characteristics: uuids, name: name)
    }

    /// Discovers a service by UUID with the characteristics listed (all of them when
    /// `characteristics` is `nil`): the way to services and characteristics the catalogue
    /// does not know, used as bytes with ``RemoteGATTService/read(_:)-(BluetoothUUID)`` and its siblings.
    public func discoverService(_ uuid: BluetoothUUID, characteristics: [BluetoothUUID]? = nil,
                                name: String? = nil) async throws -> RemoteGATTService {
        let name = name ?? uuid.name ?? uuid.uuidString
        let services = try await central.discoverServices([uuid], on: peripheral)
        guard let service = services.first(where: { $0.uuid == uuid }) else {
            throw GATTError.serviceNotFound(service: name, uuid: uuid, peripheral: peripheral)
        }
        return try await discover(characteristics, of: service, name: name)
    }

    /// A service already found, with the characteristics listed (all of them when
    /// `characteristics` is `nil`). Characteristics listed but missing on the peripheral are
    /// reported by the typed layer when they are used, so none is required here.
    func discover(_ characteristics: [BluetoothUUID]?, of service: RemoteService, name: String) async throws -> RemoteGATTService {
        guard characteristics?.isEmpty != true else {
            return RemoteGATTService(client: self, service: service, name: name, characteristics: [])
        }
        let found = try await central.discover(
            ServiceRequirement(service: service.uuid, discovering: characteristics.map { .also($0) } ?? .all), in: service)
        return RemoteGATTService(client: self, service: service, name: name, characteristics: found.found)
    }

    // MARK: Flow control

    /// Writes without response, waiting for the radio's ready event whenever its send queue
    /// is full, so a burst of writes never fails for want of room and never buffers without bound.
    func writeWithoutResponse(_ data: Data, to characteristic: RemoteCharacteristic) async throws {
        try await central.writeWithoutResponse(data, to: characteristic)
    }

    // MARK: Subscriptions

    /// A typed stream of a characteristic's values is about to open: counted first, so an
    /// unsubscription of its predecessor that has not run yet stands down; one that already
    /// runs is awaited, so it cannot end the new stream's subscription.
    func subscriptionOpening(_ characteristic: RemoteCharacteristic) async {
        let pending = subscriptions.withLock { state -> Task<Void, Never>? in
            state.counts[characteristic.valueHandle, default: 0] += 1
            return state.unsubscribing[characteristic.valueHandle]?.task
        }
        await pending?.value
    }

    /// The peripheral took a subscription: the characteristic notifies this client.
    func subscriptionStarted(_ characteristic: RemoteCharacteristic) {
        _ = subscriptions.withLock { $0.notifying.insert(characteristic.valueHandle) }
    }

    /// Notifications of the characteristic were turned off (or the link that carried them is gone).
    func notificationsStopped(_ characteristic: RemoteCharacteristic) {
        _ = subscriptions.withLock { $0.notifying.remove(characteristic.valueHandle) }
    }

    /// A typed stream ended (or failed to open): the peripheral is told to stop when it was
    /// the last one.
    func subscriptionEnded(_ characteristic: RemoteCharacteristic) {
        let handle = characteristic.valueHandle
        subscriptions.withLock { state in
            let left = (state.counts[handle] ?? 1) - 1
            state.counts[handle] = left > 0 ? left : nil
            guard left <= 0 else { return }
            // The client no longer wants the values: not notifying from here on, as
            // CoreBluetooth's `isNotifying` after `setNotifyValue(false, for:)`.
            state.notifying.remove(handle)
            let id = state.nextID
            state.nextID += 1
            let task = Task { [central, subscriptions] in
                // Stand down if a stream opened meanwhile (it counted itself under this lock).
                guard subscriptions.withLock({ $0.counts[handle] == nil }) else { return }
                var failure: (any Error)?
                do {
                    try await central.unsubscribe(from: characteristic)
                } catch BleuError.notConnected, BleuError.disconnected {
                    // Not connected any more: nothing to undo.
                } catch {
                    // The peripheral may go on sending: counted, not hidden.
                    failure = error
                }
                subscriptions.withLock { state in
                    if state.unsubscribing[handle]?.id == id { state.unsubscribing[handle] = nil }
                    if let failure {
                        state.failed += 1
                        state.lastFailure = failure
                    }
                }
            }
            state.unsubscribing[handle] = (id, task)
        }
    }

    /// Unsubscriptions (the last typed stream of a characteristic ending) that failed on a
    /// connected peripheral, which may go on sending the values; the last one's error. A
    /// peripheral that is no longer connected needs no unsubscription and counts nothing.
    public var failedUnsubscriptions: (count: Int, last: (any Error)?) {
        subscriptions.withLock { ($0.failed, $0.lastFailure) }
    }

    /// The number of typed streams open on a characteristic (for tests and diagnostics).
    public func openStreams(of characteristic: RemoteCharacteristic) -> Int {
        subscriptions.withLock { $0.counts[characteristic.valueHandle] ?? 0 }
    }
}
