import BleuCore
import Foundation
import Testing
@testable import BleuEmulator

/// Security: pairing gates protected attributes; bonds are remembered per bus.
@Suite("Pairing and bonding")
struct SecurityTests {
    static func configuration(_ method: PairingConfiguration.Method, bonding: Bool = true) -> EmulatorConfiguration {
        var configuration = EmulatorConfiguration.instant
        configuration.pairing = PairingConfiguration(method: method, bonding: bonding)
        return configuration
    }

    @Test("Just Works pairs on demand: encrypted attributes open; for authenticated ones pairing fails on its requirements, as on BleuHCI")
    func justWorks() async throws {
        let fixture = try await Fixture.make(configuration: Self.configuration(.justWorks))
        fixture.store.set(Data("secret".utf8), for: TestUUID.encrypted)
        #expect(try await fixture.central.read(fixture[TestUUID.encrypted]) == Data("secret".utf8))
        let smp = fixture.bus.trace.filter { $0.kind == .smp }.map(\.detail)
        #expect(smp.first == "Pairing Request" && smp.contains("Pairing DHKey Check"))
        #expect(fixture.bus.trace.contains { $0.kind == .security && $0.detail.contains("encrypted") })
        #expect(await throwsError(.pairingFailed(.smp(.authenticationRequirements))) {
            try await fixture.central.read(fixture[TestUUID.authenticated])
        })
        #expect(fixture.bus.bondCount == 1)
        #expect(await fixture.central.securityLevel(of: fixture.peripheralID) == .encrypted, "the Just Works keys still hold")
    }

    @Test("passkey entry: the test's handler enters the displayed passkey; the keys are authenticated")
    func passkey() async throws {
        let asked = Locked(0)
        let handler: PasskeyHandler = { request in
            asked.withLock { $0 += 1 }
            #expect(request.displayedPasskey < 1_000_000)
            return request.displayedPasskey
        }
        let fixture = try await Fixture.make(configuration: Self.configuration(.passkeyEntry),
                                             centralOptions: .init(passkeyHandler: handler))
        fixture.store.set(Data("mitm-safe".utf8), for: TestUUID.authenticated)
        #expect(try await fixture.central.read(fixture[TestUUID.authenticated]) == Data("mitm-safe".utf8))
        #expect(try await fixture.central.read(fixture[TestUUID.encrypted]) == Data())
        #expect(asked.withLock { $0 } == 1)
        #expect(fixture.bus.trace.filter { $0.kind == .smp && $0.detail == "Pairing Confirm" }.count == 40, "20 rounds, both ways")

        // The bond: a new connection encrypts with the stored keys, without asking again.
        await fixture.central.cancelConnection(fixture.peripheralID)
        try await fixture.central.connect(fixture.peripheralID)
        fixture.bus.clearTrace()
        #expect(try await fixture.central.read(fixture[TestUUID.authenticated]) == Data("mitm-safe".utf8))
        #expect(asked.withLock { $0 } == 1)
        #expect(!fixture.bus.trace.contains { $0.kind == .smp && $0.detail == "Pairing Request" })
        #expect(fixture.bus.trace.contains { $0.kind == .linkControl && $0.detail.contains("encryptionRequest") })
    }

    @Test("a wrong passkey, a cancelled entry, or no handler fail pairing; the request fails with the reason")
    func failedPasskey() async throws {
        let wrong = try await Fixture.make(configuration: Self.configuration(.passkeyEntry),
                                           centralOptions: .init(passkeyHandler: { ($0.displayedPasskey + 1) % 1_000_000 }))
        let wrongError = await thrownError { try await wrong.central.read(wrong[TestUUID.authenticated]) }
        #expect(wrongError as? BleuError == .pairingFailed(.smp(.confirmValueFailed)))
        #expect(wrong.bus.bondCount == 0)

        let cancelled = try await Fixture.make(configuration: Self.configuration(.passkeyEntry),
                                               centralOptions: .init(passkeyHandler: { _ in nil }))
        let cancelledError = await thrownError { try await cancelled.central.read(cancelled[TestUUID.encrypted]) }
        #expect(cancelledError as? BleuError == .pairingFailed(.smp(.passkeyEntryFailed)))

        let none = try await Fixture.make(configuration: Self.configuration(.passkeyEntry))
        let noneError = await thrownError { try await none.central.read(none[TestUUID.encrypted]) }
        #expect(noneError as? BleuError == .pairingFailed(.smp(.passkeyEntryFailed)))

        let rejected = try await Fixture.make(configuration: Self.configuration(.rejected))
        let rejectedError = await thrownError { try await rejected.central.read(rejected[TestUUID.encrypted]) }
        #expect(rejectedError as? BleuError == .pairingFailed(.smp(.pairingNotSupported)))
        #expect(try await rejected.central.read(rejected[TestUUID.value]) == Data(), "the link still works for open attributes")
    }

    @Test("bonds belong to a bus and to the two devices; without bonding every connection pairs again")
    func bonds() async throws {
        let bus = EmulatorBus(configuration: Self.configuration(.justWorks))
        let fixture = try await Fixture.make(on: bus, centralOptions: .init(deviceIdentifier: "phone"))
        _ = try await fixture.central.read(fixture[TestUUID.encrypted])
        #expect(bus.bondCount == 1)
        #expect(EmulatorBus(configuration: Self.configuration(.justWorks)).bondCount == 0)
        // The same phone, a new manager: it knows the bonded peripheral without scanning.
        let again = EmulatedCentralManager(bus: bus, options: .init(deviceIdentifier: "phone"))
        #expect(await again.retrievePeripherals(withIdentifiers: [fixture.peripheralID]).map(\.id) == [fixture.peripheralID])
        bus.removeAllBonds()
        #expect(bus.bondCount == 0)

        let forgetful = try await Fixture.make(configuration: Self.configuration(.justWorks, bonding: false))
        _ = try await forgetful.central.read(forgetful[TestUUID.encrypted])
        await forgetful.central.cancelConnection(forgetful.peripheralID)
        try await forgetful.central.connect(forgetful.peripheralID)
        forgetful.bus.clearTrace()
        _ = try await forgetful.central.read(forgetful[TestUUID.encrypted])
        #expect(forgetful.bus.trace.contains { $0.kind == .smp && $0.detail == "Pairing Request" })
        #expect(forgetful.bus.bondCount == 0)
    }

    @Test("pair now: the central encrypts on request and both sides report the level; a level the method cannot give fails as pairing")
    func pairNow() async throws {
        let fixture = try await Fixture.make(configuration: Self.configuration(.justWorks))
        #expect(await fixture.central.securityLevel(of: fixture.peripheralID) == .unencrypted)
        #expect(await fixture.central.securityLevel(of: UUID()) == nil, "no link, no level")
        try await fixture.central.pair(fixture.peripheralID)
        #expect(await fixture.central.securityLevel(of: fixture.peripheralID) == .encrypted)
        #expect(fixture.bus.bondCount == 1)
        fixture.bus.clearTrace()
        try await fixture.central.pair(fixture.peripheralID)
        #expect(!fixture.bus.trace.contains { $0.kind == .smp }, "already encrypted: nothing on air")
        let error = await thrownError { try await fixture.central.pair(fixture.peripheralID, minimum: .authenticated) }
        #expect(error as? BleuError == .pairingFailed(.smp(.authenticationRequirements)))
        #expect(try await fixture.central.read(fixture[TestUUID.encrypted]) == Data(), "the link stays encrypted")
    }

    @Test("the peripheral asks for security: the central pairs (passkey entry here) and the peripheral sees the level")
    func peripheralAsks() async throws {
        let bus = EmulatorBus(configuration: Self.configuration(.passkeyEntry))
        let peripheral = EmulatedPeripheralManager(bus: bus)
        let central = EmulatedCentralManager(bus: bus, options: .init(passkeyHandler: { $0.displayedPasskey }))
        let events = peripheral.events()
        try await peripheral.startAdvertising(AdvertisingData(localName: "asks"))
        let found = try await central.scan().first { $0.localName == "asks" }
        let peripheralID = try #require(found?.peripheral)
        await central.stopScan()
        try await central.connect(peripheralID)
        var centralID: UUID?
        for await event in events {
            if case .centralConnected(let id) = event {
                centralID = id
                break
            }
        }
        let id = try #require(centralID)
        #expect(await peripheral.securityLevel(of: id) == .unencrypted)
        try await peripheral.pair(id, minimum: .authenticated)
        // The emulator's passkey entry is LE Secure Connections with a 128-bit key: level 4.
        #expect(await peripheral.securityLevel(of: id) == .authenticatedSecureConnections)
        #expect(await central.securityLevel(of: peripheralID) == .authenticatedSecureConnections)
        let stranger = UUID()
        let error = await thrownError { try await peripheral.pair(stranger) }
        #expect(error as? BleuError == .notConnected(stranger))
    }

    @Test("level 4: Secure Connections passkey keys open a level 4 value; legacy passkey keys (level 3) do not, and pair(minimum: level 4) fails on its requirements")
    func secureConnectionsOnly() async throws {
        let strict = BluetoothUUID(string: "6E4000F4-B5A3-F393-E0A9-E50E24DCCA9E")!
        let service = ServiceDefinition(uuid: TestUUID.service, characteristics: [
            CharacteristicDefinition(uuid: strict, properties: [.read], permissions: [.readable, .readSecureConnectionsRequired],
                                     value: Data("level 4".utf8)),
        ])
        // The peripheral manager is returned too: the link lives as long as it does.
        func connected(_ method: PairingConfiguration.Method)
            async throws -> (EmulatedCentralManager, UUID, RemoteCharacteristic, EmulatedPeripheralManager) {
            let bus = EmulatorBus(configuration: Self.configuration(method, bonding: false))
            let peripheral = EmulatedPeripheralManager(bus: bus)
            _ = try await peripheral.add(service)
            try await peripheral.startAdvertising(AdvertisingData(localName: "strict"))
            let central = EmulatedCentralManager(bus: bus, options: .init(passkeyHandler: { $0.displayedPasskey }))
            let id = try await central.discover(name: "strict")
            try await central.connect(id)
            let remote = try #require(try await central.discoverServices([TestUUID.service], on: id).first)
            let characteristic = try #require(try await central.discoverCharacteristics([strict], for: remote).first)
            return (central, id, characteristic, peripheral)
        }

        let (secure, secureID, secureValue, securePeripheral) = try await connected(.passkeyEntry)
        #expect(try await secure.read(secureValue) == Data("level 4".utf8))
        #expect(await secure.securityLevel(of: secureID) == .authenticatedSecureConnections)

        // Legacy passkey entry: the central pairs once (to level 3) and reads again; the server
        // still answers Insufficient Authentication, which the one retry does not repeat.
        let (legacy, legacyID, legacyValue, legacyPeripheral) = try await connected(.legacyPasskeyEntry)
        #expect(await throwsError(.att(.insufficientAuthentication)) { try await legacy.read(legacyValue) })
        #expect(await legacy.securityLevel(of: legacyID) == .authenticated)
        let error = await thrownError { try await legacy.pair(legacyID, minimum: .authenticatedSecureConnections) }
        #expect(error as? BleuError == .pairingFailed(.smp(.authenticationRequirements)))
        #expect(await legacy.securityLevel(of: legacyID) == .authenticated, "the level 3 keys still hold")
        withExtendedLifetime((securePeripheral, legacyPeripheral)) {}
    }
}
