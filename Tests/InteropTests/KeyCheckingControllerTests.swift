import BleuCore
import BumbleSupport
import Foundation
import Testing

@testable import BleuHCI

/// Two of our radios on a virtual controller whose Link Layer asks the peripheral's host for
/// its key: Bumble 0.0.236's linked controllers (which also compare the keys), or Google's
/// RootCanal 1.10.0 (which does not).
struct KeyCheckingRadios {
    enum Controller: String, CaseIterable, Sendable { case bumble, rootCanal }

    let central: HCIRadio
    let peripheral: HCIRadio
    let centralBonds: InMemoryBondStore
    let peripheralBonds: InMemoryBondStore
    let stopLink: @Sendable () -> Void

    static func start(_ controller: Controller) async throws -> KeyCheckingRadios {
        let centralBonds = InMemoryBondStore()
        let peripheralBonds = InMemoryBondStore()
        let centralConfiguration = HCIRadioConfiguration(ownAddress: .randomStatic(BluetoothAddress(string: "C0:00:00:00:0C:0A")!))
        let peripheralConfiguration = HCIRadioConfiguration(ownAddress: .randomStatic(BluetoothAddress(string: "C0:00:00:00:0C:0B")!))
        switch controller {
        case .bumble:
            let link = try await BumbleLink.start()
            return KeyCheckingRadios(
                central: try await BumbleLink.radio(port: link.portA, configuration: centralConfiguration, bonds: centralBonds, name: "central"),
                peripheral: try await BumbleLink.radio(port: link.portB, configuration: peripheralConfiguration, bonds: peripheralBonds,
                                                       name: "peripheral"),
                centralBonds: centralBonds, peripheralBonds: peripheralBonds, stopLink: { link.stop() })
        case .rootCanal:
            let link = try await RootCanalLink.start()
            return KeyCheckingRadios(
                central: try await link.radio(configuration: centralConfiguration, bonds: centralBonds, name: "central"),
                peripheral: try await link.radio(configuration: peripheralConfiguration, bonds: peripheralBonds, name: "peripheral"),
                centralBonds: centralBonds, peripheralBonds: peripheralBonds, stopLink: { link.stop() })
        }
    }

    /// Advertises, connects; returns the peripheral as the central knows it.
    func connect() async throws -> UUID {
        let manager = HCIPeripheralManager(radio: peripheral)
        try await manager.startAdvertising(AdvertisingData(localName: "kc-peripheral"))
        let central = HCICentralManager(radio: self.central)
        let found = try await central.scan().first { $0.localName == "kc-peripheral" }
        let id = try #require(found?.peripheral)
        await central.stopScan()
        try await central.connect(id, timeout: .seconds(10))
        await manager.stopAdvertising()
        return id
    }

    func stop() async {
        await central.stop()
        await peripheral.stop()
        stopLink()
    }
}

/// Encryption through a Link Layer that asks the peripheral's host (LE Long Term Key Request):
/// our peripheral answers from its bonds, a negative reply fails the central's encryption, and
/// — on Bumble's controllers, which compare the two keys — a peripheral with another key ends
/// the link (MIC Failure). RootCanal 1.10.0 does not compare the keys (a wrong key still
/// encrypts), so the mismatch runs on Bumble's link and on `LinkedControllers` only.
@Suite("Interop: encryption on virtual controllers that ask the peripheral's host for its key",
       .enabled(if: BumbleLink.python != nil, BumbleLink.skipReason), .timeLimit(.minutes(1)))
struct KeyCheckingControllerTests {
    @Test("pairing, then a reconnection encrypted from the bond (the peripheral answers the LTK request)",
          arguments: KeyCheckingRadios.Controller.allCases)
    func bondReencrypts(_ controller: KeyCheckingRadios.Controller) async throws {
        let radios = try await KeyCheckingRadios.start(controller)
        let central = HCICentralManager(radio: radios.central)
        let id = try await radios.connect()
        try await central.pair(id)
        #expect(await central.securityLevel(of: id) == .encrypted)
        await central.cancelConnection(id)

        let again = try await radios.connect()
        try await central.pair(again)
        #expect(await central.securityLevel(of: again) == .encrypted)
        await radios.stop()
    }

    @Test("a peripheral that forgot the bond refuses the LTK request: the central's encryption fails with the controller's status",
          arguments: KeyCheckingRadios.Controller.allCases)
    func forgottenBond(_ controller: KeyCheckingRadios.Controller) async throws {
        let radios = try await KeyCheckingRadios.start(controller)
        let central = HCICentralManager(radio: radios.central)
        let id = try await radios.connect()
        try await central.pair(id)
        await central.cancelConnection(id)
        for bond in radios.peripheralBonds.bonds() { radios.peripheralBonds.forget(bond.peer) }

        let again = try await radios.connect()
        // The specification's LL_REJECT_EXT_IND carries PIN or Key Missing (0x06), as Bumble's
        // controller sends; RootCanal 1.10.0 reports Authentication Failure (0x05).
        let expected: UInt8 = controller == .bumble ? 0x06 : 0x05
        await #expect { try await central.pair(again) } throws: { error in
            if case .pairingFailed(.encryption(let status))? = error as? BleuError { return status == expected }
            Issue.record("failed with \(error)")
            return false
        }
        #expect(await central.securityLevel(of: again) == .unencrypted)
        await radios.stop()
    }

    @Test("Bumble's controllers: a peripheral whose bond holds another key ends the link (MIC Failure)")
    func wrongKey() async throws {
        let radios = try await KeyCheckingRadios.start(.bumble)
        let central = HCICentralManager(radio: radios.central)
        let id = try await radios.connect()
        try await central.pair(id)
        await central.cancelConnection(id)
        var bond = try #require(radios.peripheralBonds.bonds().first)
        bond.longTermKey.key[15] ^= 0xFF
        radios.peripheralBonds.save(bond)

        let again = try await radios.connect()
        await #expect { try await central.pair(again) } throws: { error in
            if case .disconnected(_, let reason)? = error as? BleuError { return reason.hciCode == 0x3D }
            Issue.record("failed with \(error)")
            return false
        }
        await radios.stop()
    }
}
