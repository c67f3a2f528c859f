import BleuCore
import Distributed
import Foundation

/// How actors map onto GATT: one primary service per hosted actor type (and per protocol it is
/// discoverable as), each with three characteristics. See `Docs/ActorSystemProtocol.md`.
public enum ActorServiceLayout {
    /// The namespace of every name-based UUID of the actor system.
    public static let namespace = UUID(version5Of: "bleu.actor-system", in: UUID.Namespace.dns)

    /// Read-only, static: the actor's identifier, 16 bytes (RFC 9562 byte order).
    public static let actorIDCharacteristic = BluetoothUUID(version5Of: "characteristic:actor-id", in: namespace)
    /// Write and write without response: requests, as compact-framed messages.
    public static let callCharacteristic = BluetoothUUID(version5Of: "characteristic:call", in: namespace)
    /// Notify: replies and stream elements, as compact-framed messages.
    public static let replyCharacteristic = BluetoothUUID(version5Of: "characteristic:reply", in: namespace)
    /// Advertised instead of a service list that does not fit the advertisement: "this
    /// peripheral hosts Bleu actors; connect and look".
    public static let hostService = BluetoothUUID(version5Of: "service:host", in: namespace)

    /// The stable name of an actor type or a `@Resolvable` protocol (named by its `$` stub):
    /// `actor:Module.Type` or `protocol:Module.Protocol`.
    public static func name(of type: any DistributedActor.Type) -> String {
        let reflected = String(reflecting: type)
        if type is any _DistributedActorStub.Type {
            return "protocol:" + reflected.replacingOccurrences(of: "$", with: "")
        }
        return "actor:" + reflected
    }

    /// The service UUID an actor type is hosted and found under: its
    /// ``PeripheralActor/serviceMetadata``'s, which is ``derivedServiceUUID(for:)`` unless the
    /// type chose another.
    public static func serviceUUID(for type: any DistributedActor.Type) -> BluetoothUUID {
        (type as? any PeripheralActor.Type)?.serviceMetadata.uuid ?? derivedServiceUUID(for: type)
    }

    /// The name-based service UUID of an actor type or protocol: a version-5 UUID of
    /// ``name(of:)`` in ``namespace``.
    public static func derivedServiceUUID(for type: any DistributedActor.Type) -> BluetoothUUID {
        BluetoothUUID(version5Of: name(of: type), in: namespace)
    }

    /// The services an actor type is hosted under: its own (from its metadata), then one per
    /// protocol it is discoverable as, with the same permissions.
    /// - Throws: ``BLEActorSystemError/invalidServiceMetadata(type:_:)``.
    static func services(of type: any PeripheralActor.Type) throws(BLEActorSystemError) -> [ActorService] {
        let main = try ActorService(type.serviceMetadata, of: String(reflecting: type))
        var services = [main]
        for protocolType in type.discoverableAs {
            let uuid = serviceUUID(for: protocolType)
            if !services.contains(where: { $0.uuid == uuid }) { services.append(main.protocolService(uuid)) }
        }
        return services
    }

    /// The advertisement for these services and actors: the advertising data lists the first
    /// service UUID (a 128-bit UUID fills most of a legacy advertisement) and as much of the
    /// local name as fits; the scan response lists the ``HostAdvertisement`` marker (whether
    /// services go unlisted, and a hash of each actor id) as a second service UUID.
    static func advertisement(for services: [BluetoothUUID], actors: [UUID], localName: String?) -> (AdvertisingData, AdvertisingData) {
        var unique: [BluetoothUUID] = []
        for uuid in services where !unique.contains(uuid) { unique.append(uuid) }
        var structures: [ADStructure] = [.flags(.leGeneralDiscoverable)]
        if let first = unique.first {
            structures.append(.serviceUUIDs([first], width: first.shortestWidth, complete: unique.count == 1))
        }
        if let localName, let name = nameThatFits(localName, after: structures) { structures.append(name) }
        var actorIDs: [UUID] = []
        for id in actors where !actorIDs.contains(id) { actorIDs.append(id) }
        let marker = HostAdvertisement(services: unique.count, listedServices: min(1, unique.count), actors: actorIDs)
        let response = AdvertisingData(serviceUUIDs: [marker.uuid])
        return (AdvertisingData(structures), response)
    }

    /// The local name, complete or shortened at a character boundary to what room is left in a
    /// legacy advertisement after `structures`; `nil` when not one character fits.
    private static func nameThatFits(_ name: String, after structures: [ADStructure]) -> ADStructure? {
        // Flags take 3 bytes; a list of one UUID, 2 + its width.
        let used = structures.reduce(0) { total, structure in
            switch structure {
            case .flags: total + 3
            case .serviceUUIDs(let uuids, let width, _): total + 2 + uuids.count * width.byteCount
            default: total + AdvertisingData.legacyMaximumLength
            }
        }
        let room = AdvertisingData.legacyMaximumLength - used - 2
        guard room > 0 else { return nil }
        if name.utf8.count <= room { return .localName(name, complete: true) }
        var shortened = ""
        for character in name {
            guard shortened.utf8.count + String(character).utf8.count <= room else { break }
            shortened.append(character)
        }
        return shortened.isEmpty ? nil : .localName(shortened, complete: false)
    }
}

extension UUID {
    /// The 16 bytes in RFC 9562 order.
    var bytes: Data {
        withUnsafeBytes(of: uuid) { Data($0) }
    }

    /// A UUID from 16 bytes, or `nil` for another length.
    init?(bytes: Data) {
        guard bytes.count == 16 else { return nil }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes) }
        self.init(uuid: value)
    }
}
