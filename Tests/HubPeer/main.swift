// bleu-hub-peer ENDPOINT [TOKEN]: the peripheral half of the cross-process tests. It joins a
// hub as its own process and hosts, on two emulated peripherals of that medium:
// - BleuTesting's example actors (counter, failing, streaming, holding) on an actor system;
// - a typed heart-rate sensor ("Hub peer sensor"): Heart Rate (body sensor location: chest;
//   50 measurements, 60…109 bpm, notified to each central that subscribes) and Battery (87 %).
// It prints "ready" once both advertise, and "holding" when a call of HoldingActor starts, so a
// test can kill it mid-call. Not a product: a test peer built beside the tests.
import Bleu
import BleuCore
import BleuEmulator
import BleuEmulatorHub
import BleuGATT
import BleuTesting
import Foundation

/// Writes a line at once (not through stdio's buffer): the parent process waits for it.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments.dropFirst()
guard let endpoint = arguments.first else {
    FileHandle.standardError.write(Data("usage: bleu-hub-peer ENDPOINT [TOKEN]\n".utf8))
    exit(2)
}
let bus = try await EmulatorBus(connectingTo: endpoint, token: arguments.dropFirst().first)

let system = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus))
let actors: [any PeripheralActor] = [
    CounterActor(actorSystem: system), FailingActor(actorSystem: system), StreamingSensorActor(actorSystem: system),
    HoldingActor(actorSystem: system, onCall: { say("holding") }),
]
try await system.startAdvertising(actors)

let sensorRadio = EmulatedPeripheralManager(bus: bus)
let server = GATTServer(peripheral: sensorRadio)
let heartRate = try await server.host(HeartRateService.self) { handlers in
    handlers.onRead(HeartRateService.bodySensorLocation) { _ in .chest }
}
let battery = try await server.host(BatteryService.self)
try battery.setValue(87, for: BatteryService.level)
let measurement = try heartRate.published(HeartRateService.measurement)
let subscriptions = sensorRadio.events()
let notifier = Task.detached {
    for await case .subscribed(let central, let characteristic) in subscriptions where characteristic.valueHandle == measurement.valueHandle {
        for beat in 60..<110 {
            try await heartRate.notify(HeartRateService.measurement, HeartRateMeasurement(heartRate: UInt16(beat)), to: [central])
        }
    }
}
try await sensorRadio.startAdvertising(AdvertisingData(flags: .leGeneralDiscoverable, localName: "Hub peer sensor"))
say("ready")

// Until standard input closes (the parent ends it, or dies), read on a thread of its own.
await withCheckedContinuation { (ended: CheckedContinuation<Void, Never>) in
    Thread {
        while FileHandle.standardInput.availableData.count > 0 {}
        ended.resume()
    }.start()
}
notifier.cancel()
