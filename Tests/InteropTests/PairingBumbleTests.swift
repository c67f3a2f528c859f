import BleuCore
import BumbleSupport
import Foundation
import Testing

@testable import BleuHCI

/// Our Security Manager against Bumble's (an independent SMP implementation), both roles, on
/// Bumble's virtual link: Secure Connections Just Works, legacy Just Works, and Secure
/// Connections passkey entry with Bumble displaying the passkey. Bumble 0.0.236's controllers
/// ask the peripheral's host for its key and compare it with the central's, so every encrypted
/// link here also proves both sides derived the same key.
@Suite("Interop: pairing with Bumble's Security Manager", .enabled(if: BumbleLink.python != nil, BumbleLink.skipReason),
       .timeLimit(.minutes(1)))
struct PairingBumbleTests {
    static let secret = BluetoothUUID("6E400005-B5A3-F393-E0A9-E50E24DCCA9E")
    static let passkey: UInt32 = 123_456

    /// Our side's configuration for a mode Bumble's peer runs.
    static func ours(_ mode: String) -> SecurityManagerConfiguration {
        switch mode {
        case "legacy": SecurityManagerConfiguration(supportsSecureConnections: false)
        case "justworks": SecurityManagerConfiguration()
        default: SecurityManagerConfiguration(ioCapability: .keyboardOnly, requiresAuthentication: true)
        }
    }

    @Test("our central pairs with Bumble's peripheral when a read needs encryption, and reads",
          arguments: ["justworks", "legacy", "passkey:123456"])
    func ourCentral(_ mode: String) async throws {
        let link = try await BumbleLink.start(peer: "advertise", name: "bumble-secure", extra: ["--pairing", mode])
        defer { link.stop() }
        let radio = try await BumbleLink.radio(port: link.portA, configuration: HCIRadioConfiguration(security: Self.ours(mode)),
                                               name: "central")
        await radio.setPairingDelegate(FixedPairingDelegate(passkey: Self.passkey))
        let central = HCICentralManager(radio: radio)
        let found = try await central.scan().first { $0.localName == "bumble-secure" }
        let id = try #require(found?.peripheral)
        await central.stopScan()
        try await central.connect(id, timeout: .seconds(10))
        let services = try await central.discoverServices([BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")], on: id)
        let service = try #require(services.first)
        let secret = try #require(try await central.discoverCharacteristics([Self.secret], for: service).first)
        // Bumble answers Insufficient Encryption; our central pairs by itself and reads again.
        #expect(try await central.read(secret) == Data("secret".utf8))
        let authenticated = mode.hasPrefix("passkey")
        // Passkey entry runs LE Secure Connections with a 128-bit key here: level 4.
        #expect(await central.securityLevel(of: id) == (authenticated ? .authenticatedSecureConnections : .encrypted))
        try await central.pair(id, minimum: authenticated ? .authenticated : .encrypted)  // already there: returns at once
        let bond = try #require(try radio.bonds.bonds().first)
        #expect(bond.secureConnections == (mode != "legacy"))
        #expect(bond.authenticated == authenticated)
        #expect(bond.peerResolvingKey?.count == 16, "Bumble distributed its identity")
        await radio.stop()
    }

    @Test("Bumble's central pairs with our peripheral and reads what requires encryption",
          arguments: ["justworks", "legacy", "passkey:123456"])
    func ourPeripheral(_ mode: String) async throws {
        let ourAddress = BluetoothAddress(string: "C0:00:00:00:00:0C")!
        let link = try await BumbleLink.start(peer: "central", peerAddress: "D0:00:00:00:00:04", extra: [
            "--target", ourAddress.description, "--pairing", mode])
        defer { link.stop() }
        let radio = try await BumbleLink.radio(port: link.portA, configuration: HCIRadioConfiguration(
            ownAddress: .randomStatic(ourAddress), deviceName: "bleu-secure", security: Self.ours(mode)), name: "peripheral")
        await radio.setPairingDelegate(FixedPairingDelegate(passkey: Self.passkey))
        let peripheral = HCIPeripheralManager(radio: radio)
        _ = try await peripheral.add(ServiceDefinition(uuid: BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E"), characteristics: [
            CharacteristicDefinition(uuid: Self.secret, properties: .read, permissions: [.readable, .readEncryptionRequired],
                                     value: Data("ours".utf8)),
        ]))
        try await peripheral.startAdvertising(AdvertisingData(flags: .leGeneralDiscoverable, localName: "bleu-secure"))

        let report = try #require(try await link.nextObject())
        #expect(report["error"] == nil, "Bumble failed: \(String(describing: report["error"]))")
        #expect(report["encrypted"] as? Bool == true)
        let characteristics = report["characteristics"] as? [String: [String: Any]] ?? [:]
        #expect(characteristics[Self.secret.uuidString128.replacingOccurrences(of: "-", with: "")]?["value"] as? String
                == Data("ours".utf8).map { String(format: "%02x", $0) }.joined(), "read once encrypted")
        let bond = try #require(try radio.bonds.bonds().first)
        #expect(bond.secureConnections == (mode != "legacy"))
        #expect(bond.authenticated == mode.hasPrefix("passkey"))
        await radio.stop()
    }
}
