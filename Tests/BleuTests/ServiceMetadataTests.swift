@testable import Bleu
import BleuCore
import BleuEmulator
import BleuTesting
import Distributed
import Foundation
import Testing

/// An actor laid out as its type says, Bleu 2 style.
distributed actor SmartLight: PeripheralActor {
    typealias ActorSystem = BLEActorSystem
    static let service = UUID(uuidString: "12345678-1234-5678-9ABC-123456789ABC")!
    static let call = UUID(uuidString: "87654321-4321-8765-CBA9-987654321CBA")!

    static var serviceMetadata: ServiceMetadata {
        ServiceMetadata(uuid: service, characteristics: [CharacteristicMetadata(.call, uuid: call)])
    }

    distributed func brightness() -> Int { 80 }
}

/// An actor only paired centrals may call.
distributed actor Lock: PeripheralActor {
    typealias ActorSystem = BLEActorSystem
    static var serviceMetadata: ServiceMetadata {
        ServiceMetadata(uuid: UUID(uuidString: "0000FEED-1234-5678-9ABC-123456789ABC")!, security: .encrypted)
    }

    distributed func open() -> Bool { true }
}

/// An actor that needs an authenticated (MITM-protected) pairing.
distributed actor Vault: PeripheralActor {
    typealias ActorSystem = BLEActorSystem
    static var serviceMetadata: ServiceMetadata {
        ServiceMetadata(uuid: UUID(uuidString: "0000FEEE-1234-5678-9ABC-123456789ABC")!, security: .authenticated)
    }

    distributed func open() -> Bool { true }
}

/// An actor for Secure Connections Only: level 4 keys (authenticated LE Secure Connections, 128-bit).
distributed actor Strongbox: PeripheralActor {
    typealias ActorSystem = BLEActorSystem
    static var serviceMetadata: ServiceMetadata {
        ServiceMetadata(uuid: UUID(uuidString: "0000FEEF-1234-5678-9ABC-123456789ABC")!, security: .authenticatedSecureConnections)
    }

    distributed func open() -> Bool { true }
}

/// Metadata that cannot work: calls are writes without response.
distributed actor BadCall: PeripheralActor {
    typealias ActorSystem = BLEActorSystem
    static var serviceMetadata: ServiceMetadata {
        ServiceMetadata(uuid: UUID(), characteristics: [CharacteristicMetadata(.call, uuid: UUID(), properties: [.write])])
    }
}

