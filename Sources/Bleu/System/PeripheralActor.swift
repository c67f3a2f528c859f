import Distributed

/// A distributed actor that a peripheral hosts and centrals call over Bluetooth LE: the marker
/// every Bleu actor type and every `@Resolvable` protocol of Bleu methods refines.
///
/// ```swift
/// @Resolvable
/// protocol TemperatureSensor: PeripheralActor {
///     distributed func getTemperature() async throws -> Double
/// }
/// distributed actor MyThermometer: TemperatureSensor {
///     typealias ActorSystem = BLEActorSystem
///     static let discoverableAs: [any PeripheralActor.Type] = [$TemperatureSensor.self]
///     distributed func getTemperature() async throws -> Double { 25.5 }
/// }
/// ```
///
/// Each actor type is hosted as a GATT service whose UUID derives from the type's name
/// (``ActorServiceLayout/serviceUUID(for:)``); so is each protocol the type lists in
/// ``discoverableAs``, so a central can `discover($TemperatureSensor.self, timeout:)` without
/// knowing the implementation. (Swift cannot list a type's protocol conformances at run time,
/// so the type names them.)
public protocol PeripheralActor: DistributedActor where ActorSystem == BLEActorSystem {
    /// The `@Resolvable` protocols (their `$Protocol` stub types) that centrals may discover
    /// this actor type by. Default: none — only the type itself.
    static var discoverableAs: [any PeripheralActor.Type] { get }

    /// The service the type is hosted as: its UUID, its characteristics' UUIDs, properties and
    /// permissions, the security its callers need. Default: the name-based UUID of
    /// ``ActorServiceLayout/derivedServiceUUID(for:)`` and the default layout, open to any
    /// central. Centrals find the type by this UUID too.
    static var serviceMetadata: ServiceMetadata { get }
}

extension PeripheralActor {
    public static var discoverableAs: [any PeripheralActor.Type] { [] }

    public static var serviceMetadata: ServiceMetadata {
        ServiceMetadata(uuid: ActorServiceLayout.derivedServiceUUID(for: Self.self))
    }
}
