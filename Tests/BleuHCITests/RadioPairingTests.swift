import BleuATT
import BleuCore
import Foundation
import Testing

@testable import BleuHCI

/// Two of our radios on ``LinkedControllers``: a central on side A, a peripheral on side B, each
/// with its own bond store.
struct PairedRadios {
    let air: LinkedControllers
    let centralRadio: HCIRadio
    let peripheralRadio: HCIRadio
    let central: HCICentralManager
    let peripheral: HCIPeripheralManager
    let centralBonds: InMemoryBondStore
    let peripheralBonds: InMemoryBondStore

    static func start(central: SecurityManagerConfiguration = .init(), peripheral: SecurityManagerConfiguration = .init(),
                      pairsOnInsufficientSecurity: Bool = true, centralBondStore: (any BondStore)? = nil,
                      clock: any Clock<Duration> = ContinuousClock(),
                      peripheralPrivacy: Duration? = nil) async throws -> PairedRadios {
        let air = LinkedControllers()
        await air.run()
        let centralBonds = InMemoryBondStore()
        let peripheralBonds = InMemoryBondStore()
        let centralRadio = HCIRadio(host: HCIHost(transport: air.hostA, clock: clock, configuration: LinkedControllers.hostConfiguration),
                                    configuration: HCIRadioConfiguration(security: central,
                                                                         pairsOnInsufficientSecurity: pairsOnInsufficientSecurity),
                                    clock: clock, bonds: centralBondStore ?? centralBonds)
        let peripheralRadio = HCIRadio(host: HCIHost(transport: air.hostB, clock: clock, configuration: LinkedControllers.hostConfiguration),
                                       configuration: HCIRadioConfiguration(security: peripheral, privateAddressInterval: peripheralPrivacy),
                                       clock: clock,
                                       bonds: peripheralBonds)
        try await centralRadio.start()
        try await peripheralRadio.start()
        return PairedRadios(air: air, centralRadio: centralRadio, peripheralRadio: peripheralRadio,
                            central: HCICentralManager(radio: centralRadio), peripheral: HCIPeripheralManager(radio: peripheralRadio),
                            centralBonds: centralBonds, peripheralBonds: peripheralBonds)
    }

    /// Connects the central to the peripheral; returns the peripheral as the central knows it
    /// and the central as the peripheral knows it.
    func connect() async throws -> (peripheral: UUID, central: UUID) {
        let peripheralAddress = await air.address(.b)
        let id = await centralRadio.identify(peripheralAddress, type: .randomDevice)
        try await central.connect(id, timeout: LinkedControllers.patience)
        let centralID = await peripheralRadio.identify(await air.address(.a), type: .randomDevice)
        await eventually { await peripheralRadio.isConnected(centralID) }
        return (id, centralID)
    }

    func disconnect(_ peripheral: UUID) async {
        await central.cancelConnection(peripheral)
    }

    /// The SMP codes that crossed the air so far.
    func smpCodes() async -> [UInt8] { await air.smpLog.map(\.1) }

    func stop() async {
        await centralRadio.stop()
        await peripheralRadio.stop()
    }
}

/// Hands the passkey one side displays to the other side's user.
actor PasskeyBoard: PairingDelegate {
    private var shown: UInt32?
    private var waiting: [CheckedContinuation<UInt32, Never>] = []
    /// Added to what is shown before it is typed (a user who mistypes).
    let typo: UInt32

    init(typo: UInt32 = 0) { self.typo = typo }

    func display(passkey: UInt32, to peer: UUID) async {
        shown = passkey
        for continuation in waiting { continuation.resume(returning: passkey) }
        waiting = []
    }

    func enterPasskey(for peer: UUID) async -> UInt32? {
        let passkey = if let shown { shown } else { await withCheckedContinuation { waiting.append($0) } }
        return (passkey + typo) % 1_000_000
    }
}

/// A bond store whose saves fail.
struct UnwritableBondStore: BondStore {
    func bond(with peer: PairingAddress) -> Bond? { nil }
    func bonds() -> [Bond] { [] }
    func save(_ bond: Bond) throws(BondStoreError) { throw .unwritable(path: "nowhere", reason: "refused") }
    func forget(_ peer: PairingAddress) -> Bool { false }
}