@Suite("Actor service metadata")
struct ServiceMetadataTests {
    @Test("an actor with its own service and characteristic UUIDs is hosted under them, discovered by its type and called")
    func customLayout() async throws {
        let pair = ConnectedPair()
        let light = SmartLight(actorSystem: pair.peripheral)
        try await pair.peripheral.startAdvertising(light)
        #expect(ActorServiceLayout.serviceUUID(for: SmartLight.self) == BluetoothUUID(uuid: SmartLight.service))
        // On air: the declared service, with the declared call characteristic.
        let raw = EmulatedCentralManager(bus: pair.bus)
        var scan = try await raw.scan(ScanOptions(services: [BluetoothUUID(uuid: SmartLight.service)])).makeAsyncIterator()
        let heard = try #require(try await scan.next())
        await raw.stopScan()
        try await raw.connect(heard.peripheral, timeout: .seconds(5))
        let services = try await raw.discoverServices([BluetoothUUID(uuid: SmartLight.service)], on: heard.peripheral)
        let characteristics = try await raw.discoverCharacteristics(nil, for: try #require(services.first))
        #expect(Set(characteristics.map(\.uuid)) == [BluetoothUUID(uuid: SmartLight.call), ActorServiceLayout.actorIDCharacteristic,
                                                   ActorServiceLayout.replyCharacteristic])
        let found = try await pair.central.discover(SmartLight.self, timeout: .seconds(5), count: 1)
        #expect(found.map(\.id) == [light.id])
        #expect(try await #require(found.first).brightness() == 80)
    }

    @Test("metadata that cannot carry the protocol is refused when hosting, with a typed problem")
    func invalid() async throws {
        let pair = ConnectedPair()
        do {
            try await pair.peripheral.startAdvertising(BadCall(actorSystem: pair.peripheral))
            Issue.record("hosted")
        } catch BLEActorSystemError.invalidServiceMetadata(let type, let problem) {
            #expect(type.hasSuffix("BadCall"))
            #expect(problem == .missingProperties(.call, [.writeWithoutResponse]))
        }
        let twice = ServiceMetadata(uuid: UUID(), characteristics: [CharacteristicMetadata(.reply, uuid: UUID()),
                                                                    CharacteristicMetadata(.reply, uuid: UUID())])
        #expect(throws: BLEActorSystemError.invalidServiceMetadata(type: "T", .roleListedTwice(.reply))) {
            _ = try ActorService(twice, of: "T")
        }
        let clash = ServiceMetadata(uuid: UUID(), characteristics: [
            CharacteristicMetadata(.reply, uuid: ActorServiceLayout.callCharacteristic)])
        #expect(throws: BLEActorSystemError.invalidServiceMetadata(type: "T", .uuidUsedTwice(ActorServiceLayout.callCharacteristic))) {
            _ = try ActorService(clash, of: "T")
        }
    }

    @Test("security applies to every characteristic, the actor-id read and the protocol services included")
    func securityEverywhere() throws {
        let metadata = ServiceMetadata(uuid: UUID(), characteristics: [
            CharacteristicMetadata(.call, uuid: UUID(), permissions: [.writeable, .writeEncryptionRequired])])
        let service = try ActorService(metadata, of: "T")
        #expect(service.actorID.permissions.contains(.readEncryptionRequired))
        #expect(service.reply.permissions.contains(.readEncryptionRequired))
        let protocolService = service.protocolService(BluetoothUUID(uuid: UUID()))
        #expect(protocolService.call.permissions == service.call.permissions)
        #expect(protocolService.actorID.permissions.contains(.readEncryptionRequired))
    }

    @Test("an encrypted actor: the central pairs while setting up the link (Just Works), as hardware does, then calls")
    func encrypted() async throws {
        let pair = ConnectedPair()
        let lock = Lock(actorSystem: pair.peripheral)
        try await pair.peripheral.startAdvertising(lock)
        #expect(pair.bus.bondCount == 0)
        let remote = try await pair.central.connect(to: lock.id, as: Lock.self)
        #expect(try await remote.open())
        #expect(pair.bus.bondCount == 1, "the link was paired (and bonded)")
        #expect(pair.bus.trace.contains { $0.kind == .security })
    }

    @Test("an actor that needs authenticated pairing, reached with Just Works only: the call fails at once with the typed security error")
    func authenticationRequired() async throws {
        let pair = ConnectedPair()
        let vault = Vault(actorSystem: pair.peripheral)
        try await pair.peripheral.startAdvertising(vault)
        let remote = try Vault.resolve(id: vault.id, using: pair.central)
        // Waiting for the call's timeout would end in BleuError.timeout: the security error
        // itself shows the call failed as soon as the set-up did.
        do {
            _ = try await BLEActorSystem.withCallTimeout(DiscoveryTests.lookupTimeout) { try await remote.open() }
            Issue.record("the call succeeded without authenticated pairing")
        } catch let error as BleuError {
            switch error {
            case .att(.insufficientAuthentication), .pairingFailed: break
            default: Issue.record("the call failed with \(error)")
            }
        }
    }

    @Test("a level 4 actor: Secure Connections passkey pairing opens it; legacy passkey keys (level 3) get Insufficient Authentication",
          arguments: [PairingConfiguration.Method.passkeyEntry, .legacyPasskeyEntry])
    func secureConnectionsRequired(_ method: PairingConfiguration.Method) async throws {
        var emulator = EmulatorConfiguration.instant
        emulator.pairing = PairingConfiguration(method: method)
        let logs = CapturedLogs()
        let pair = ConnectedPair(emulator: emulator, configuration: .fast.logging(to: logs))
        pair.centralManager.setPasskeyHandler { $0.displayedPasskey }
        let box = Strongbox(actorSystem: pair.peripheral)
        try await pair.peripheral.startAdvertising(box)
        #expect(try ActorService(Strongbox.serviceMetadata, of: "Strongbox").call.permissions.contains(.writeSecureConnectionsRequired))
        let remote = try Strongbox.resolve(id: box.id, using: pair.central)
        do {
            let opened = try await BLEActorSystem.withCallTimeout(DiscoveryTests.lookupTimeout) { try await remote.open() }
            #expect(method == .passkeyEntry && opened, "\(method) opened a level 4 actor")
        } catch let error as BleuError {
            #expect(method == .legacyPasskeyEntry && error == .att(.insufficientAuthentication),
                    "\(method): \(error); the systems' log:\n\(logs.transcript)")
        }
    }
}
