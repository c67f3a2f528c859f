// ThermometerActor — a distributed actor hosted on a peripheral and called from a central.
//
// Declares a `@Resolvable` protocol of distributed methods, hosts an actor that conforms to it
// on an emulated peripheral, then, from an emulated central on the same in-memory radio,
// discovers it, resolves it by its protocol and calls it as if it were local. The emulator's
// `.instant` timing makes the link take no time, so the program finishes at once.
//
//     swift run ThermometerActor
//
// Put BleuHCI's managers in place of the emulated ones and the same code runs on a controller.

import Bleu
import BleuEmulator
import Distributed
import Foundation

/// What a central may call. A `@Resolvable` protocol must be public (a release build crashes
/// calling through an internal one with Swift 6.3).
@Resolvable
public protocol TemperatureSensor: PeripheralActor {
    distributed func getTemperature() async throws -> Double
    distributed func setUpdateInterval(_ seconds: Int) async throws
}

/// An error the peripheral throws. Being `Codable` and registered in the central's
/// configuration (`remoteTypes`), it reaches the central as itself; unregistered, it would arrive
/// as a `RemoteCallError` with its type name and description.
enum ThermometerError: Error, Codable {
    case intervalTooShort(seconds: Int)
}

/// The peripheral's implementation. The central never sees this type, only the protocol.
distributed actor Thermometer: TemperatureSensor {
    typealias ActorSystem = BLEActorSystem
    /// Lets a central find it by the protocol as well as by its own type (the type annotation
    /// matters: without it this would be a new property, not the protocol's requirement).
    static let discoverableAs: [any PeripheralActor.Type] = [$TemperatureSensor.self]

    private var temperature = 21.5
    private var interval = 1

    distributed func getTemperature() async throws -> Double {
        temperature += 0.25  // a new reading at every call
        return temperature
    }

    distributed func setUpdateInterval(_ seconds: Int) async throws {
        guard seconds > 0 else { throw ThermometerError.intervalTooShort(seconds: seconds) }
        interval = seconds
    }
}

// One in-memory radio medium; each side gets its own manager on it.
let bus = EmulatorBus(configuration: .instant)
let peripheralSystem = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus))
let centralSystem = BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus),
                                   configuration: BLEActorSystem.Configuration(remoteTypes: RemoteTypeRegistry(ThermometerError.self)))

// Peripheral: host the actor and advertise it.
let thermometer = Thermometer(actorSystem: peripheralSystem)
try await peripheralSystem.startAdvertising(thermometer)

// Central: discover by protocol, resolve, call.
let found = try await centralSystem.discover($TemperatureSensor.self, timeout: 10, count: 1)  // the first one will do
guard let first = found.first else {
    print("error: no temperature sensor found within 10 s")
    exit(1)
}
print("found a temperature sensor: \(first.id)")
let sensor = try $TemperatureSensor.resolve(id: first.id, using: centralSystem)
for _ in 1...3 {
    print("temperature: \(try await sensor.getTemperature()) °C")
}
try await sensor.setUpdateInterval(5)
print("update interval set to 5 s")
do {
    try await sensor.setUpdateInterval(0)
} catch ThermometerError.intervalTooShort(let seconds) {  // the peripheral's error, as itself
    print("the thermometer refused an interval of \(seconds) s")
}
await peripheralSystem.stopAdvertising()
