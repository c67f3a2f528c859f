import BleuCore
import Foundation

/// A kind of peripheral as a Swift type: the services a device of this kind has, each
/// required or optional (and the characteristics to subscribe to as it connects), and the
/// typed value built from what discovery found.
///
/// ```swift
/// struct HeartRateStrap: GATTPeripheral {
///     static var services: [PeripheralServiceDeclaration] {
///         RequiredService(HeartRateService.self, subscribing: \.measurement)
///         OptionalService(BatteryService.self)
///     }
///
///     let heartRate: TypedGATTService<HeartRateService>
///     let battery: TypedGATTService<BatteryService>?
///
///     init(_ services: DiscoveredServices) throws(GATTError) {
///         heartRate = try services.required(HeartRateService.self)
///         battery = services.optional(BatteryService.self)
///     }
/// }
///
/// let strap = try await HeartRateStrap.connect(peripheral, using: central)
/// let level = try await strap.battery?.read(\.level)                    // UInt8?
/// for try await measurement in try await strap.heartRate.updates(\.measurement) {
///     print(measurement.heartRate)
/// }
/// ```
///
/// Connecting discovers the declared services and only the characteristics their types
/// declare (or, with ``PeripheralDiscoveryScope/everything``, every service, the undeclared
/// ones typed by a ``GATTServiceDataSource`` when it knows them, else left as bytes); a
/// required service that is missing fails the connection with
/// ``GATTError/serviceNotFound(service:uuid:peripheral:)``.
public protocol GATTPeripheral: Sendable {
    /// The services a device of this kind has, in the order they are discovered.
    @PeripheralServicesBuilder static var services: [PeripheralServiceDeclaration] { get }

    /// The typed device from its discovered services: take each with
    /// ``DiscoveredServices/required(_:)`` or ``DiscoveredServices/optional(_:)``.
    init(_ services: DiscoveredServices) throws(GATTError)
}

/// Which services connecting through a ``GATTPeripheral`` type discovers.
public enum PeripheralDiscoveryScope: Sendable, Hashable {
    /// The declared services, with the characteristics their types declare (the fewest
    /// requests, and what a phone on battery wants).
    case declaredServices
    /// Every service the peripheral hosts, each with all its characteristics: the declared ones
    /// typed (their characteristics the type does not declare in
    /// ``TypedGATTService/undeclaredCharacteristics``, as bytes or read with a `Characteristic`
    /// of your own), the others in ``DiscoveredServices/undeclared``.
    case everything
}

extension GATTPeripheral {
    /// Discovers this kind of peripheral's services on a peripheral `client` is connected to,
    /// subscribes where declared, and builds the typed device. Throws
    /// ``GATTError/serviceNotFound(service:uuid:peripheral:)`` when a required service is
    /// missing, ``GATTError/characteristicNotFound(characteristic:uuid:service:)`` when a
    /// declared subscription's characteristic is, or the radio's ``/BleuCore/BleuError``.
    /// Subscriptions already made are undone when it throws.
    public static func discover(using client: GATTClient, scope: PeripheralDiscoveryScope = .declaredServices,
                                dataSource: any GATTServiceDataSource = SIGServiceDataSource()) async throws -> Self {
        let services = try await DiscoveredServices.discover(services, using: client, scope: scope, dataSource: dataSource)
        do {
            return try Self(services)
        } catch {
            services.endSubscriptions()
            throw error
        }
    }

    /// Connects to `peripheral` (within `timeout`), then discovers it as ``discover(using:scope:dataSource:)``
    /// does. When discovery fails, the connection it made is cancelled before the error is thrown.
    public static func connect(_ peripheral: UUID, using central: any CentralManager, timeout: Duration? = nil,
                               scope: PeripheralDiscoveryScope = .declaredServices,
                               dataSource: any GATTServiceDataSource = SIGServiceDataSource()) async throws -> Self {
        try await central.connect(peripheral, timeout: timeout)
        do {
            return try await discover(using: GATTClient(central: central, peripheral: peripheral), scope: scope, dataSource: dataSource)
        } catch {
            await central.cancelConnection(peripheral)
            throw error
        }
    }
}
