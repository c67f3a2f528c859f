import BleuCore
import Foundation

/// A GATT server's attribute table (Core Spec Vol 3 Part G §3): service, include and
/// characteristic declarations, characteristic values, descriptors, and a Client Characteristic
/// Configuration descriptor (CCCD) for every characteristic that notifies or indicates.
///
/// It always starts with the GAP service (Device Name, Appearance) and the GATT service
/// (Service Changed, indicate). A pure value: the ATT server reads it, the peripheral manager
/// edits it.
public struct GATTDatabase: Sendable {
    /// One attribute.
    public struct Attribute: Sendable, Hashable {
        public var handle: UInt16
        public var type: BluetoothUUID
        public var value: Value
        /// For a characteristic value or descriptor: the characteristic it belongs to.
        public var characteristic: PublishedCharacteristic?
    }

    /// Where an attribute's value comes from.
    public enum Value: Sendable, Hashable {
        /// A value the database holds: declarations, static values, descriptors.
        case fixed([UInt8])
        /// A characteristic value the application supplies on each read and receives on each write.
        case dynamic
        /// A CCCD: the value is per client, kept by the server's connection state.
        case clientConfiguration
    }

    /// A service's range of handles.
    public struct ServiceRange: Sendable, Hashable {
        public var published: PublishedService
        public var start: UInt16 { published.handle }
        public var end: UInt16 { published.endHandle }
    }

    /// All attributes, in handle order.
    public private(set) var attributes: [Attribute] = []
    /// All services, in handle order.
    public private(set) var services: [ServiceRange] = []
    /// The Service Changed characteristic's value handle.
    public private(set) var serviceChangedHandle: UInt16 = 0
    /// The most attributes the table holds.
    public let capacity: Int

    /// A database holding the GAP service (Device Name, Appearance) and the GATT service
    /// (Service Changed), as a host stack that owns them serves.
    public init(deviceName: String = "Bleu", appearance: UInt16 = 0, capacity: Int = 0xFFFE) {
        self.init(empty: capacity)
        let nameValue = Data(deviceName.utf8.prefix(248))
        var appearanceValue: [UInt8] = []
        appearanceValue.appendLE(appearance)
        do {
            _ = try add(ServiceDefinition(uuid: BluetoothUUID.Service.genericAccess, characteristics: [
                CharacteristicDefinition(uuid: BluetoothUUID.Characteristic.deviceName, properties: .read,
                                         permissions: .readable, value: nameValue),
                CharacteristicDefinition(uuid: BluetoothUUID.Characteristic.appearance, properties: .read,
                                         permissions: .readable, value: Data(appearanceValue)),
            ]), allowingReservedServices: true)
            let gatt = try add(ServiceDefinition(uuid: BluetoothUUID.Service.genericAttribute, characteristics: [
                CharacteristicDefinition(uuid: BluetoothUUID.Characteristic.serviceChanged, properties: .indicate,
                                         permissions: [], value: nil),
            ]), allowingReservedServices: true)
            serviceChangedHandle = gatt.characteristics[0].valueHandle
        } catch {
            preconditionFailure("the GAP and GATT services always fit an empty database: \(error)")
        }
    }

    /// A database with no service at all, not even GAP and GATT: what an application sees of
    /// a peripheral whose platform keeps those services to itself (CoreBluetooth, the emulator).
    public init(empty capacity: Int = 0xFFFE) {
        self.capacity = capacity
    }

    /// Adds a service after the last handle in use and returns it with its handles. Throws
    /// ``/BleuCore/BleuError/invalidState(_:)`` for a definition the radio protocol forbids (a static
    /// value on a characteristic that can be written or that notifies, a declared CCCD, an
    /// included service that is not published, the GAP or GATT service),
    /// ``/BleuCore/BleuError/valueTooLong(length:maximum:)`` for a value or descriptor over 512
    /// bytes, and ``/BleuCore/BleuError/limitReached(_:)`` when no handles are left.
    public mutating func add(_ definition: ServiceDefinition) throws(BleuError) -> PublishedService {
        try add(definition, allowingReservedServices: false)
    }

