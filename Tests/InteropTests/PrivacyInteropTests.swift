import BleuCore
import BumbleSupport
import Foundation
import Testing

@testable import BleuHCI

/// Privacy on virtual controllers: a bonded peer whose resolvable private address rotates is
/// one peer to our central (Bumble's peripheral rotating; our own peripheral rotating while it
/// advertises, on Bumble's controllers and on RootCanal's), found again by scanning under the
/// same identifier and encrypted from the bond.
@Suite("Interop: private addresses that rotate, resolved with the bond's IRK", .enabled(if: BumbleLink.python != nil, BumbleLink.skipReason),
       .timeLimit(.minutes(1)))
struct PrivacyInteropTests {
    static let service = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
    static let secret = BluetoothUUID("6E400005-B5A3-F393-E0A9-E50E24DCCA9E")

    /// Scans until an advertiser named `name` is heard; its identifier and the address it used.
    static func find(_ name: String, _ central: HCICentralManager, _ radio: HCIRadio) async throws -> (UUID, BluetoothAddress) {
        let found = try await central.scan().first { $0.localName == name }
        await central.stopScan()
        let id = try #require(found?.peripheral)
        let address = try #require(await radio.address(of: id)?.address)
        return (id, address)
    }

    /// Reads the secret characteristic (which requires encryption) on `peer`.
    static func readSecret(_ peer: UUID, _ central: HCICentralManager) async throws -> Data {
        let service = try #require(try await central.discoverServices([Self.service], on: peer).first)
        let characteristic = try #require(try await central.discoverCharacteristics([Self.secret], for: service).first)
        return try await central.read(characteristic)
    }

    @Test("Bumble's peripheral rotates its private address: our bonded central finds it under the same identifier and encrypts from the bond")
    func bumbleRotates() async throws {
        let link = try await BumbleLink.start(peer: "advertise", name: "bumble-private", extra: ["--pairing", "justworks", "--privacy"])
        defer { link.stop() }
        // Bumble holds its IRK as the octets go over the air (least significant first): 20 21 … 2F
        // there is the key 2F 2E … 20, as this package writes keys (most significant first).
        let irk = Array((UInt8(0x20)..<UInt8(0x30)).reversed())
        let radio = try await BumbleLink.radio(port: link.portA, name: "central")
        let central = HCICentralManager(radio: radio)
        let (peer, first) = try await Self.find("bumble-private", central, radio)
        #expect(first == link.peer && ResolvablePrivateAddress.resolves(first, with: irk), "\(first)")

        try await central.connect(peer, timeout: .seconds(10))
        #expect(try await Self.readSecret(peer, central) == Data("secret".utf8), "paired (Just Works) and read")
        let bond = try #require(try radio.bonds.bonds().first)
        #expect(bond.peer.address == BluetoothAddress(string: "D0:00:00:00:00:02")! && bond.peerResolvingKey == irk)
        await central.cancelConnection(peer)
        _ = try await Self.find("bumble-private", central, radio)  // advertising again: the rotation does not race its restart

        try link.send(["rotate": true])
        var rotated: BluetoothAddress?
        while rotated == nil, let object = try await link.nextObject() {
            rotated = (object["rotated"] as? String).flatMap { BluetoothAddress(string: $0) }
        }
        let second = try #require(rotated)
        #expect(second != first && ResolvablePrivateAddress.resolves(second, with: irk), "\(second)")

        let (again, heard) = try await Self.find("bumble-private", central, radio)
        #expect(again == peer, "the new address resolves to the bonded peer")
        #expect(heard == second)
        try await central.connect(peer, timeout: .seconds(10))
        #expect(try await Self.readSecret(peer, central) == Data("secret".utf8))
        #expect(await central.securityLevel(of: peer) == .encrypted)
        // Pairing again would have replaced the bond with a new key.
        #expect(try radio.bonds.bonds() == [bond], "encrypted from the bond")
        await radio.stop()
    }

    /// Two of our radios on Bumble's linked controllers or on RootCanal (which, as a controller
    /// must, refuses a new random address while advertising or scanning: Command Disallowed).
    static func radios(on controller: KeyCheckingRadios.Controller, peripheral: HCIRadioConfiguration, central: HCIRadioConfiguration)
        async throws -> (peripheral: HCIRadio, central: HCIRadio, stop: @Sendable () -> Void) {
        switch controller {
        case .bumble:
            let link = try await BumbleLink.start()
            return (try await BumbleLink.radio(port: link.portB, configuration: peripheral, name: "peripheral"),
                    try await BumbleLink.radio(port: link.portA, configuration: central, name: "central"), { link.stop() })
        case .rootCanal:
            let link = try await RootCanalLink.start()
            return (try await link.radio(configuration: peripheral, name: "peripheral"),
                    try await link.radio(configuration: central, name: "central"), { link.stop() })
        }
    }

