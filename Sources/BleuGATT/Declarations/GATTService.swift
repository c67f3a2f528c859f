import BleuCore

/// A GATT service as a Swift type: its UUID and its characteristics as static members.
///
/// ```swift
/// enum ThermostatService: GATTService {
///     static let uuid: BluetoothUUID = "9F1E0000-7B51-4C9A-9E2A-1B2C3D4E5F60"
///     static let target = Characteristic<Int16>("9F1E0001-7B51-4C9A-9E2A-1B2C3D4E5F60", codec: .sint16,
///                                               properties: [.read, .write])
///     static let mode = Characteristic<Mode>("9F1E0002-7B51-4C9A-9E2A-1B2C3D4E5F60",
///                                            codec: .enumeration(Mode.self), properties: [.read, .notify])
///
///     static var characteristics: [CharacteristicDeclaration] {
///         target
///         mode
///     }
/// }
///
/// let definition = try ThermostatService.declaration.definition()   // for any backend
/// ```
///
/// ``characteristics`` lists everything the service declares (a central discovers these); a
/// peripheral may host a subset, or give static values, with ``declaration(_:)``.
public protocol GATTService: Sendable {
    /// The service's UUID.
    static var uuid: BluetoothUUID { get }
    /// Whether the service is primary; `true` unless the type says otherwise.
    static var isPrimary: Bool { get }
    /// The characteristics the service declares, in order.
    @CharacteristicsBuilder static var characteristics: [CharacteristicDeclaration] { get }
}

extension GATTService {
    /// Services are primary unless the type says otherwise.
    public static var isPrimary: Bool { true }

    /// The service with every characteristic it declares, none with a static value.
    public static var declaration: ServiceDeclaration {
        ServiceDeclaration(uuid, isPrimary: isPrimary, characteristics: characteristics)
    }

    /// The service with the characteristics the builder lists: a subset of those declared,
    /// some with static values. Rethrows what the builder throws.
    public static func declaration(@CharacteristicsBuilder _ characteristics: () throws -> [CharacteristicDeclaration])
        rethrows -> ServiceDeclaration
    {
        ServiceDeclaration(uuid, isPrimary: isPrimary, characteristics: try characteristics())
    }
}
