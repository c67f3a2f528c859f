import BleuCore
import Foundation
import Testing

@testable import BleuHCI

@Suite("Bonds: what a pairing leaves, kept in memory or in a file")
struct BondStoreTests {
    static let peer = PairingAddress(type: .randomDevice, address: BluetoothAddress(string: "C1:B2:B3:B4:B5:B6")!)
    static let other = PairingAddress(type: .publicDevice, address: BluetoothAddress(string: "00:11:22:33:44:55")!)

    static func bond(_ peer: PairingAddress = peer, key: UInt8 = 0x5A) -> Bond {
        Bond(peer: peer, localRole: .initiator, longTermKey: LongTermKey(key: [UInt8](repeating: key, count: 16), ediv: 0x1234, rand: 0xDEAD_BEEF_0102_0304),
             secureConnections: false, authenticated: true, keySize: 16, peerResolvingKey: [UInt8](repeating: 0xA1, count: 16),
             peerSigningKey: nil, localSigningKey: [UInt8](repeating: 0xC5, count: 16))
    }

    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("bleu-bonds-\(UUID().uuidString).json").path
    }

    @Test("a file store keeps bonds across instances, mode 0600, replaced atomically; forget removes one")
    func file() throws {
        let path = Self.temporaryPath()
        defer { _ = try? FileManager.default.removeItem(atPath: path) }
        let store = try FileBondStore(path: path)
        #expect(store.bonds().isEmpty)
        try store.save(Self.bond())
        try store.save(Self.bond(Self.other, key: 0x77))
        try store.save(Self.bond(key: 0x66))   // replaces the first
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(!FileManager.default.fileExists(atPath: path + ".new"))

        let reopened = try FileBondStore(path: path)
        #expect(reopened.bonds() == [Self.bond(Self.other, key: 0x77), Self.bond(key: 0x66)])
        #expect(reopened.bond(with: Self.peer) == Self.bond(key: 0x66))
        #expect(try reopened.forget(Self.peer))
        #expect(try !reopened.forget(Self.peer))
        #expect(try FileBondStore(path: path).bonds() == [Self.bond(Self.other, key: 0x77)])
    }

    @Test("a file that is not a bond file is refused and left as it was")
    func corrupt() throws {
        let path = Self.temporaryPath()
        defer { _ = try? FileManager.default.removeItem(atPath: path) }
        for text in ["not json", #"{"version": 9, "bonds": []}"#, #"{"version": 1, "bonds": [{"address": "zz"}]}"#] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            #expect(throws: BondStoreError.self) { try FileBondStore(path: path) }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
        }
    }

    @Test("an unwritable place fails typed and keeps the bonds in memory as they were")
    func unwritable() throws {
        let store = try FileBondStore(path: "/proc/bleu-cannot-write-here/bonds.json")
        #expect(throws: BondStoreError.self) { try store.save(Self.bond()) }
        #expect(store.bonds().isEmpty)
    }

    @Test("a bond's description names the peer and never shows a key")
    func description() {
        let text = "\(Self.bond())"
        #expect(text.contains("C1:B2:B3:B4:B5:B6"))
        for key in ["5a5a", "5A5A", "a1a1", "A1A1", "c5c5", "C5C5", "90"] { #expect(!text.contains(key), "\(text)") }
    }

    @Test("the bond of a pairing: Secure Connections' LTK; legacy's LTK distributed by the peripheral; none without bonding")
    func fromOutcome() throws {
        let seed = UInt64.random(in: 1...UInt64.max)
        print("BondStoreTests seed: \(seed)")
        for legacy in [false, true] {
            var harness = PairingHarness(initiator: SecurityManagerConfiguration(),
                                         responder: SecurityManagerConfiguration(identity: PairingIdentity(resolvingKey: [UInt8](repeating: 3, count: 16),
                                                                                                           address: Self.other)),
                                         seed: seed, legacyInitiator: legacy)
            try harness.run()
            let centralOutcome = try #require(harness.outcomes[.initiator])
            let peripheralOutcome = try #require(harness.outcomes[.responder])
            let central = try #require(Bond(centralOutcome, localRole: .initiator, peerAddress: Self.peer))
            let peripheral = try #require(Bond(peripheralOutcome, localRole: .responder, peerAddress: PairingHarness.central))
            #expect(central.longTermKey == peripheral.longTermKey, "both ends encrypt later links with the same key (legacy \(legacy))")
            #expect(central.peer == Self.other, "the peer's identity address, not the one it paired from")
            #expect(central.peerResolvingKey == [UInt8](repeating: 3, count: 16))
            #expect(peripheral.peer == PairingHarness.central)
            #expect(central.secureConnections == !legacy)
        }
        var unbonded = PairingHarness(initiator: SecurityManagerConfiguration(bonding: false), responder: SecurityManagerConfiguration(), seed: seed)
        try unbonded.run()
        let outcome = try #require(unbonded.outcomes[.initiator])
        #expect(Bond(outcome, localRole: .initiator, peerAddress: Self.peer) == nil)
    }

    @Test("the in-memory store keeps, replaces and forgets")
    func memory() {
        let store = InMemoryBondStore([Self.bond()])
        store.save(Self.bond(key: 1))
        #expect(store.bonds() == [Self.bond(key: 1)])
        #expect(store.forget(Self.peer))
        #expect(store.bond(with: Self.peer) == nil)
    }
}

