import BleuCore
import Foundation

/// A peripheral's GATT database: services, characteristics and descriptors with their
/// attribute handles. A pure value; the server logic around it lives in the engine.
///
/// Each service takes a contiguous handle range: its declaration, one include declaration per
/// included service, then per characteristic a declaration, the value, a Client Characteristic
/// Configuration descriptor when it notifies or indicates, and its declared descriptors.
struct AttributeDatabase: Sendable {
    /// An attribute value holds at most 512 bytes (Core Spec Vol 3 Part F §3.2.9).
    static let maximumValueLength = 512

    struct Descriptor: Sendable, Hashable {
        var uuid: BluetoothUUID
        var handle: UInt16
        var value: Data
    }

    struct Characteristic: Sendable, Hashable {
        var published: PublishedCharacteristic
        var declarationHandle: UInt16
        var staticValue: Data?
        var configurationHandle: UInt16?
        var descriptors: [Descriptor]
        var endHandle: UInt16
    }

    struct Service: Sendable, Hashable {
        var published: PublishedService
        var includes: [ATTPDU.IncludeEntry]
        var characteristics: [Characteristic]
    }

    /// What a handle addresses.
    enum Attribute: Sendable, Hashable {
        case serviceDeclaration(Service)
        case includeDeclaration(ATTPDU.IncludeEntry)
        case characteristicDeclaration(Characteristic)
        case characteristicValue(Characteristic)
        case configuration(Characteristic)
        case descriptor(Descriptor, of: Characteristic)

        /// The attribute type, for Find Information.
        var type: BluetoothUUID {
            switch self {
            case .serviceDeclaration(let service):
                service.published.isPrimary ? BluetoothUUID(0x2800) : BluetoothUUID(0x2801)
            case .includeDeclaration: BluetoothUUID(0x2802)
            case .characteristicDeclaration: BluetoothUUID(0x2803)
            case .characteristicValue(let characteristic): characteristic.published.uuid
            case .configuration: BluetoothUUID.Descriptor.clientCharacteristicConfiguration
            case .descriptor(let descriptor, _): descriptor.uuid
            }
        }
    }

    private(set) var services: [Service] = []
    private var index: [UInt16: Attribute] = [:]
    /// Every handle in use, ascending.
    private(set) var handles: [UInt16] = []

    init() {}

    /// Whether the database holds no service.
    var isEmpty: Bool { services.isEmpty }

    /// The attribute at a handle.
    func attribute(at handle: UInt16) -> Attribute? {
        index[handle]
    }

    /// The characteristic whose value has this handle.
    func characteristic(valueHandle: UInt16) -> Characteristic? {
        if case .characteristicValue(let characteristic)? = index[valueHandle] { return characteristic }
        return nil
    }

    /// Publishes a service after the last one and returns it with its handles.
    ///
    /// Throws ``BleuError/invalidState(_:)`` for a definition a real stack refuses: a static
    /// value on a characteristic that can be written or that notifies or indicates, a declared
    /// Client Characteristic Configuration descriptor, a value over 512 bytes, an included
    /// service that is not published, or no handles left.
    mutating func add(_ definition: ServiceDefinition) throws(BleuError) -> PublishedService {
        try validate(definition)
        var includes: [ATTPDU.IncludeEntry] = []
        let needed = 1 + definition.includedServices.count + definition.characteristics.reduce(0) {
            $0 + 2 + ($1.properties.isDisjoint(with: [.notify, .indicate]) ? 0 : 1) + $1.descriptors.count
        }
        let first = Int(services.last?.published.endHandle ?? 0) + 1
        guard first + needed - 1 <= Int(UInt16.max) else {
            throw .invalidState("the GATT database has no \(needed) attribute handles left for service \(definition.uuid)")
        }
        var next = UInt16(first)
        func take() -> UInt16 {
            defer { next &+= 1 }
            return next
        }
        let serviceHandle = take()
        for uuid in definition.includedServices {
            let included = services.first { $0.published.uuid == uuid }!.published
            includes.append(ATTPDU.IncludeEntry(handle: take(), service: ATTPDU.ServiceEntry(
                handle: included.handle, endHandle: included.endHandle, uuid: included.uuid), isPrimary: included.isPrimary))
        }
        var characteristics: [Characteristic] = []
        for characteristic in definition.characteristics {
            let declaration = take()
            let published = PublishedCharacteristic(service: definition.uuid, uuid: characteristic.uuid,
                                                    properties: characteristic.properties,
                                                    permissions: characteristic.permissions, valueHandle: take())
            let configuration = characteristic.properties.isDisjoint(with: [.notify, .indicate]) ? nil : take()
            let descriptors = characteristic.descriptors.map { Descriptor(uuid: $0.uuid, handle: take(), value: $0.value) }
            characteristics.append(Characteristic(published: published, declarationHandle: declaration,
                                                  staticValue: characteristic.value,
                                                  configurationHandle: configuration, descriptors: descriptors,
                                                  endHandle: next - 1))
        }
        let service = Service(
            published: PublishedService(uuid: definition.uuid, isPrimary: definition.isPrimary, handle: serviceHandle,
                                        endHandle: next - 1, characteristics: characteristics.map(\.published)),
            includes: includes, characteristics: characteristics)
        services.append(service)
        reindex()
        return service.published
    }

