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

    @Test("Just Works pairs on demand: encrypted attributes open, authenticated ones stay closed")
    func justWorks() async throws {
        let fixture = try await Fixture.make(configuration: Self.configuration(.justWorks))
        fixture.store.set(Data("secret".utf8), for: TestUUID.encrypted)
        #expect(try await fixture.central.read(fixture[TestUUID.encrypted]) == Data("secret".utf8))
        let smp = fixture.bus.trace.filter { $0.kind == .smp }.map(\.detail)
        #expect(smp.first == "Pairing Request" && smp.contains("Pairing DHKey Check"))
        #expect(fixture.bus.trace.contains { $0.kind == .security && $0.detail.contains("encrypted") })
        #expect(await throwsError(.att(.insufficientAuthentication)) { try await fixture.central.read(fixture[TestUUID.authenticated]) })
        #expect(fixture.bus.bondCount == 1)
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
        #expect(await peripheral.securityLevel(of: id) == .authenticated)
        #expect(await central.securityLevel(of: peripheralID) == .authenticated)
        let stranger = UUID()
        let error = await thrownError { try await peripheral.pair(stranger) }
        #expect(error as? BleuError == .notConnected(stranger))
    }
}