    private mutating func add(_ definition: ServiceDefinition, allowingReservedServices: Bool) throws(BleuError) -> PublishedService {
        try validate(definition, allowingReservedServices: allowingReservedServices)
        var handle = (attributes.last?.handle ?? 0) + 1
        let needed = 1 + definition.includedServices.count + definition.characteristics.reduce(0) {
            $0 + 2 + $1.descriptors.count + ($1.properties.isDisjoint(with: [.notify, .indicate]) ? 0 : 1)
        }
        guard attributes.count + needed <= capacity, Int(handle) + needed - 1 <= 0xFFFF else {
            throw .limitReached(.attributes(capacity))
        }
        var new: [Attribute] = []
        let serviceType = definition.isPrimary ? BluetoothUUID.Declaration.primaryService : BluetoothUUID.Declaration.secondaryService
        new.append(Attribute(handle: handle, type: serviceType, value: .fixed(definition.uuid.attBytes)))
        for included in definition.includedServices {
            handle += 1
            guard let range = services.first(where: { $0.published.uuid == included }) else {
                throw .invalidState(.serviceNotPublished(included))
            }
            var value: [UInt8] = []
            value.appendLE(range.start)
            value.appendLE(range.end)
            if included.uuid16 != nil { value += included.attBytes }
            new.append(Attribute(handle: handle, type: BluetoothUUID.Declaration.include, value: .fixed(value)))
        }
        var published: [PublishedCharacteristic] = []
        for characteristic in definition.characteristics {
            let declarationHandle = handle + 1
            let valueHandle = handle + 2
            handle = valueHandle
            let info = PublishedCharacteristic(service: definition.uuid, uuid: characteristic.uuid,
                                               properties: characteristic.properties,
                                               permissions: characteristic.permissions, valueHandle: valueHandle)
            published.append(info)
            var declaration: [UInt8] = [characteristic.properties.rawValue]
            declaration.appendLE(valueHandle)
            declaration += characteristic.uuid.attBytes
            new.append(Attribute(handle: declarationHandle, type: BluetoothUUID.Declaration.characteristic,
                                 value: .fixed(declaration)))
            new.append(Attribute(handle: valueHandle, type: characteristic.uuid,
                                 value: characteristic.value.map { .fixed(Array($0)) } ?? .dynamic, characteristic: info))
            if !characteristic.properties.isDisjoint(with: [.notify, .indicate]) {
                handle += 1
                new.append(Attribute(handle: handle, type: BluetoothUUID.Descriptor.clientCharacteristicConfiguration,
                                     value: .clientConfiguration, characteristic: info))
            }
            for descriptor in characteristic.descriptors {
                handle += 1
                new.append(Attribute(handle: handle, type: descriptor.uuid, value: .fixed(Array(descriptor.value)),
                                     characteristic: info))
            }
        }
        let service = PublishedService(uuid: definition.uuid, isPrimary: definition.isPrimary,
                                       handle: new[0].handle, endHandle: handle, characteristics: published)
        attributes += new
        services.append(ServiceRange(published: service))
        return service
    }

