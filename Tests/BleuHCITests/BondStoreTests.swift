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
