import Bleu
import BleuCore
import BleuTesting
import BumbleSupport
import Distributed
import Foundation
import Testing

@testable import BleuHCI

/// An actor only centrals on an encrypted link may call.
distributed actor SecureLock: PeripheralActor {
    typealias ActorSystem = BLEActorSystem
    static var serviceMetadata: ServiceMetadata {
        ServiceMetadata(uuid: UUID(uuidString: "0000FE01-5EC0-4E00-8000-00805F9B34FB")!, security: .encrypted)
    }

    distributed func open() -> String { "opened" }
}

/// An actor only centrals with authenticated (MITM-protected) keys may call.
distributed actor SecureVault: PeripheralActor {
    typealias ActorSystem = BLEActorSystem
    static var serviceMetadata: ServiceMetadata {
        ServiceMetadata(uuid: UUID(uuidString: "0000FE02-5EC0-4E00-8000-00805F9B34FB")!, security: .authenticated)
    }

    distributed func open() -> String { "vault opened" }
}

/// Shows the passkey the peripheral displays to the central's user, who types it — each passkey
/// once, so a pairing tried again waits for its own passkey rather than typing the last one.
actor SharedPasskey: PairingDelegate {
    private var shown: UInt32?
    private var waiting: [CheckedContinuation<UInt32, Never>] = []

    func display(passkey: UInt32, to peer: UUID) async {
        guard !waiting.isEmpty else {
            shown = passkey
            return
        }
        for continuation in waiting { continuation.resume(returning: passkey) }
        waiting = []
    }

    func enterPasskey(for peer: UUID) async -> UInt32? {
        if let shown {
            self.shown = nil
            return shown
        }
        return await withCheckedContinuation { waiting.append($0) }
    }
}

/// Secure actors: an actor whose metadata requires security is hosted on our peripheral, and
/// our central pairs through its Security Manager before the call goes through, across
/// Bumble's virtual link.
@Suite("Interop: secure actors over our HCI stack", .enabled(if: BumbleLink.python != nil, BumbleLink.skipReason),
       .timeLimit(.minutes(1)))
struct SecureActorsOverHCITests {
    @Test("an encrypted actor: the central pairs (Just Works) while setting up the link, then calls; both sides bond")
    func encryptedActor() async throws {
        let pair = try await RadioPair.start()
        let peripheralSystem = BLEActorSystem(peripheralManager: pair.peripheral, configuration: .fast)
        let centralSystem = BLEActorSystem(centralManager: pair.central, configuration: .fast)
        let lock = SecureLock(actorSystem: peripheralSystem)
        try await peripheralSystem.startAdvertising(lock)
        let remote = try await centralSystem.connect(to: lock.id, as: SecureLock.self)
        #expect(try await remote.open() == "opened")
        #expect(try pair.centralRadio.bonds.bonds().count == 1)
        #expect(try pair.peripheralRadio.bonds.bonds().count == 1)
        let peripheral = try #require(await pair.centralRadio.connections.all.first?.peer)
        #expect(await pair.central.securityLevel(of: peripheral) == .encrypted)
        await pair.stop()
    }

    @Test("an authenticated actor: passkey entry through the pairing delegates, then the call")
    func authenticatedActor() async throws {
        let pair = try await RadioPair.start(
            configuration: HCIRadioConfiguration(security: SecurityManagerConfiguration(ioCapability: .keyboardOnly)),
            peripheralSecurity: SecurityManagerConfiguration(ioCapability: .displayOnly))
        let passkey = SharedPasskey()
        await pair.centralRadio.setPairingDelegate(passkey)
        await pair.peripheralRadio.setPairingDelegate(passkey)
        // Passkey entry is part of the link's set-up here: 40 PDUs through Bumble's Python link
        // take seconds on a loaded machine, more than `.fast`'s 5-second set-up allows.
        var configuration = BLEActorSystem.Configuration.fast
        configuration.connectionTimeout = .seconds(20)
        let peripheralSystem = BLEActorSystem(peripheralManager: pair.peripheral, configuration: configuration)
        let centralSystem = BLEActorSystem(centralManager: pair.central, configuration: configuration)
        let vault = SecureVault(actorSystem: peripheralSystem)
        try await peripheralSystem.startAdvertising(vault)
        let remote = try await centralSystem.connect(to: vault.id, as: SecureVault.self)
        #expect(try await remote.open() == "vault opened")
        #expect(try pair.centralRadio.bonds.bonds().first?.authenticated == true)
        await pair.stop()
    }

    @Test("an authenticated actor reached by devices that can only do Just Works: the call fails with the pairing's typed error")
    func authenticationUnreachable() async throws {
        let pair = try await RadioPair.start()
        let peripheralSystem = BLEActorSystem(peripheralManager: pair.peripheral, configuration: .fast)
        let centralSystem = BLEActorSystem(centralManager: pair.central, configuration: .fast)
        let vault = SecureVault(actorSystem: peripheralSystem)
        try await peripheralSystem.startAdvertising(vault)
        let remote = try SecureVault.resolve(id: vault.id, using: centralSystem)
        do {
            _ = try await BLEActorSystem.withCallTimeout(.seconds(20)) { try await remote.open() }
            Issue.record("the call succeeded without authenticated keys")
        } catch BleuError.pairingFailed(let failure) {
            #expect(failure == .smp(.authenticationRequirements), "Just Works cannot give authenticated keys")
        }
        #expect(try pair.centralRadio.bonds.bonds().isEmpty)
        await pair.stop()
    }
}
