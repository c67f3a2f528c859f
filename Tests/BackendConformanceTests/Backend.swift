import BleuCore
import BleuCoreBluetooth
import BleuEmulator
import Foundation

/// A backend the upper layers run on in this suite. Each makes BleuCore's managers on an
/// emulator bus, so every scenario runs the same on each; a difference between backends is a
/// bug in one of them.
enum Backend: String, CaseIterable, Sendable, CustomStringConvertible {
    /// BleuEmulator's own managers.
    case emulator
    /// BleuCoreBluetooth's managers, written against CoreBluetooth's names, over CoreBluetoothEmulator.
    case coreBluetooth

    var description: String { rawValue }

    /// A central and a peripheral of this backend on a fresh bus.
    func makePair(_ configuration: EmulatorConfiguration = .instant) -> Radios {
        let bus = EmulatorBus(configuration: configuration)
        switch self {
        case .emulator:
            let central = EmulatedCentralManager(bus: bus)
            let peripheral = EmulatedPeripheralManager(bus: bus)
            return Radios(bus: bus, central: central, peripheral: peripheral) { identifier in
                bus.loseLink(between: central, and: identifier)
            }
        case .coreBluetooth:
            let central = CoreBluetoothCentralManager(bus: bus)
            let peripheral = CoreBluetoothPeripheralManager(bus: bus)
            return Radios(bus: bus, central: central, peripheral: peripheral) { identifier in
                bus.loseLink(between: central.emulatorManager, and: identifier)
            }
        }
    }
}

/// One backend's central and peripheral on a bus, and the test's control over the link.
struct Radios: Sendable {
    let bus: EmulatorBus
    let central: any CentralManager
    let peripheral: any PeripheralManager
    /// Loses the link to the peripheral the central knows as `identifier`: both sides see a
    /// supervision timeout.
    let loseLink: @Sendable (UUID) -> Void
}
