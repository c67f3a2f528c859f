import BleuCore
import Foundation

/// The peers a radio knows, under identifiers of its own: a version-5 UUID of the local
/// address and the peer's address and type, so the same peer keeps its identifier across runs
/// of the same local device, and a peer can never choose how a central knows it.
///
/// Bounded: past ``capacity`` the oldest entry that is not protected (connected) is forgotten.
/// A bonded peer using resolvable private addresses keeps one identifier as its address
/// changes: an address a bond's IRK resolves is known under the peer's identity address (or
/// under the identifier it paired with, in the run that bonded). Any other peer using private
/// addresses gets a new identifier each time its address changes.
struct PeerDirectory: Sendable {
    struct Entry: Sendable, Hashable {
        var address: BluetoothAddress
        var type: AddressType
        var name: String?
    }

    static let namespace = UUID(uuidString: "5B1E0000-0000-4B1E-8000-B1E0C1D0A001")!

    let localAddress: BluetoothAddress
    let capacity: Int
    private(set) var entries: [UUID: Entry] = [:]
    private var byKey: [PeerKey: UUID] = [:]
    /// Bonded peers' identity addresses, to the identifier each is known under.
    private var byIdentity: [PeerKey: UUID] = [:]
    private var order: [UUID] = []

    init(localAddress: BluetoothAddress, capacity: Int) {
        self.localAddress = localAddress
        self.capacity = capacity
    }

    /// The identifier a radio at `local` gives the peer at `address`.
    static func identifier(local: BluetoothAddress, address: BluetoothAddress, type: AddressType) -> UUID {
        let kind = type.rawValue & 1 == 1 ? "random" : "public"
        return UUID(version5Of: "bleu-hci/\(local)/\(kind)/\(address)", in: namespace)
    }

    /// The peer's identifier, remembering it (and its name, when known). `isProtected` tells which
    /// identifiers must not be forgotten to make room. `resolve` gives the identity address a
    /// bond's IRK resolves `address` to (asked only for an address not seen before): the peer
    /// keeps the identifier of that identity, and its entry takes the new address.
    mutating func identify(_ address: BluetoothAddress, type: AddressType, name: String? = nil,
                           isProtected: (UUID) -> Bool = { _ in false },
                           resolve: () -> PairingAddress? = { nil }) -> UUID {
        let key = PeerKey(address: address, isRandom: type.rawValue & 1 == 1)
        if let id = byKey[key] {
            if let name { entries[id]?.name = name }
            return id
        }
        let identity = resolve()
        let identityKey = identity.map { PeerKey(address: $0.address, isRandom: $0.type.rawValue & 1 == 1) }
        if let identityKey, let id = byIdentity[identityKey], var entry = entries[id] {
            // A bonded peer under a new private address: the same identifier.
            byKey[PeerKey(address: entry.address, isRandom: entry.type.rawValue & 1 == 1)] = nil
            entry.address = address
            entry.type = AddressType(rawValue: type.rawValue & 1)
            if let name { entry.name = name }
            entries[id] = entry
            byKey[key] = id
            return id
        }
        let id = identity.map { Self.identifier(local: localAddress, address: $0.address, type: $0.type) }
            ?? Self.identifier(local: localAddress, address: address, type: type)
        if entries.count >= capacity, let victim = order.first(where: { !isProtected($0) }) {
            forget(victim)
        }
        entries[id] = Entry(address: address, type: AddressType(rawValue: type.rawValue & 1), name: name)
        byKey[key] = id
        if let identityKey { byIdentity[identityKey] = id }
        order.append(id)
        return id
    }

    /// The peer known as `id` paired and gave its identity: its later private addresses that
    /// the identity's IRK resolves are known as `id` too.
    mutating func noteIdentity(_ identity: PairingAddress, of id: UUID) {
        guard entries[id] != nil else { return }
        byIdentity[PeerKey(address: identity.address, isRandom: identity.type.rawValue & 1 == 1)] = id
    }

    func entry(_ id: UUID) -> Entry? { entries[id] }

    private mutating func forget(_ id: UUID) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        byKey[PeerKey(address: entry.address, isRandom: entry.type.rawValue & 1 == 1)] = nil
        byIdentity = byIdentity.filter { $0.value != id }
        order.removeAll { $0 == id }
    }
}
