import BleuCore
import BleuCoreBluetooth
import BleuEmulator
import BleuHCI
import BumbleSupport
import Foundation
import Testing

/// The upper layers' end-to-end scenarios, each run on every backend in ``Backend/available``.
///
/// Serialized, the nested suites included: each HCI case starts a Bumble process (Python, about
/// 0.7 CPU-seconds) and drives two radios, and eight at once on 2 cores starve the wall-clock-timed
/// tests of other targets when one `swift test` runs everything (seen: BleuTests' FlowControlTests
/// timing out at 5 s; scripts/test.sh runs this target apart from those for the same reason). One
/// case at a time, the suite takes about 6 s on idle cores with HCI, a fraction of a second without.
@Suite("Every backend", .serialized)
enum EveryBackend {}

/// A backend the upper layers run on in this suite. Every scenario runs the same on each; a
/// difference between backends is a bug in one of them.
enum Backend: String, CaseIterable, Sendable, CustomStringConvertible {
    /// BleuEmulator's own managers, on an instant emulator bus.
    case emulator
    /// BleuCoreBluetooth's managers, written against CoreBluetooth's names, over CoreBluetoothEmulator
    /// on an instant emulator bus.
    case coreBluetooth
    /// BleuEmulator's managers on two clients of one hub (an instant bus), each joined to it
    /// through the hub protocol's bytes as a separate process would be.
    case hub
    /// BleuCoreBluetooth's managers over CoreBluetoothEmulator on two clients of one hub: the
    /// code an iPhone runs, with the central and the peripheral in (as if) two processes.
    case coreBluetoothOnHub
    /// BleuHCI's managers on two radios, each on one of Bumble's virtual controllers, the two
    /// controllers on one link (scripts/bumble_link.py; needs BLEU_PYTHON). Bumble's link forwards
    /// at once, and its controller ignores LE Set Data Length and LE Set PHY (Docs/BleuHCI.md lists
    /// its quirks); no scenario's assertion depends on timing or on those.
    case hci

    var description: String { rawValue }

    /// Whether the peripheral reports a central's disconnection (CoreBluetooth's peripheral
    /// role has no such callback).
    var reportsPeripheralDisconnections: Bool { self != .coreBluetooth && self != .coreBluetoothOnHub }

    /// The backends this run has: all of them, but ``hci`` only with Bumble (BLEU_PYTHON set) and
    /// not when `BLEU_CONFORMANCE_HCI=0` (scripts/test.sh's ThreadSanitizer runs). The scenarios'
    /// `arguments:`; Swift Testing plans them before any trait runs, so a missing Bumble cannot
    /// skip one argument: it leaves it out, and ``HCIBackendAvailability`` shows the skip.
    static var available: [Backend] {
        allCases.filter { $0 != .hci || hciIsAvailable }
    }

    static var hciIsAvailable: Bool { BumbleLink.python != nil && !hciIsTurnedOff }

    static var hciIsTurnedOff: Bool { ProcessInfo.processInfo.environment["BLEU_CONFORMANCE_HCI"] == "0" }

    /// A central and a peripheral of this backend, on a medium of their own: a fresh emulator
    /// bus, or a fresh Bumble link (its controllers keep connections across HCI Reset, so no two
    /// scenarios share one). Call ``Radios/stop`` when done.
    func makePair() async throws -> Radios {
        switch self {
        case .emulator:
            let bus = EmulatorBus(configuration: .instant)
            let central = EmulatedCentralManager(bus: bus)
            let peripheral = EmulatedPeripheralManager(bus: bus)
            return Radios(central: central, peripheral: peripheral, loseLink: { identifier in
                bus.loseLink(between: central, and: identifier)
            }, stop: {})
        case .coreBluetooth:
            let bus = EmulatorBus(configuration: .instant)
            let central = CoreBluetoothCentralManager(bus: bus)
            let peripheral = CoreBluetoothPeripheralManager(bus: bus)
            return Radios(central: central, peripheral: peripheral, loseLink: { identifier in
                bus.loseLink(between: central.emulatorManager, and: identifier)
            }, stop: {})
        case .hub:
            let hub = EmulatorBus(configuration: .instant)
            let central = EmulatedCentralManager(bus: try await EmulatorBus(loopbackTo: hub))
            let peripheral = EmulatedPeripheralManager(bus: try await EmulatorBus(loopbackTo: hub))
            return Radios(central: central, peripheral: peripheral, loseLink: { identifier in
                central.bus.loseLink(between: central, and: identifier)
            }, stop: { withExtendedLifetime(hub) {} })
        case .coreBluetoothOnHub:
            let hub = EmulatorBus(configuration: .instant)
            let central = CoreBluetoothCentralManager(bus: try await EmulatorBus(loopbackTo: hub))
            let peripheral = CoreBluetoothPeripheralManager(bus: try await EmulatorBus(loopbackTo: hub))
            return Radios(central: central, peripheral: peripheral, loseLink: { identifier in
                central.emulatorManager.bus.loseLink(between: central.emulatorManager, and: identifier)
            }, stop: { withExtendedLifetime(hub) {} })
        case .hci:
            let link = try await BumbleLink.start()
            do {
                var peripheralConfiguration = HCIRadioConfiguration()
                peripheralConfiguration.deviceName = "bleu-peripheral"
                let peripheralRadio = try await BumbleLink.radio(port: link.portB, configuration: peripheralConfiguration,
                                                                 name: "peripheral")
                let centralRadio = try await BumbleLink.radio(port: link.portA, name: "central")
                // Losing the link loses every connection on it; the scenarios make only the one.
                // Stopping Bumble closes both radios' transports, which ends them.
                return Radios(central: HCICentralManager(radio: centralRadio),
                              peripheral: HCIPeripheralManager(radio: peripheralRadio),
                              loseLink: { _ in try link.loseEveryConnection() }, stop: { link.stop() })
            } catch {
                link.stop()
                throw error
            }
        }
    }
}

/// One backend's central and peripheral, and the test's control over their link.
struct Radios: Sendable {
    let central: any CentralManager
    let peripheral: any PeripheralManager
    /// Loses the link to the peripheral the central knows as `identifier`: both sides see a
    /// supervision timeout (HCI 0x08).
    let loseLink: @Sendable (UUID) throws -> Void
    /// Ends what the pair runs on that outlives the test (the Bumble process); call it with `defer`.
    let stop: @Sendable () -> Void
}

extension EveryBackend {
    /// Makes a missing Bumble visible: without BLEU_PYTHON the scenarios leave ``Backend/hci`` out
    /// of their arguments, and this test reports the skip.
    @Suite("HCI over Bumble's virtual controllers is among the backends")
    struct HCIBackendAvailability {
        @Test("with Bumble, the HCI backend is in every scenario's arguments and its pair of radios comes up",
              .enabled(if: BumbleLink.python != nil, Comment(rawValue: BumbleLink.skipReasonText)),
              .enabled(if: !Backend.hciIsTurnedOff, "BLEU_CONFORMANCE_HCI=0 leaves the HCI backend out"),
              .timeLimit(.minutes(1)))
        func hciIsAmongTheBackends() async throws {
            #expect(Backend.available.contains(.hci))
            let radios = try await Backend.hci.makePair()
            defer { radios.stop() }
            #expect(await radios.central.state == .poweredOn)
            #expect(await radios.peripheral.state == .poweredOn)
        }
    }
}
