import BleuCore
import Foundation

/// What a peripheral hosting actors says about them in its scan response, so a central looking
/// for a saved actor id connects only to the peripherals that may host it, whatever protocol it
/// resolved the id through. See `Docs/ActorSystemProtocol.md`.
///
/// It travels as a 128-bit **service UUID**, the one kind of field every backend can advertise
/// (CoreBluetooth's peripheral manager advertises only service UUIDs and a local name), whose
/// 16 bytes are: the first 4 bytes of ``ActorServiceLayout/hostService`` (the marker's
/// signature), a version byte (1), a flags byte — bits 0–2: how many hashes follow; bit 3:
/// the peripheral hosts services its advertisement does not list; bit 4: it hosts more actors
/// than the hashes listed — then up to ``maximumHashes`` 2-byte hashes (big-endian) of hosted
/// actor ids, zero-padded.
///
/// A hash only narrows the search: the central reads the id after connecting. Two ids share
/// a hash with probability 1/65 536, which costs one needless connection.
struct HostAdvertisement: Sendable, Hashable {
    /// Hashes that fit the marker beside its signature, version and flags.
    static let maximumHashes = 5
    static let version: UInt8 = 1
    private static let signature = Array(ActorServiceLayout.hostService.bytes.prefix(4))

    /// The peripheral hosts services its advertisement does not list: discovery by type must
    /// connect and look.
    var unlistedServices: Bool
    /// The peripheral hosts more actors than ``actorHashes`` lists.
    var unlistedActors: Bool
    var actorHashes: [UInt16]

    init(services: Int, listedServices: Int, actors: [UUID]) {
        unlistedServices = services > listedServices
        unlistedActors = actors.count > Self.maximumHashes
        actorHashes = actors.prefix(Self.maximumHashes).map(Self.hash)
    }

    /// The marker as the service UUID it is advertised as.
    var uuid: BluetoothUUID {
        var bytes = Self.signature + [Self.version]
        bytes.append(UInt8(actorHashes.count) | (unlistedServices ? 0x08 : 0) | (unlistedActors ? 0x10 : 0))
        for hash in actorHashes { bytes += [UInt8(hash >> 8), UInt8(hash & 0xFF)] }
        bytes += [UInt8](repeating: 0, count: 16 - bytes.count)
        return BluetoothUUID(uuid: UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))
    }

    /// The host marker among an advertisement's service UUIDs, or `nil` when it has none.
    init?(_ data: AdvertisingData) {
        guard let marker = data.serviceUUIDs.lazy.compactMap(HostAdvertisement.init(uuid:)).first else { return nil }
        self = marker
    }

    /// The marker a service UUID is, or `nil` when it is not one (of this version).
    init?(uuid: BluetoothUUID) {
        let bytes = uuid.bytes
        guard Array(bytes.prefix(4)) == Self.signature, bytes[4] == Self.version else { return nil }
        let flags = bytes[5]
        let count = Int(flags & 0x07)
        guard count <= Self.maximumHashes else { return nil }
        unlistedServices = flags & 0x08 != 0
        unlistedActors = flags & 0x10 != 0
        actorHashes = (0..<count).map { UInt16(bytes[6 + 2 * $0]) << 8 | UInt16(bytes[7 + 2 * $0]) }
    }

    /// Whether the peripheral may host the actor with this id.
    func mayHost(_ id: UUID) -> Bool {
        unlistedActors || actorHashes.contains(Self.hash(id))
    }

    /// A 16-bit hash of an actor id: FNV-1a over its 16 bytes, folded.
    static func hash(_ id: UUID) -> UInt16 {
        var value: UInt32 = 2_166_136_261
        withUnsafeBytes(of: id.uuid) { bytes in
            for byte in bytes {
                value ^= UInt32(byte)
                value = value &* 16_777_619
            }
        }
        return UInt16(truncatingIfNeeded: value >> 16) ^ UInt16(truncatingIfNeeded: value)
    }
}