/// A delegate that refuses every pairing.
struct RefusingDelegate: PairingDelegate {
    func shouldPair(_ request: PairingProposal) async -> Bool { false }
}

func pairingFailure(_ error: any Error) -> BleuError.PairingFailure? {
    if case .pairingFailed(let failure)? = error as? BleuError { return failure }
    return nil
}

@Suite("HCIRadio pairs and encrypts (two radios on linked controllers)")
struct RadioPairingTests {
    @Test("Without MITM asked for, Just Works whatever the IO capabilities (Vol 3 Part H §2.3.5.1)")
    func justWorksWithoutMITM() async throws {
        let radios = try await PairedRadios.start(central: .init(ioCapability: .keyboardOnly),
                                                  peripheral: .init(ioCapability: .displayOnly))
        await radios.centralRadio.setPairingDelegate(PasskeyBoard(typo: 1))
        let (peripheral, _) = try await radios.connect()
        try await radios.central.pair(peripheral)
        #expect(await radios.central.securityLevel(of: peripheral) == .encrypted)
        let codes = await radios.smpCodes()
        #expect(codes.count(where: { $0 == 0x03 }) == 1, "one confirm: Just Works, not 20 rounds of passkey entry")
        await radios.stop()
    }

    @Test("Just Works with Secure Connections: both links encrypted, both sides keep the same key")
    func justWorks() async throws {
        let radios = try await PairedRadios.start()
        let (peripheral, central) = try await radios.connect()
        #expect(await radios.central.securityLevel(of: peripheral) == .unencrypted)
        try await radios.central.pair(peripheral)
        #expect(await radios.central.securityLevel(of: peripheral) == .encrypted)
        await eventually { await radios.peripheral.securityLevel(of: central) == .encrypted }
        #expect(await radios.peripheral.securityLevel(of: central) == .encrypted)
        // Request, response, two public keys, confirm, two randoms, two DHKey checks, then the
        // identity and signing keys each side distributes.
        #expect(await Array(radios.smpCodes().prefix(9)) == [0x01, 0x02, 0x0C, 0x0C, 0x03, 0x04, 0x04, 0x0D, 0x0D])
        await eventually { radios.peripheralBonds.bonds().count == 1 }
        let centralBond = try #require(radios.centralBonds.bonds().first)
        let peripheralBond = try #require(radios.peripheralBonds.bonds().first)
        #expect(centralBond.longTermKey == peripheralBond.longTermKey)
        #expect(centralBond.secureConnections && !centralBond.authenticated && centralBond.keySize == 16)
        #expect(centralBond.peer.address == (await radios.air.address(.b)))
        #expect(peripheralBond.peer.address == (await radios.air.address(.a)))
        await radios.stop()
    }

    @Test("Passkey entry: the peripheral displays, the central's user types it; the keys are authenticated")
    func passkeyEntry() async throws {
        let radios = try await PairedRadios.start(central: .init(ioCapability: .keyboardOnly),
                                                  peripheral: .init(ioCapability: .displayOnly))
        let board = PasskeyBoard()
        await radios.centralRadio.setPairingDelegate(board)
        await radios.peripheralRadio.setPairingDelegate(board)
        let (peripheral, _) = try await radios.connect()
        try await radios.central.pair(peripheral, minimum: .authenticated)
        #expect(await radios.central.securityLevel(of: peripheral) == .authenticatedSecureConnections)
        // 20 rounds of confirm, confirm, random, random between the keys and the checks.
        #expect(await radios.smpCodes().count(where: { $0 == 0x03 }) == 40)
        #expect(radios.centralBonds.bonds().first?.authenticated == true)
        await radios.stop()
    }

