import BleuCore
import Foundation

/// One service of a ``GATTPeripheral``: its type, whether a device must have it, and the
/// characteristics to subscribe to as the device connects. Made by ``RequiredService`` and
/// ``OptionalService``.
public struct PeripheralServiceDeclaration: Sendable {
    /// The service's UUID.
    public let uuid: BluetoothUUID
    /// The name errors use: the SIG's name, else the service type's name.
    public let name: String
    /// Whether a device without the service fails to connect (else the service is `nil`).
    public let isRequired: Bool
    /// The characteristics to subscribe to, in order.
    public let subscriptions: [BluetoothUUID]
    /// The service type.
    let type: any GATTService.Type
    /// Opens the typed value stream of each subscription, in order.
    let openSubscriptions: [@Sendable (RemoteGATTService) async throws -> any Sendable]

    init<Service: GATTService, each Value>(
        _ service: Service.Type, isRequired: Bool, subscribing characteristics: repeat KeyPath<Service.Type, Characteristic<each Value>>
    ) {
        var uuids: [BluetoothUUID] = []
        var openers: [@Sendable (RemoteGATTService) async throws -> any Sendable] = []
        for path in repeat each characteristics {
            let characteristic = Service.self[keyPath: path]
            uuids.append(characteristic.uuid)
            openers.append { remote in try await remote.subscribe(to: characteristic) }
        }
        self.uuid = Service.uuid
        self.name = Service.uuid.name ?? String(describing: Service.self)
        self.isRequired = isRequired
        self.subscriptions = uuids
        self.type = service
        self.openSubscriptions = openers
    }

    /// The characteristics discovery looks for: those the type declares.
    var characteristics: [BluetoothUUID] {
        type.declaration.characteristicUUIDs
    }
}

/// A service a device of a ``GATTPeripheral`` kind always has: a device without it fails to
/// connect. `subscribing` names characteristics whose notifications (or indications) are
/// turned on as the device connects, so no value sent right after is missed; take their
/// values with ``TypedGATTService/updates(_:)``.
///
/// ```swift
/// RequiredService(HeartRateService.self, subscribing: \.measurement)
/// ```
public struct RequiredService: Sendable {
    /// The declaration.
    public let declaration: PeripheralServiceDeclaration

    /// `service`, subscribing to `characteristics` (key paths on the service type).
    public init<Service: GATTService, each Value>(
        _ service: Service.Type, subscribing characteristics: repeat KeyPath<Service.Type, Characteristic<each Value>>
    ) {
        declaration = PeripheralServiceDeclaration(service, isRequired: true, subscribing: repeat each characteristics)
    }
}

/// A service some devices of a ``GATTPeripheral`` kind have: ``DiscoveredServices/optional(_:)``
/// is `nil` on the others. Subscriptions as for ``RequiredService``.
public struct OptionalService: Sendable {
    /// The declaration.
    public let declaration: PeripheralServiceDeclaration

    /// `service`, subscribing to `characteristics` (key paths on the service type) when present.
    public init<Service: GATTService, each Value>(
        _ service: Service.Type, subscribing characteristics: repeat KeyPath<Service.Type, Characteristic<each Value>>
    ) {
        declaration = PeripheralServiceDeclaration(service, isRequired: false, subscribing: repeat each characteristics)
    }
}

/// Builds a ``GATTPeripheral``'s service list, one ``RequiredService`` or ``OptionalService`` a line.
@resultBuilder
public enum PeripheralServicesBuilder {
    /// A service every device has.
    public static func buildExpression(_ service: RequiredService) -> [PeripheralServiceDeclaration] {
        [service.declaration]
    }

    /// A service some devices have.
    public static func buildExpression(_ service: OptionalService) -> [PeripheralServiceDeclaration] {
        [service.declaration]
    }

    /// The services of the lines, in order.
    public static func buildBlock(_ parts: [PeripheralServiceDeclaration]...) -> [PeripheralServiceDeclaration] {
        parts.flatMap(\.self)
    }

    /// An `if` without `else`.
    public static func buildOptional(_ part: [PeripheralServiceDeclaration]?) -> [PeripheralServiceDeclaration] {
        part ?? []
    }

    /// The first branch of an `if`/`else`.
    public static func buildEither(first part: [PeripheralServiceDeclaration]) -> [PeripheralServiceDeclaration] {
        part
    }

    /// The second branch of an `if`/`else`.
    public static func buildEither(second part: [PeripheralServiceDeclaration]) -> [PeripheralServiceDeclaration] {
        part
    }
}
