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

    /// Who holds whose out-of-band data in an OOB pairing with Bumble.
    enum OutOfBandCase: String, CaseIterable, Sendable {
        case both, bumbleHoldsOurs, weHoldBumbles, weHoldTampered, legacy
    }

    @Test("our central pairs Out of Band with Bumble's peripheral: Secure Connections data either way or both, a tampered value refused, and a legacy TK",
          arguments: OutOfBandCase.allCases)
    func outOfBand(_ oobCase: OutOfBandCase) async throws {
        let link = try await BumbleLink.start(peer: "advertise", name: "bumble-oob", extra: ["--pairing", "justworks"])
        defer { link.stop() }
        let legacy = oobCase == .legacy
        // No display, no keyboard, MITM demanded: only Out of Band can give authenticated keys.
        let radio = try await BumbleLink.radio(port: link.portA, configuration: HCIRadioConfiguration(security: SecurityManagerConfiguration(
            requiresAuthentication: true, supportsSecureConnections: !legacy)), name: "central")
        let central = HCICentralManager(radio: radio)
        // Bumble holds OOB values least significant octet first; this package most significant first.
        let ours = await radio.makeOutOfBandData()
        let temporaryKey = Array(UInt8(0xA0)..<UInt8(0xB0))
        var oob: [String: any Sendable] = legacy ? ["tk": hexString(temporaryKey.reversed())] : ["ours": true]
        if oobCase == .both || oobCase == .bumbleHoldsOurs {
            oob["peer"] = ["c": hexString(ours.confirm.reversed()), "r": hexString(ours.random.reversed())]
        }
        try link.send(["pairing": ["io": 3, "sc": !legacy, "mitm": true, "bonding": true, "oob": oob] as [String: any Sendable]])
        var bumbles: OutOfBandData?
        if !legacy {
            while bumbles == nil, let object = try await link.nextObject() {
                guard let shared = object["oob"] as? [String: String] else { continue }
                bumbles = OutOfBandData(confirm: decodeHex(shared["c"] ?? "")?.reversed() ?? [],
                                        random: decodeHex(shared["r"] ?? "")?.reversed() ?? [])
            }
        }

        #expect(legacy || bumbles != nil, "Bumble printed its OOB data")
        let found = try await central.scan().first { $0.localName == "bumble-oob" }
        await central.stopScan()
        let id = try #require(found?.peripheral)
        switch oobCase {
        case .both, .weHoldBumbles: await radio.setOutOfBandData(bumbles, for: id)
        case .weHoldTampered:
            await radio.setOutOfBandData(bumbles.flatMap { OutOfBandData(confirm: $0.confirm, random: $0.random.reversed()) }, for: id)
        case .legacy: await radio.setOutOfBandTemporaryKey(temporaryKey, for: id)
        case .bumbleHoldsOurs: break
        }
        try await central.connect(id, timeout: .seconds(10))
        if oobCase == .weHoldTampered {
            await #expect { try await central.pair(id, minimum: .authenticated) } throws: {
                ($0 as? BleuError) == .pairingFailed(.smp(.confirmValueFailed))
            }
            await radio.stop()
            return
        }
        try await central.pair(id, minimum: .authenticated)
        #expect(await central.securityLevel(of: id) == (legacy ? .authenticated : .authenticatedSecureConnections))
        let bond = try #require(try radio.bonds.bonds().first)
        #expect(bond.authenticated && bond.secureConnections == !legacy)
        let services = try await central.discoverServices([BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")], on: id)
        let service = try #require(services.first)
        let secret = try #require(try await central.discoverCharacteristics([Self.secret], for: service).first)
        #expect(try await central.read(secret) == Data("secret".utf8))
        await radio.stop()
    }

    @Test("Bumble's central pairs Out of Band with our peripheral, the data crossing both ways")
    func outOfBandOurPeripheral() async throws {
        let ourAddress = BluetoothAddress(string: "C0:00:00:00:00:0B")!
        let bumbleAddress = BluetoothAddress(string: "D0:00:00:00:00:0B")!
        let link = try await BumbleLink.start(peer: "central-idle", peerAddress: bumbleAddress.description)
        defer { link.stop() }
        let radio = try await BumbleLink.radio(port: link.portA, configuration: HCIRadioConfiguration(
            ownAddress: .randomStatic(ourAddress), security: SecurityManagerConfiguration(requiresAuthentication: true)), name: "peripheral")
        let ours = await radio.makeOutOfBandData()
        try link.send(["pairing": ["io": 3, "sc": true, "mitm": true, "bonding": true, "oob": [
            "ours": true, "peer": ["c": hexString(ours.confirm.reversed()), "r": hexString(ours.random.reversed())],
        ] as [String: any Sendable]] as [String: any Sendable]])
        var bumbles: OutOfBandData?
        while bumbles == nil, let object = try await link.nextObject() {
            guard let shared = object["oob"] as? [String: String] else { continue }
            bumbles = OutOfBandData(confirm: decodeHex(shared["c"] ?? "")?.reversed() ?? [], random: decodeHex(shared["r"] ?? "")?.reversed() ?? [])
        }
        guard let bumbles else {
            Issue.record("Bumble printed no OOB data")
            return
        }
        let central = await radio.identify(bumbleAddress, type: .randomDevice)
        await radio.setOutOfBandData(bumbles, for: central)
        try await HCIPeripheralManager(radio: radio).startAdvertising(AdvertisingData(localName: "bleu-oob"))
        try link.send(["pair_with": ourAddress.description])
        var report: [String: Any] = [:]
        while report["paired"] == nil, let object = try await link.nextObject() { report = object }
        #expect(report["paired"] as? Bool == true, "\(report)")
        await settled { await radio.securityLevel(of: central) == .authenticatedSecureConnections }
        #expect(await radio.securityLevel(of: central) == .authenticatedSecureConnections)
        #expect(try radio.bonds.bonds().first?.authenticated == true)
        try link.send(["release": true])
        await radio.stop()
    }
}