@Suite("Privacy: resolvable private addresses")
struct ResolvablePrivateAddressTests {
    static let irk = SecurityFunctionsTests.bytes("ec0234a3 57c8ad05 341010a6 0a397d9b")

    @Test("the specification's ah sample is an address that the IRK resolves and another does not")
    func sample() {
        let address = BluetoothAddress(string: "70:81:94:0D:FB:AA")!
        #expect(ResolvablePrivateAddress.isResolvable(address))
        #expect(ResolvablePrivateAddress.resolves(address, with: Self.irk))
        var other = Self.irk
        other[0] ^= 1
        #expect(!ResolvablePrivateAddress.resolves(address, with: other))
        #expect(!ResolvablePrivateAddress.resolves(BluetoothAddress(string: "70:81:94:0D:FB:AB")!, with: Self.irk))
        // A static random address (top bits 0b11) is not resolvable, whatever its hash.
        #expect(!ResolvablePrivateAddress.isResolvable(BluetoothAddress(string: "F0:81:94:0D:FB:AA")!))
    }

    @Test("new addresses have the resolvable form, resolve with their IRK, and differ")
    func generated() {
        var generator = SeededRandomNumberGenerator(seed: 7)
        var seen = Set<BluetoothAddress>()
        for _ in 0..<200 {
            let address = ResolvablePrivateAddress.make(irk: Self.irk) { count in (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
            #expect(address.bytes[0] & 0xC0 == 0x40)
            #expect(ResolvablePrivateAddress.resolves(address, with: Self.irk))
            seen.insert(address)
        }
        #expect(seen.count == 200)
        // Random octets that would give prand's random part all zeros or all ones are drawn again.
        var draws = [[0x00, 0x00, 0x00], [0xFF, 0xFF, 0xFF], [0x12, 0x34, 0x56]].makeIterator()
        let address = ResolvablePrivateAddress.make(irk: Self.irk) { _ in draws.next()!.map(UInt8.init) }
        #expect(Array(address.bytes[0..<3]) == [0x52, 0x34, 0x56])
    }

    @Test("a bonded peer found under a private address its IRK resolves; not under another")
    func bondLookup() throws {
        let store = InMemoryBondStore([BondStoreTests.bond()])
        // The bond's peer resolving key is 16 × 0xA1.
        var generator = SeededRandomNumberGenerator(seed: 9)
        let rotated = ResolvablePrivateAddress.make(irk: [UInt8](repeating: 0xA1, count: 16)) { count in
            (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }
        #expect(try store.bond(resolving: PairingAddress(type: .randomDevice, address: rotated)) == BondStoreTests.bond())
        #expect(try store.bond(resolving: PairingAddress(type: .publicDevice, address: rotated)) == nil, "a public address never resolves")
        #expect(try store.bond(resolving: PairingAddress(type: .randomDevice, address: BluetoothAddress(string: "70:81:94:0D:FB:AA")!)) == nil)
        #expect(try store.bond(resolving: BondStoreTests.peer) == BondStoreTests.bond(), "the address it bonded under")
    }
}
