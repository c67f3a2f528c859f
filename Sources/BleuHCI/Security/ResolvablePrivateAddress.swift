/// Resolvable private addresses (Core Specification Vol 6 Part B §1.3.2.2): random addresses a
/// device changes often, which only holders of its identity resolving key (IRK) can tie to it.
/// The most significant 24 bits are `prand` (its top two bits 0b01), the least significant 24
/// the hash `ah(IRK, prand)`.
public enum ResolvablePrivateAddress {
    /// A new address for `irk`. `random` gives random octets (cryptographically strong outside
    /// tests); prand's 22 random bits are neither all zeros nor all ones.
    public static func make(irk: [UInt8], random: (Int) -> [UInt8]) -> BluetoothAddress {
        while true {
            var prand = random(3)
            prand[0] = prand[0] & 0x3F | 0x40
            let bits = (UInt32(prand[0] & 0x3F) << 16) | (UInt32(prand[1]) << 8) | UInt32(prand[2])
            guard bits != 0, bits != 0x3F_FFFF else { continue }
            return BluetoothAddress(bytes: prand + SecurityFunctions.ah(k: irk, r: prand))
        }
    }

    /// Whether `address` has the form of a resolvable private address (it must also be a
    /// random address on the air).
    public static func isResolvable(_ address: BluetoothAddress) -> Bool {
        address.bytes[0] & 0xC0 == 0x40
    }

    /// Whether the device holding `irk` made `address`.
    public static func resolves(_ address: BluetoothAddress, with irk: [UInt8]) -> Bool {
        guard isResolvable(address), irk.count == 16 else { return false }
        return SecurityFunctions.ah(k: irk, r: Array(address.bytes[0..<3])) == Array(address.bytes[3..<6])
    }
}

extension BondStore {
    /// The bond of the peer using `address`: bonded under that address, or — a random address
    /// of resolvable form — with a peer whose IRK resolves it. A bonded peer that rotates its
    /// address is one peer to everything above.
    public func bond(resolving address: PairingAddress) throws(BondStoreError) -> Bond? {
        if let bond = try bond(with: address) { return bond }
        guard address.type.rawValue & 1 == 1, ResolvablePrivateAddress.isResolvable(address.address) else { return nil }
        return try bonds().first { bond in
            bond.peerResolvingKey.map { ResolvablePrivateAddress.resolves(address.address, with: $0) } ?? false
        }
    }
}
