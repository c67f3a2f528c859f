import BleuCore

/// A service and the characteristics it declares, ready to become the
/// ``/BleuCore/ServiceDefinition`` any backend hosts:
///
/// ```swift
/// let info = try ServiceDeclaration(BluetoothUUID.Service.deviceInformation) {
///     try DeviceInformationService.manufacturerName.value("Acme")
///     try DeviceInformationService.modelNumber.value("Thermo 2")
/// }
/// let published = try await peripheral.add(info.definition())
/// ```
///
/// A ``GATTService`` type declares one with ``GATTService/declaration``.
public struct ServiceDeclaration: Sendable, Hashable {
    /// The service's UUID.
    public var uuid: BluetoothUUID
    /// `true` for a primary service, which discovery finds; `false` for a secondary one, reached
    /// only through another service that includes it.
    public var isPrimary: Bool
    /// The characteristics, in the order they are published (and their handles assigned).
    public var characteristics: [CharacteristicDeclaration]
    /// UUIDs of services, published before this one, that it includes.
    public var includedServices: [BluetoothUUID]

    /// A declaration of these characteristics.
    public init(_ uuid: BluetoothUUID, isPrimary: Bool = true, includes includedServices: [BluetoothUUID] = [],
                characteristics: [CharacteristicDeclaration]) {
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.characteristics = characteristics
        self.includedServices = includedServices
    }

    /// A declaration whose characteristics the builder lists. Rethrows what the builder
    /// throws (``GATTCodecError`` from a static value that cannot be encoded).
    public init(_ uuid: BluetoothUUID, isPrimary: Bool = true, includes includedServices: [BluetoothUUID] = [],
                @CharacteristicsBuilder characteristics: () throws -> [CharacteristicDeclaration]) rethrows {
        self.init(uuid, isPrimary: isPrimary, includes: includedServices, characteristics: try characteristics())
    }

    /// The definition a ``/BleuCore/PeripheralManager`` hosts. Throws ``/BleuCore/BleuError/invalidState(_:)``
    /// for a static value on a characteristic that is not read-only.
    public func definition() throws(BleuError) -> ServiceDefinition {
        var definitions: [CharacteristicDefinition] = []
        for characteristic in characteristics {
            definitions.append(try characteristic.definition())
        }
        return ServiceDefinition(uuid: uuid, isPrimary: isPrimary, characteristics: definitions,
                                 includedServices: includedServices)
    }

    /// The first declared characteristic with this UUID.
    public func characteristic(_ uuid: BluetoothUUID) -> CharacteristicDeclaration? {
        characteristics.first { $0.uuid == uuid }
    }

    /// The UUIDs of the declared characteristics, in order, without repeats: what a central
    /// discovers when it wants only what the service declares.
    public var characteristicUUIDs: [BluetoothUUID] {
        var seen: Set<BluetoothUUID> = []
        return characteristics.map(\.uuid).filter { seen.insert($0).inserted }
    }
}