    /// A private identity whose IRK is `key` repeated.
    static func identity(_ key: UInt8, _ address: String) -> PairingIdentity {
        PairingIdentity(resolvingKey: Array(repeating: key, count: 16),
                        address: PairingAddress(type: .randomDevice, address: BluetoothAddress(string: address)!))
    }

    @Test("our radios rotate their private addresses while advertising and scanning (extended and legacy commands): the controller carries the new ones, and the bonded peers resolve them",
          arguments: [KeyCheckingRadios.Controller.bumble, .rootCanal], [true, false])
    func oursRotates(on controller: KeyCheckingRadios.Controller, extended: Bool) async throws {
        let identity = Self.identity(0x4E, "C3:00:00:00:00:0E")
        let centralIdentity = Self.identity(0x4C, "C3:00:00:00:00:0C")
        func configuration(_ identity: PairingIdentity) -> HCIRadioConfiguration {
            HCIRadioConfiguration(usesExtendedCommands: extended ? .whenSupported : .never,
                                  security: SecurityManagerConfiguration(identity: identity), privateAddressInterval: .seconds(3600))
        }
        let (peripheralRadio, radio, stopLink) = try await Self.radios(on: controller, peripheral: configuration(identity),
                                                                       central: configuration(centralIdentity))
        defer { stopLink() }
        #expect(await peripheralRadio.usesExtendedCommands == extended)
        let peripheral = HCIPeripheralManager(radio: peripheralRadio)
        _ = try await peripheral.add(ServiceDefinition(uuid: Self.service, characteristics: [
            CharacteristicDefinition(uuid: Self.secret, properties: .read, permissions: [.readable, .readEncryptionRequired],
                                     value: Data("ours".utf8)),
        ]))
        try await peripheral.startAdvertising(AdvertisingData(flags: .leGeneralDiscoverable, localName: "bleu-private"))
        let central = HCICentralManager(radio: radio)

        let (peer, first) = try await Self.find("bleu-private", central, radio)
        #expect(first == (await peripheralRadio.address) && ResolvablePrivateAddress.resolves(first, with: identity.resolvingKey))
        try await central.connect(peer, timeout: .seconds(10))
        #expect(try await Self.readSecret(peer, central) == Data("ours".utf8))
        let bond = try #require(try radio.bonds.bonds().first)
        #expect(bond.peer == identity.address && bond.peerResolvingKey == identity.resolvingKey)
        let peripheralBond = try #require(try peripheralRadio.bonds.bonds().first)
        #expect(peripheralBond.peer == centralIdentity.address && peripheralBond.peerResolvingKey == centralIdentity.resolvingKey)
        await central.cancelConnection(peer)

        // The peripheral rotates while it advertises.
        await peripheralRadio.rotatePrivateAddress()
        let second = await peripheralRadio.address
        #expect(second != first && ResolvablePrivateAddress.resolves(second, with: identity.resolvingKey))
        #expect(await peripheral.isAdvertising, "advertising resumed")
        // The central rotates while it scans; the scan goes on and hears the peripheral's new address.
        let centralFirst = await radio.address
        let scan = try await central.scan()
        await radio.rotatePrivateAddress()
        let centralSecond = await radio.address
        #expect(centralSecond != centralFirst && ResolvablePrivateAddress.resolves(centralSecond, with: centralIdentity.resolvingKey))
        var heardAgain: UUID?
        for try await advertisement in scan where advertisement.localName == "bleu-private" {
            if await radio.address(of: advertisement.peripheral)?.address == second {
                heardAgain = advertisement.peripheral
                break
            }
        }
        await central.stopScan()
        #expect(heardAgain == peer, "the new address resolves to the bonded peer")

        // Both bonds hold across the new addresses: the peripheral finds the central's by its IRK.
        try await central.connect(peer, timeout: .seconds(10))
        #expect(try await Self.readSecret(peer, central) == Data("ours".utf8))
        #expect(try radio.bonds.bonds() == [bond], "encrypted from the bond (pairing again would have replaced its key)")
        #expect(try peripheralRadio.bonds.bonds() == [peripheralBond])
        await radio.stop()
        await peripheralRadio.stop()
    }
}
