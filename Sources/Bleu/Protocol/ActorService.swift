import BleuCore
import Foundation

/// An actor service as it is published and read: its UUID and its three characteristics,
/// resolved from a type's ``ServiceMetadata`` (checked) or the default layout.
struct ActorService: Sendable, Hashable {
    var uuid: BluetoothUUID
    var actorID: CharacteristicMetadata
    var call: CharacteristicMetadata
    var reply: CharacteristicMetadata

    /// The default layout under `uuid`.
    init(standard uuid: BluetoothUUID) {
        self.uuid = uuid
        actorID = CharacteristicMetadata(.actorID, uuid: CharacteristicMetadata.defaultUUID(.actorID))
        call = CharacteristicMetadata(.call, uuid: CharacteristicMetadata.defaultUUID(.call))
        reply = CharacteristicMetadata(.reply, uuid: CharacteristicMetadata.defaultUUID(.reply))
    }

    /// The service a type's metadata describes, its security applied to every characteristic.
    /// - Throws: ``BLEActorSystemError/invalidServiceMetadata(type:_:)``.
    init(_ metadata: ServiceMetadata, of type: String) throws(BLEActorSystemError) {
        var roles: [CharacteristicMetadata.Role: CharacteristicMetadata] = [:]
        for characteristic in metadata.characteristics {
            guard roles[characteristic.role] == nil else {
                throw .invalidServiceMetadata(type: type, .roleListedTwice(characteristic.role))
            }
            roles[characteristic.role] = characteristic
        }
        func resolved(_ role: CharacteristicMetadata.Role) -> CharacteristicMetadata {
            roles[role] ?? CharacteristicMetadata(role, uuid: CharacteristicMetadata.defaultUUID(role))
        }
        let all = CharacteristicMetadata.Role.allCases.map(resolved)
        for (index, characteristic) in all.enumerated() where all[..<index].contains(where: { $0.uuid == characteristic.uuid }) {
            throw .invalidServiceMetadata(type: type, .uuidUsedTwice(characteristic.uuid))
        }
        for characteristic in all {
            let needed = Self.requiredProperties(characteristic.role)
            guard characteristic.properties.isSuperset(of: needed) else {
                throw .invalidServiceMetadata(type: type, .missingProperties(characteristic.role, needed))
            }
            let access = CharacteristicMetadata.defaultPermissions(characteristic.role)
            guard characteristic.permissions.isSuperset(of: access) else {
                throw .invalidServiceMetadata(type: type, .missingPermissions(characteristic.role, access))
            }
        }
        // The strongest level any characteristic asks for applies to all, the actor-id read
        // included: a central pairs while setting up the link.
        let level = all.map { ServiceMetadata.SecurityRequirement($0.permissions) }.reduce(metadata.security, max)
        func secured(_ characteristic: CharacteristicMetadata) -> CharacteristicMetadata {
            var secured = characteristic
            secured.permissions = level.permissions(adding: characteristic.permissions)
            return secured
        }
        uuid = metadata.uuid
        actorID = secured(resolved(.actorID))
        call = secured(resolved(.call))
        reply = secured(resolved(.reply))
    }

    /// The same actor under another service UUID (a protocol it is discoverable as): the
    /// default characteristic UUIDs, with this service's properties and permissions.
    func protocolService(_ uuid: BluetoothUUID) -> ActorService {
        var service = ActorService(standard: uuid)
        service.actorID.properties = actorID.properties
        service.actorID.permissions = actorID.permissions
        service.call.properties = call.properties
        service.call.permissions = call.permissions
        service.reply.properties = reply.properties
        service.reply.permissions = reply.permissions
        return service
    }

    static func requiredProperties(_ role: CharacteristicMetadata.Role) -> CharacteristicProperties {
        switch role {
        case .actorID: [.read]
        case .call: [.writeWithoutResponse]
        case .reply: [.notify]
        }
    }

    /// The three characteristic UUIDs.
    var characteristicUUIDs: [BluetoothUUID] { [actorID.uuid, call.uuid, reply.uuid] }

    /// The service that hosts the actor with this id.
    func definition(actorID id: UUID) -> ServiceDefinition {
        ServiceDefinition(uuid: uuid, characteristics: [
            CharacteristicDefinition(uuid: actorID.uuid, properties: actorID.properties, permissions: actorID.permissions,
                                     value: id.bytes),
            CharacteristicDefinition(uuid: call.uuid, properties: call.properties, permissions: call.permissions),
            CharacteristicDefinition(uuid: reply.uuid, properties: reply.properties, permissions: reply.permissions),
        ])
    }
}