    private func validate(_ definition: ServiceDefinition, allowingReservedServices: Bool) throws(BleuError) {
        if !allowingReservedServices,
           [BluetoothUUID.Service.genericAccess, BluetoothUUID.Service.genericAttribute].contains(definition.uuid) {
            throw .invalidState(.serviceReserved(definition.uuid))
        }
        for uuid in definition.includedServices where !services.contains(where: { $0.published.uuid == uuid }) {
            throw .invalidState(.serviceNotPublished(uuid))
        }
        for c in definition.characteristics {
            if let value = c.value {
                if !c.properties.isDisjoint(with: [.write, .writeWithoutResponse, .notify, .indicate]) {
                    throw .invalidState(.staticValueNotAllowed(c.uuid, c.properties.intersection([.write, .writeWithoutResponse, .notify, .indicate])))
                }
                if value.count > AttributeAccess.maximumValueLength {
                    throw .valueTooLong(length: value.count, maximum: AttributeAccess.maximumValueLength)
                }
            }
            for descriptor in c.descriptors {
                if descriptor.uuid == BluetoothUUID.Descriptor.clientCharacteristicConfiguration {
                    throw .invalidState(.clientConfigurationDeclared(c.uuid))
                }
                if descriptor.value.count > AttributeAccess.maximumValueLength {
                    throw .valueTooLong(length: descriptor.value.count, maximum: AttributeAccess.maximumValueLength)
                }
            }
        }
    }

    /// Removes a published service. Throws ``/BleuCore/BleuError/invalidState(_:)`` when it is not here,
    /// or when another service includes it.
    public mutating func remove(_ service: PublishedService) throws(BleuError) {
        guard let index = services.firstIndex(where: { $0.start == service.handle && $0.published.uuid == service.uuid }) else {
            throw .invalidState(.serviceNotPublished(service.uuid))
        }
        if let includer = services.first(where: { includes($0, service) }) {
            throw .invalidState(.serviceIncluded(service.uuid, by: includer.published.uuid))
        }
        services.remove(at: index)
        attributes.removeAll { $0.handle >= service.handle && $0.handle <= service.endHandle }
    }

    /// Whether `range` has an include declaration pointing at `service`.
    private func includes(_ range: ServiceRange, _ service: PublishedService) -> Bool {
        attributes(in: range.start, range.end).contains { attribute in
            guard attribute.type == BluetoothUUID.Declaration.include, case .fixed(let value) = attribute.value,
                  value.count >= 2 else { return false }
            return UInt16(value[0]) | UInt16(value[1]) << 8 == service.handle
        }
    }

    /// Removes every service the application added; the GAP and GATT services stay.
    public mutating func removeAll() {
        let kept = services.filter {
            [BluetoothUUID.Service.genericAccess, BluetoothUUID.Service.genericAttribute].contains($0.published.uuid)
        }
        let end = kept.last?.end ?? 0
        services = kept
        attributes.removeAll { $0.handle > end }
    }

    /// Whether the database holds no service the application added.
    public var isEmpty: Bool {
        services.allSatisfy {
            [BluetoothUUID.Service.genericAccess, BluetoothUUID.Service.genericAttribute].contains($0.published.uuid)
        }
    }

    /// The characteristic whose value has this handle.
    public func characteristic(valueHandle: UInt16) -> PublishedCharacteristic? {
        guard let attribute = attribute(valueHandle), let characteristic = attribute.characteristic,
              characteristic.valueHandle == valueHandle else { return nil }
        return characteristic
    }

    /// The attribute at `handle`.
    public func attribute(_ handle: UInt16) -> Attribute? {
        var low = 0, high = attributes.count - 1
        while low <= high {
            let mid = (low + high) / 2
            if attributes[mid].handle == handle { return attributes[mid] }
            if attributes[mid].handle < handle { low = mid + 1 } else { high = mid - 1 }
        }
        return nil
    }

    /// The attributes with handles in `start...end`, in order (two binary searches: discovery
    /// asks for ranges on every request).
    public func attributes(in start: UInt16, _ end: UInt16) -> ArraySlice<Attribute> {
        guard start <= end else { return [] }
        return attributes[firstIndex(atOrAfter: start)..<firstIndex(atOrAfter: UInt32(end) + 1)]
    }

    /// The index of the first attribute whose handle is at least `handle` (the count when none is).
    private func firstIndex<H: BinaryInteger>(atOrAfter handle: H) -> Int {
        var low = 0, high = attributes.count
        while low < high {
            let mid = (low + high) / 2
            if H(attributes[mid].handle) < handle { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
