import ArgumentParser
import BleuCore
import BleuHCI
import Foundation

/// `bleu pair --hci ENDPOINT ADDRESS`: pairs with a device and keeps the bond.
struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair with a device (or encrypt with the bond kept from an earlier pairing) and keep the bond.",
        discussion: """
            The device must be advertising. A passkey is taken from --passkey or asked for on the terminal; a number to \\
            compare is asked on the terminal. Keys are never printed. \\
            Example: bleu pair --hci tcp:127.0.0.1:9000 C0:11:22:33:44:55 --passkey 123456
            """
    )

    @OptionGroup var controller: ControllerOptions
    @OptionGroup var security: SecurityOptions

    @OptionGroup var device: DeviceOptions

    @Flag(help: "Demand keys protected against a man in the middle (passkey entry or numeric comparison).")
    var authenticated = false


    mutating func run() async throws {
        let target = device.target
        let setup = try security.open()
        let radio = try await controller.openRadio(security: setup)
        let central = HCICentralManager(radio: radio)
        do {
            let peer = try await DeviceSearch.connect(target, central: central, radio: radio, seconds: device.timeout)
            let minimum: SecurityLevel = authenticated ? .authenticated : .encrypted
            do {
                try await central.pair(peer, minimum: minimum)
            } catch {
                throw CommandFailure("pairing with \(target) failed: \(error)")
            }
            let level = await central.securityLevel(of: peer) ?? minimum
            let known = await radio.address(of: peer)
            let bond = try radio.bonds.bond(resolving: PairingAddress(type: known?.type ?? .randomDevice, address: target))
            print("Paired with \(target): the link is \(level)")
            if let bond {
                print("Bond: \(bond)")
                print("Kept in \(security.bondsPath)")
            } else {
                print("No bond kept (the device did not ask to bond)")
            }
            await central.cancelConnection(peer)
        } catch {
            await radio.stop()
            throw error
        }
        await radio.stop()
    }
}

/// `bleu bonds`: lists the bonds kept, or forgets one.
struct BondsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bonds",
        abstract: "List the bonds kept by `bleu pair` and `bleu gatt`, or forget one. Keys are never printed."
    )

    @Option(help: ArgumentHelp("The bond file. Default: ~/.bleu/bonds.json", valueName: "file"))
    var bonds: String?

    @Option(help: "Forget the bond with this address (the device will have to pair again).")
    var forget: String?

    func validate() throws {
        if let forget, BluetoothAddress(string: forget) == nil {
            throw ValidationError("'\(forget)' is not a device address (like C0:11:22:33:44:55)")
        }
    }

    mutating func run() async throws {
        let path = SecurityOptions(bonds: bonds).bondsPath
        let store: FileBondStore
        do {
            store = try FileBondStore(path: path)
        } catch {
            throw CommandFailure("\(error)")
        }
        if let forget, let address = BluetoothAddress(string: forget) {
            let matching = store.bonds().filter { $0.peer.address == address }
            guard !matching.isEmpty else { throw CommandFailure("no bond with \(address) in \(path)") }
            do {
                for bond in matching { try store.forget(bond.peer) }
            } catch {
                throw CommandFailure("\(error)")
            }
            print("Forgot the bond with \(address)")
            return
        }
        let all = store.bonds()
        if all.isEmpty {
            print("No bonds in \(path)")
        }
        for bond in all { print(bond) }
    }
}