    /// Removes a published service. Throws ``BleuError/invalidState(_:)`` when it is not
    /// published, or when another service includes it.
    mutating func remove(_ service: PublishedService) throws(BleuError) {
        guard let position = services.firstIndex(where: { $0.published.handle == service.handle && $0.published.uuid == service.uuid }) else {
            throw .invalidState("service \(service.uuid) at handle \(service.handle) is not published")
        }
        if let includer = services.first(where: { $0.includes.contains { $0.service.handle == service.handle } }) {
            throw .invalidState("service \(service.uuid) is included by service \(includer.published.uuid); remove that first")
        }
        services.remove(at: position)
        reindex()
    }

    /// Removes every service.
    mutating func removeAll() {
        services.removeAll()
        index.removeAll()
        handles.removeAll()
    }

    private func validate(_ definition: ServiceDefinition) throws(BleuError) {
        for uuid in definition.includedServices where !services.contains(where: { $0.published.uuid == uuid }) {
            throw .invalidState("service \(definition.uuid) includes \(uuid), which is not published; add it first")
        }
        for characteristic in definition.characteristics {
            if let value = characteristic.value {
                if !characteristic.properties.isDisjoint(with: [.write, .writeWithoutResponse, .notify, .indicate]) {
                    throw .invalidState("characteristic \(characteristic.uuid) has a static value but can be written or notifies; serve its value from requests instead")
                }
                if value.count > Self.maximumValueLength {
                    throw .invalidState("characteristic \(characteristic.uuid) has a \(value.count)-byte value; the limit is 512")
                }
            }
            for descriptor in characteristic.descriptors {
                if descriptor.uuid == BluetoothUUID.Descriptor.clientCharacteristicConfiguration {
                    throw .invalidState("characteristic \(characteristic.uuid) declares a Client Characteristic Configuration descriptor; the backend adds it for characteristics that notify or indicate")
                }
                if descriptor.value.count > Self.maximumValueLength {
                    throw .invalidState("descriptor \(descriptor.uuid) has a \(descriptor.value.count)-byte value; the limit is 512")
                }
            }
        }
    }

    private mutating func reindex() {
        index.removeAll(keepingCapacity: true)
        for service in services {
            index[service.published.handle] = .serviceDeclaration(service)
            for include in service.includes { index[include.handle] = .includeDeclaration(include) }
            for characteristic in service.characteristics {
                index[characteristic.declarationHandle] = .characteristicDeclaration(characteristic)
                index[characteristic.published.valueHandle] = .characteristicValue(characteristic)
                if let handle = characteristic.configurationHandle { index[handle] = .configuration(characteristic) }
                for descriptor in characteristic.descriptors {
                    index[descriptor.handle] = .descriptor(descriptor, of: characteristic)
                }
            }
        }
        handles = index.keys.sorted()
    }
}