    @Test("A mistyped passkey fails with Confirm Value Failed, and the peer is then held back (Repeated Attempts)")
    func wrongPasskey() async throws {
        let radios = try await PairedRadios.start(central: .init(ioCapability: .keyboardOnly),
                                                  peripheral: .init(ioCapability: .displayOnly))
        let board = PasskeyBoard(typo: 1)
        await radios.centralRadio.setPairingDelegate(board)
        await radios.peripheralRadio.setPairingDelegate(board)
        let (peripheral, _) = try await radios.connect()
        await #expect { try await radios.central.pair(peripheral, minimum: .authenticated) } throws: {
            pairingFailure($0) == .smp(.confirmValueFailed)
        }
        #expect(await radios.central.securityLevel(of: peripheral) == .unencrypted)
        #expect(radios.centralBonds.bonds().isEmpty && radios.peripheralBonds.bonds().isEmpty)
        await #expect { try await radios.central.pair(peripheral, minimum: .authenticated) } throws: {
            pairingFailure($0) == .smp(.repeatedAttempts)
        }
        await radios.stop()
    }

    @Test("Numeric comparison: both users confirm the number; one who does not fails it")
    func numericComparison() async throws {
        let radios = try await PairedRadios.start(central: .init(ioCapability: .displayYesNo),
                                                  peripheral: .init(ioCapability: .displayYesNo))
        await radios.centralRadio.setPairingDelegate(FixedPairingDelegate(confirmsNumbers: true))
        await radios.peripheralRadio.setPairingDelegate(FixedPairingDelegate(confirmsNumbers: false))
        let (peripheral, _) = try await radios.connect()
        await #expect { try await radios.central.pair(peripheral, minimum: .authenticated) } throws: {
            pairingFailure($0) == .smp(.numericComparisonFailed)
        }
        await radios.disconnect(peripheral)

        let agreeing = try await PairedRadios.start(central: .init(ioCapability: .displayYesNo),
                                                    peripheral: .init(ioCapability: .displayYesNo))
        await agreeing.centralRadio.setPairingDelegate(FixedPairingDelegate(confirmsNumbers: true))
        await agreeing.peripheralRadio.setPairingDelegate(FixedPairingDelegate(confirmsNumbers: true))
        let (other, _) = try await agreeing.connect()
        try await agreeing.central.pair(other, minimum: .authenticated)
        #expect(await agreeing.central.securityLevel(of: other) == .authenticatedSecureConnections)
        await radios.stop()
        await agreeing.stop()
    }

    @Test("Legacy Just Works: the peripheral's distributed LTK (EDIV and Rand) encrypts the next connection")
    func legacyBondReencrypts() async throws {
        let legacy = SecurityManagerConfiguration(supportsSecureConnections: false)
        let radios = try await PairedRadios.start(central: legacy, peripheral: legacy)
        let (peripheral, _) = try await radios.connect()
        try await radios.central.pair(peripheral)
        let bond = try #require(radios.centralBonds.bonds().first)
        #expect(!bond.secureConnections && bond.longTermKey.ediv != 0 || bond.longTermKey.rand != 0)
        await radios.disconnect(peripheral)
        let pairingPDUs = await radios.smpCodes().count
        let (again, _) = try await radios.connect()
        try await radios.central.pair(again)
        #expect(await radios.central.securityLevel(of: again) == .encrypted)
        #expect(await radios.smpCodes().count == pairingPDUs, "encrypted from the bond, without pairing again")
        await radios.stop()
    }

    @Test("Secure Connections: a reconnection encrypts with the bond; a peripheral that forgot it answers PIN or Key Missing")
    func secureConnectionsBond() async throws {
        let radios = try await PairedRadios.start()
        let (peripheral, central) = try await radios.connect()
        try await radios.central.pair(peripheral)
        await radios.disconnect(peripheral)
        let pairingPDUs = await radios.smpCodes().count

        let (again, _) = try await radios.connect()
        try await radios.central.pair(again)
        #expect(await radios.smpCodes().count == pairingPDUs, "encrypted from the bond, without pairing again")
        await eventually { await radios.peripheral.securityLevel(of: central) == .encrypted }
        #expect(await radios.peripheral.securityLevel(of: central) == .encrypted)
        await radios.disconnect(again)

        let forgotten = try #require(radios.peripheralBonds.bonds().first)
        #expect(radios.peripheralBonds.forget(forgotten.peer))
        let (third, _) = try await radios.connect()
        await #expect { try await radios.central.pair(third) } throws: { pairingFailure($0) == .encryption(status: 0x06) }
        #expect(await radios.central.securityLevel(of: third) == .unencrypted)
        await radios.stop()
    }

    @Test("A bond store that cannot write: the link is encrypted, and pair() throws the store's error rather than succeed")
    func unwritableBondStore() async throws {
        let radios = try await PairedRadios.start(centralBondStore: UnwritableBondStore())
        let (peripheral, _) = try await radios.connect()
        await #expect { try await radios.central.pair(peripheral) } throws: { error in
            (error as? BondStoreError) == .unwritable(path: "nowhere", reason: "refused")
        }
        #expect(await radios.central.securityLevel(of: peripheral) == .encrypted)
        await radios.stop()
    }

    @Test("Secure Connections Only refuses a legacy-only central (Authentication Requirements)")
    func secureConnectionsOnly() async throws {
        let radios = try await PairedRadios.start(central: .init(supportsSecureConnections: false),
                                                  peripheral: .init(secureConnectionsOnly: true))
        let (peripheral, _) = try await radios.connect()
        await #expect { try await radios.central.pair(peripheral) } throws: { pairingFailure($0) == .smp(.authenticationRequirements) }
        await radios.stop()
    }

    @Test("A pairing that cannot be authenticated does not reach an authenticated minimum")
    func authenticatedMinimumWithJustWorks() async throws {
        let radios = try await PairedRadios.start()
        let (peripheral, _) = try await radios.connect()
        await #expect { try await radios.central.pair(peripheral, minimum: .authenticated) } throws: {
            pairingFailure($0) == .smp(.authenticationRequirements)
        }
        #expect(await radios.central.securityLevel(of: peripheral) == .unencrypted)
        await radios.stop()
    }

    @Test("The peripheral asks (Security Request); the central pairs and the peripheral's call returns")
    func securityRequest() async throws {
        let radios = try await PairedRadios.start()
        let (peripheral, central) = try await radios.connect()
        try await radios.peripheral.pair(central)
        #expect(await radios.peripheral.securityLevel(of: central) == .encrypted)
        #expect(await radios.smpCodes().first == 0x0B)
        await eventually { await radios.central.securityLevel(of: peripheral) == .encrypted }
        #expect(await radios.central.securityLevel(of: peripheral) == .encrypted)
        await radios.stop()
    }

    @Test("An application that refuses: the central's pairing fails with Pairing Not Supported")
    func refused() async throws {
        let radios = try await PairedRadios.start()
        await radios.peripheralRadio.setPairingDelegate(RefusingDelegate())
        let (peripheral, _) = try await radios.connect()
        await #expect { try await radios.central.pair(peripheral) } throws: { pairingFailure($0) == .smp(.pairingNotSupported) }
        await radios.stop()
    }

    @Test("A peer that stops answering: the pairing fails after the SMP timeout, and the link takes no more pairing")
    func smpTimeout() async throws {
        let clock = ManualClock()
        let radios = try await PairedRadios.start(clock: clock)
        let (peripheral, _) = try await radios.connect()
        await radios.air.silenceSMP(from: .b)
        let pairing = Task { try await radios.central.pair(peripheral) }
        await eventually { await radios.smpCodes().contains(0x01) }
        await eventually { clock.sleeperCount >= 1 }
        clock.advance(by: .seconds(29))
        await Task.yield()
        clock.advance(by: .seconds(1))
        await #expect { try await pairing.value } throws: { pairingFailure($0) == .timeout }
        await #expect { try await radios.central.pair(peripheral) } throws: { pairingFailure($0) == .timeout }
        await radios.stop()
    }

    /// Adds a service with a characteristic readable with `permissions`, connects, and returns
    /// the peripheral and the characteristic as the central discovered it.
    static func serveSecret(_ radios: PairedRadios, permissions: AttributePermissions) async throws
        -> (UUID, RemoteCharacteristic) {
        let secret = BluetoothUUID("8E0C0001-0000-4000-8000-00805F9B34FB")
        let service = BluetoothUUID("8E0C0000-0000-4000-8000-00805F9B34FB")
        _ = try await radios.peripheral.add(ServiceDefinition(uuid: service, characteristics: [
            CharacteristicDefinition(uuid: secret, properties: [.read], permissions: permissions, value: Data([42])),
        ]))
        let (peripheral, _) = try await radios.connect()
        let remoteService = try #require(try await radios.central.discoverServices([service], on: peripheral).first)
        let characteristic = try #require(try await radios.central.discoverCharacteristics([secret], for: remoteService).first)
        return (peripheral, characteristic)
    }

    @Test("Without automatic pairing, an attribute that requires encryption is refused on a plain link and read once paired")
    func encryptedAttribute() async throws {
        let radios = try await PairedRadios.start(pairsOnInsufficientSecurity: false)
        let (peripheral, characteristic) = try await Self.serveSecret(radios, permissions: [.readable, .readEncryptionRequired])
        await #expect { try await radios.central.read(characteristic) } throws: { error in
            if case .att(let code)? = error as? BleuError { return code == .insufficientEncryption }
            return false
        }
        try await radios.central.pair(peripheral)
        #expect(try await radios.central.read(characteristic) == Data([42]))
        await radios.stop()
    }

    @Test("Insufficient Encryption: the central pairs by itself and reads again, as CoreBluetooth does")
    func pairsOnInsufficientEncryption() async throws {
        let radios = try await PairedRadios.start()
        let (peripheral, characteristic) = try await Self.serveSecret(radios, permissions: [.readable, .readEncryptionRequired])
        #expect(try await radios.central.read(characteristic) == Data([42]))
        #expect(await radios.central.securityLevel(of: peripheral) == .encrypted)
        #expect(await radios.smpCodes().first == 0x01, "the central paired")
        await radios.stop()
    }

    @Test("Insufficient Authentication with passkey-capable devices pairs with MITM; with Just Works only it fails as pairing")
    func pairsOnInsufficientAuthentication() async throws {
        let capable = try await PairedRadios.start(central: .init(ioCapability: .keyboardOnly),
                                                   peripheral: .init(ioCapability: .displayOnly))
        let board = PasskeyBoard()
        await capable.centralRadio.setPairingDelegate(board)
        await capable.peripheralRadio.setPairingDelegate(board)
        let (peripheral, characteristic) = try await Self.serveSecret(capable, permissions: [.readable, .readAuthenticationRequired])
        #expect(try await capable.central.read(characteristic) == Data([42]))
        #expect(await capable.central.securityLevel(of: peripheral) == .authenticatedSecureConnections)
        await capable.stop()

        let plain = try await PairedRadios.start()
        let (_, refused) = try await Self.serveSecret(plain, permissions: [.readable, .readAuthenticationRequired])
        await #expect { try await plain.central.read(refused) } throws: { pairingFailure($0) == .smp(.authenticationRequirements) }
        await plain.stop()
    }

    @Test("Level 4: Secure Connections passkey keys read a level 4 value; legacy passkey keys (level 3) get Insufficient Authentication, and pairing for level 4 then fails on its requirements")
    func levelFour() async throws {
        let permissions: AttributePermissions = [.readable, .readSecureConnectionsRequired]
        let secure = try await PairedRadios.start(central: .init(ioCapability: .keyboardOnly),
                                                  peripheral: .init(ioCapability: .displayOnly))
        let board = PasskeyBoard()
        await secure.centralRadio.setPairingDelegate(board)
        await secure.peripheralRadio.setPairingDelegate(board)
        let (securePeer, secureValue) = try await Self.serveSecret(secure, permissions: permissions)
        #expect(try await secure.central.read(secureValue) == Data([42]))
        #expect(await secure.central.securityLevel(of: securePeer) == .authenticatedSecureConnections)
        await secure.stop()

        let legacy = try await PairedRadios.start(central: .init(ioCapability: .keyboardOnly),
                                                  peripheral: .init(ioCapability: .displayOnly, supportsSecureConnections: false))
        await legacy.centralRadio.setPairingDelegate(board)
        await legacy.peripheralRadio.setPairingDelegate(board)
        let (legacyPeer, legacyValue) = try await Self.serveSecret(legacy, permissions: permissions)
        await #expect { try await legacy.central.read(legacyValue) } throws: { ($0 as? BleuError) == .att(.insufficientAuthentication) }
        #expect(await legacy.central.securityLevel(of: legacyPeer) == .authenticated, "legacy passkey entry gave level 3")
        await #expect { try await legacy.central.pair(legacyPeer, minimum: .authenticatedSecureConnections) } throws: {
            pairingFailure($0) == .smp(.authenticationRequirements)
        }
        #expect(await legacy.central.securityLevel(of: legacyPeer) == .authenticated, "the level 3 keys still hold")
        await legacy.stop()
    }
}
