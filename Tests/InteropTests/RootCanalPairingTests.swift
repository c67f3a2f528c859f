import BleuCore
import BumbleSupport
import Foundation
import Testing

@testable import BleuHCI

/// Two of our radios on RootCanal, each with its own bond store.
struct RootCanalRadios {
    let link: RootCanalLink
    let central: HCIRadio
    let peripheral: HCIRadio
    let centralBonds: InMemoryBondStore
    let peripheralBonds: InMemoryBondStore

    static func start() async throws -> RootCanalRadios {
        let link = try await RootCanalLink.start()
        let centralBonds = InMemoryBondStore()
        let peripheralBonds = InMemoryBondStore()
        let central = try await link.radio(configuration: HCIRadioConfiguration(
            ownAddress: .randomStatic(BluetoothAddress(string: "C0:00:00:00:0C:0A")!)), bonds: centralBonds, name: "central")
        let peripheral = try await link.radio(configuration: HCIRadioConfiguration(
            ownAddress: .randomStatic(BluetoothAddress(string: "C0:00:00:00:0C:0B")!)), bonds: peripheralBonds, name: "peripheral")
        return RootCanalRadios(link: link, central: central, peripheral: peripheral, centralBonds: centralBonds, peripheralBonds: peripheralBonds)
    }

    /// Advertises, connects by address; returns the peripheral as the central knows it.
    func connect() async throws -> UUID {
        let manager = HCIPeripheralManager(radio: peripheral)
        try await manager.startAdvertising(AdvertisingData(localName: "rc-peripheral"))
        let central = HCICentralManager(radio: self.central)
        let found = try await central.scan().first { $0.localName == "rc-peripheral" }
        let id = try #require(found?.peripheral)
        await central.stopScan()
        try await central.connect(id, timeout: .seconds(10))
        await manager.stopAdvertising()
        return id
    }

    func stop() async {
        await central.stop()
        await peripheral.stop()
        link.stop()
    }
}

/// Encryption through a Link Layer that asks the peripheral's host: two of our radios on
/// Google's RootCanal 1.10.0, whose controllers send the peripheral's host LE Long Term Key
/// Request and fail the encryption on a negative reply — what Bumble's controllers cannot show.
/// RootCanal does not compare the two keys, though (a peripheral answering with another key
/// still gets an encrypted link), so a key mismatch is tested on `LinkedControllers` only.
@Suite("Interop: encryption on RootCanal's controllers (LTK requests answered by our host)", .enabled(if: BumbleLink.python != nil, BumbleLink.skipReason),
       .timeLimit(.minutes(1)))
struct RootCanalPairingTests {
    @Test("pairing, then a reconnection encrypted from the bond (the peripheral answers RootCanal's LTK request)")
    func bondReencrypts() async throws {
        let radios = try await RootCanalRadios.start()
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

    @Test("a peripheral that forgot the bond refuses RootCanal's LTK request: the central's encryption fails with the controller's status")
    func forgottenBond() async throws {
        let radios = try await RootCanalRadios.start()
        let central = HCICentralManager(radio: radios.central)
        let id = try await radios.connect()
        try await central.pair(id)
        await central.cancelConnection(id)
        for bond in radios.peripheralBonds.bonds() { radios.peripheralBonds.forget(bond.peer) }

        let again = try await radios.connect()
        await #expect { try await central.pair(again) } throws: { error in
            // The specification's LL_REJECT_EXT_IND carries PIN or Key Missing (0x06); RootCanal
            // 1.10.0 reports Authentication Failure (0x05). Either way the controller's status.
            if case .pairingFailed(.encryption(let status))? = error as? BleuError { return status == 0x06 || status == 0x05 }
            Issue.record("failed with \(error)")
            return false
        }
        await radios.stop()
    }
}
