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

    /// A database holding the GAP and GATT services.
    public init(deviceName: String = "Bleu", appearance: UInt16 = 0, capacity: Int = 0xFFFE) {
        self.capacity = capacity
        let nameValue = Data(deviceName.utf8.prefix(248))
        var appearanceValue: [UInt8] = []
        appearanceValue.appendLE(appearance)
        _ = try? add(ServiceDefinition(uuid: BluetoothUUID.Service.genericAccess, characteristics: [
            CharacteristicDefinition(uuid: BluetoothUUID.Characteristic.deviceName, properties: .read,
                                     permissions: .readable, value: nameValue),
            CharacteristicDefinition(uuid: BluetoothUUID.Characteristic.appearance, properties: .read,
                                     permissions: .readable, value: Data(appearanceValue)),
        ]), allowingReservedServices: true)
        if let gatt = try? add(ServiceDefinition(uuid: BluetoothUUID.Service.genericAttribute, characteristics: [
            CharacteristicDefinition(uuid: BluetoothUUID.Characteristic.serviceChanged, properties: .indicate,
                                     permissions: [], value: nil),
        ]), allowingReservedServices: true) {
            serviceChangedHandle = gatt.characteristics[0].valueHandle
        }
    }

    /// Adds a service after the last handle in use and returns it with its handles. Throws
    /// ``BleuError/invalidState(_:)`` for a definition the radio protocol forbids.
    public mutating func add(_ definition: ServiceDefinition) throws -> PublishedService {
        try add(definition, allowingReservedServices: false)
    }

    private mutating func add(_ definition: ServiceDefinition, allowingReservedServices: Bool) throws -> PublishedService {
        try validate(definition, allowingReservedServices: allowingReservedServices)
        var handle = (attributes.last?.handle ?? 0) + 1
        let needed = 1 + definition.includedServices.count + definition.characteristics.reduce(0) {
            $0 + 2 + $1.descriptors.count + ($1.properties.isDisjoint(with: [.notify, .indicate]) ? 0 : 1)
        }
        guard attributes.count + needed <= capacity, Int(handle) + needed - 1 <= 0xFFFF else {
            throw BleuError.invalidState("the GATT database is full (\(capacity) attributes); remove a service first")
        }
        var new: [Attribute] = []
        let serviceType = definition.isPrimary ? BluetoothUUID.Declaration.primaryService : BluetoothUUID.Declaration.secondaryService
        new.append(Attribute(handle: handle, type: serviceType, value: .fixed(definition.uuid.attBytes)))
        for included in definition.includedServices {
            handle += 1
            guard let range = services.first(where: { $0.published.uuid == included }) else {
                throw BleuError.invalidState("included service \(included) is not published; add it first")
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

    private func validate(_ definition: ServiceDefinition, allowingReservedServices: Bool) throws {
        if !allowingReservedServices,
           [BluetoothUUID.Service.genericAccess, BluetoothUUID.Service.genericAttribute].contains(definition.uuid) {
            throw BleuError.invalidState("service \(definition.uuid) is provided by the host stack itself")
        }
        for c in definition.characteristics {
            if c.value != nil, !c.properties.isDisjoint(with: [.write, .writeWithoutResponse, .notify, .indicate]) {
                throw BleuError.invalidState("characteristic \(c.uuid) has a static value but is writable or notifies; drop the value")
            }
            if let value = c.value, value.count > 512 {
                throw BleuError.invalidState("characteristic \(c.uuid) has a \(value.count)-byte value; the limit is 512")
            }
            if c.descriptors.contains(where: { $0.uuid == BluetoothUUID.Descriptor.clientCharacteristicConfiguration }) {
                throw BleuError.invalidState("characteristic \(c.uuid) declares a CCCD; the stack adds it for notify/indicate")
            }
        }
    }

    /// Removes a published service. Throws ``BleuError/invalidState(_:)`` when it is not here.
    public mutating func remove(_ service: PublishedService) throws {
        guard let index = services.firstIndex(where: { $0.start == service.handle }) else {
            throw BleuError.invalidState("service \(service.uuid) at handle \(service.handle) is not published")
        }
        services.remove(at: index)
        attributes.removeAll { $0.handle >= service.handle && $0.handle <= service.endHandle }
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

    /// The attributes with handles in `start...end`, in order.
    public func attributes(in start: UInt16, _ end: UInt16) -> ArraySlice<Attribute> {
        guard start <= end else { return [] }
        let first = attributes.firstIndex { $0.handle >= start } ?? attributes.count
        let last = attributes.lastIndex { $0.handle <= end } ?? -1
        return first <= last ? attributes[first...last] : []
    }
}
