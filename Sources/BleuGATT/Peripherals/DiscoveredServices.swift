import BleuCore
import Foundation

/// What connecting through a ``GATTPeripheral`` type found: its declared services (with the
/// subscriptions made) and, with ``PeripheralDiscoveryScope/everything``, the others. The
/// peripheral type's initialiser takes its typed services from here.
public struct DiscoveredServices: Sendable {
    /// The client of the peripheral.
    public let client: GATTClient
    /// Services the peripheral type does not declare, in handle order: typed by the data
    /// source where it knew them, else bytes. Empty unless discovery was asked for everything.
    public let undeclared: [UndeclaredService]

    private let declared: [BluetoothUUID: (remote: RemoteGATTService, opened: OpenedSubscriptions)]

    /// The peripheral.
    public var peripheral: UUID { client.peripheral }

    /// A declared service the device must have. Throws
    /// ``GATTError/serviceNotFound(service:uuid:peripheral:)`` when discovery did not find it
    /// (it is missing, or the peripheral type does not declare it).
    public func required<Service: GATTService>(_ service: Service.Type) throws(GATTError) -> TypedGATTService<Service> {
        guard let found = optional(service) else {
            throw .serviceNotFound(service: Service.uuid.name ?? String(describing: Service.self), uuid: Service.uuid,
                                   peripheral: peripheral)
        }
        return found
    }

    /// A declared service, or `nil` when the device does not have it.
    public func optional<Service: GATTService>(_ service: Service.Type) -> TypedGATTService<Service>? {
        guard let found = declared[Service.uuid] else { return nil }
        return TypedGATTService(remote: found.remote, opened: found.opened)
    }

    /// An undeclared service the data source typed as `Service`, or `nil`.
    public func typed<Service: GATTService>(_ service: Service.Type) -> TypedGATTService<Service>? {
        guard let found = undeclared.first(where: { $0.type.map(ObjectIdentifier.init) == ObjectIdentifier(service) }) else { return nil }
        return TypedGATTService(remote: found.remote, opened: OpenedSubscriptions())
    }

    /// Ends the subscriptions made for the declared services whose streams were not taken.
    func endSubscriptions() {
        for entry in declared.values { entry.opened.endAll() }
    }

    // MARK: Discovering

    static func discover(_ declarations: [PeripheralServiceDeclaration], using client: GATTClient,
                         scope: PeripheralDiscoveryScope, dataSource: any GATTServiceDataSource) async throws -> Self {
        let central = client.central
        let filter: [BluetoothUUID]? = scope == .everything ? nil : declarations.map(\.uuid)
        let services = try await central.discoverServices(filter, on: client.peripheral)
        var declared: [BluetoothUUID: (remote: RemoteGATTService, opened: OpenedSubscriptions)] = [:]
        var undeclared: [UndeclaredService] = []
        do {
            for declaration in declarations where declared[declaration.uuid] == nil {
                guard let service = services.first(where: { $0.uuid == declaration.uuid }) else {
                    if declaration.isRequired {
                        throw GATTError.serviceNotFound(service: declaration.name, uuid: declaration.uuid, peripheral: client.peripheral)
                    }
                    continue
                }
                let remote = try await client.discover(scope == .everything ? nil : declaration.characteristics, of: service,
                                                       name: declaration.name)
                let opened = OpenedSubscriptions()
                declared[declaration.uuid] = (remote, opened)
                for (uuid, open) in zip(declaration.subscriptions, declaration.openSubscriptions) {
                    opened.add(uuid, try await open(remote))
                }
            }
            for service in services where scope == .everything && !declarations.contains(where: { $0.uuid == service.uuid }) {
                let type = dataSource.serviceType(for: service.uuid)
                let name = service.uuid.name ?? type.map { String(describing: $0) } ?? service.uuid.uuidString
                let remote = try await client.discover(type?.declaration.characteristicUUIDs, of: service, name: name)
                undeclared.append(UndeclaredService(remote: remote, type: type))
            }
        } catch {
            for entry in declared.values { entry.opened.endAll() }
            throw error
        }
        return Self(client: client, undeclared: undeclared, declared: declared)
    }
}

/// A service the peripheral type does not declare, found by a discovery of everything.
public struct UndeclaredService: Sendable {
    /// The service, with all its characteristics (or those its type declares).
    public let remote: RemoteGATTService
    /// The type the data source gave it, or `nil` for a service left as bytes.
    public let type: (any GATTService.Type)?

    /// The service's UUID.
    public var uuid: BluetoothUUID { remote.service.uuid }
}
