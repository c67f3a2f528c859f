import BleuCore
import Foundation
import Testing

@testable import BleuHCI

/// Privacy on BleuHCI: our peripheral takes resolvable private addresses from its identity's IRK
/// and rotates them on its timer; our central, bonded, knows it as one peer through every
/// address and re-encrypts from the bond.
@Suite("Privacy: our own resolvable private addresses, rotated and resolved")
struct RadioPrivacyTests {
    static let identity = PairingIdentity(
        resolvingKey: Array(0x50..<0x60),
        address: PairingAddress(type: .randomDevice, address: BluetoothAddress(string: "C3:11:22:33:44:55")!))

    @Test("the peripheral's address is a private one of its IRK, a new one each interval; bonded, the central resolves each to the same peer and re-encrypts")
    func rotatesAndResolves() async throws {
        let clock = ManualClock()
        let radios = try await PairedRadios.start(peripheral: .init(identity: Self.identity), clock: clock,
                                                  peripheralPrivacy: .seconds(900))
        let first = await radios.air.address(.b)
        #expect(first != Self.identity.address.address, "the identity address stays off the air")
        #expect(ResolvablePrivateAddress.resolves(first, with: Self.identity.resolvingKey), "\(first)")
        #expect(await radios.peripheralRadio.address == first)

        // The radio rotates while connected: the link keeps the address it was made with, and
        // pairing on it must use that one — Secure Connections' checks cover both addresses, so
        // pairing with the radio's new address would fail the DHKey check.
        let (peer, _) = try await radios.connect()
        await radios.peripheralRadio.rotatePrivateAddress()
        let second = await radios.air.address(.b)
        #expect(second != first && ResolvablePrivateAddress.resolves(second, with: Self.identity.resolvingKey))
        try await radios.central.pair(peer)
        let bond = try #require(radios.centralBonds.bonds().first)
        #expect(bond.peer == Self.identity.address && bond.peerResolvingKey == Self.identity.resolvingKey)
        await radios.disconnect(peer)

        // The timer: one interval later there is a third address.
        await eventually { clock.sleeperCount >= 1 }
        clock.advance(by: .seconds(900))
        await eventually { await radios.air.address(.b) != second }
        let third = await radios.air.address(.b)
        #expect(ResolvablePrivateAddress.resolves(third, with: Self.identity.resolvingKey), "\(third)")

        // The central knows the new address as the peer it bonded with, and encrypts from the bond.
        #expect(await radios.centralRadio.identify(third, type: .randomDevice) == peer)
        let pairingRequests = await radios.smpCodes().count { $0 == 0x01 }
        try await radios.central.connect(peer, timeout: LinkedControllers.patience)
        try await radios.central.pair(peer)
        #expect(await radios.central.securityLevel(of: peer) == .encrypted)
        #expect(await radios.smpCodes().count { $0 == 0x01 } == pairingRequests, "encrypted from the bond, no new pairing")
        await radios.stop()
    }

    @Test("privacy without an identity is refused at start with the setting named")
    func needsIdentity() async throws {
        let air = LinkedControllers()
        await air.run()
        let radio = HCIRadio(host: HCIHost(transport: air.hostA, configuration: LinkedControllers.hostConfiguration), configuration: HCIRadioConfiguration(privateAddressInterval: .seconds(900)))
        await #expect { try await radio.start() } throws: { error in
            guard case .invalidState(.invalidConfiguration(let setting, _))? = error as? BleuError else { return false }
            return setting == "privateAddressInterval"
        }
    }
}
