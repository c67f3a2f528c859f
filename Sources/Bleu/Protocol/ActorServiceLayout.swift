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
    /// The three characteristics every actor service has.
    static let characteristics = [actorIDCharacteristic, callCharacteristic, replyCharacteristic]
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

    /// The service UUID of an actor type or protocol: a version-5 UUID of ``name(of:)`` in
    /// ``namespace``.
    public static func serviceUUID(for type: any DistributedActor.Type) -> BluetoothUUID {
        BluetoothUUID(version5Of: name(of: type), in: namespace)
    }

    /// The service that hosts one actor under `uuid`.
    static func service(_ uuid: BluetoothUUID, actorID: UUID) -> ServiceDefinition {
        ServiceDefinition(uuid: uuid, characteristics: [
            CharacteristicDefinition(uuid: actorIDCharacteristic, properties: [.read], permissions: .readable,
                                     value: actorID.bytes),
            CharacteristicDefinition(uuid: callCharacteristic, properties: [.write, .writeWithoutResponse],
                                     permissions: .writeable),
            CharacteristicDefinition(uuid: replyCharacteristic, properties: [.notify], permissions: .readable),
        ])
    }

    /// The advertisement for these services in order: the first UUID in the advertising data,
    /// the second in the scan response; when more services are hosted, the scan response names
    /// ``hostService`` instead and centrals look inside.
    static func advertisement(for services: [BluetoothUUID], localName: String?) -> (AdvertisingData, AdvertisingData?) {
        var unique: [BluetoothUUID] = []
        for uuid in services where !unique.contains(uuid) { unique.append(uuid) }
        let main = AdvertisingData(flags: .leGeneralDiscoverable, serviceUUIDs: Array(unique.prefix(1)))
        guard unique.count > 1 else { return (main, localName.map { AdvertisingData(localName: $0) }) }
        let second = unique.count == 2 ? unique[1] : hostService
        return (main, AdvertisingData(serviceUUIDs: [second]))
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
