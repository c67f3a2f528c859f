import Bleu
import BleuCore
import BleuEmulator
import Foundation

/// A peripheral actor system and a central actor system on a fresh emulator bus: the one-line
/// start of an actor test.
///
/// ```swift
/// let pair = ConnectedPair()
/// let counter = try await pair.host(CounterActor.self) { CounterActor(actorSystem: $0) }
/// #expect(try await counter.increment() == 1)
/// ```
public struct ConnectedPair: Sendable {
    /// The bus both systems are on.
    public let bus: EmulatorBus
    /// The radio of the peripheral system.
    public let peripheralManager: EmulatedPeripheralManager
    /// The radio of the central system.
    public let centralManager: EmulatedCentralManager
    /// The system hosting actors.
    public let peripheral: BLEActorSystem
    /// The system calling them.
    public let central: BLEActorSystem

    /// Both systems on a new bus with `emulator` (default `.instant`) and `configuration`
    /// (default ``Bleu/BLEActorSystem/Configuration/fast``).
    public init(emulator: EmulatorConfiguration = .instant, configuration: BLEActorSystem.Configuration = .fast) {
        bus = EmulatorBus(configuration: emulator)
        peripheralManager = EmulatedPeripheralManager(bus: bus)
        centralManager = EmulatedCentralManager(bus: bus)
        peripheral = BLEActorSystem(peripheralManager: peripheralManager, configuration: configuration)
        central = BLEActorSystem(centralManager: centralManager, configuration: configuration)
    }

    /// Hosts the actor `make` creates on the peripheral system, discovers it from the central
    /// and returns the central's reference, ready to call.
    public func host<Act: PeripheralActor>(_ type: Act.Type, _ make: (BLEActorSystem) -> Act) async throws -> Act {
        let actor = make(peripheral)
        try await peripheral.startAdvertising(actor)
        return try await central.connect(to: actor.id, as: type)
    }

    /// Another central system on the same bus (a second phone).
    public func makeCentral(configuration: BLEActorSystem.Configuration = .fast) -> BLEActorSystem {
        BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus), configuration: configuration)
    }
}

extension BLEActorSystem.Configuration {
    /// For tests: 5-second call and connection timeouts, and discovery that returns 50 ms after
    /// the last actor found instead of scanning for the whole timeout.
    public static var fast: BLEActorSystem.Configuration {
        BLEActorSystem.Configuration(callTimeout: .seconds(5), connectionTimeout: .seconds(5),
                                     discoveryQuietPeriod: .milliseconds(50))
    }
}
