// SensorFleet — emulated sensors kept connected by BleuOrchestration's FleetOrchestrator.
//
// Three sensors send three readings (BleuWire-framed) to every central that subscribes. The
// orchestrator pins them all: it connects, subscribes and delivers whole messages as events.
// Then one sensor's link is lost; the orchestrator reconnects it and its readings resume.
// Exits 0 once every reading arrived, 1 after 10 s without.
//
//     swift run SensorFleet

import BleuCore
import BleuEmulator
import BleuGATT
import BleuOrchestration
import BleuWire
import Foundation
import Logging

enum SensorService: GATTService {
    static let uuid: BluetoothUUID = "5E750001-6A3B-4C2D-9E1F-0A1B2C3D4E5F"
    static let readings = Characteristic<Data>("5E750002-6A3B-4C2D-9E1F-0A1B2C3D4E5F", codec: .data, properties: [.notify])
    static var characteristics: [CharacteristicDeclaration] { readings }
}
/// A sensor: on every subscription, three readings in 20-byte fragments (they fit any ATT MTU).
func startSensor(_ name: String, on bus: EmulatorBus) async throws {
    let peripheral = EmulatedPeripheralManager(bus: bus)
    let sensor = try await GATTServer(peripheral: peripheral).host(SensorService.self)
    let events = peripheral.events()
    try await peripheral.startAdvertising(AdvertisingData(localName: name, serviceUUIDs: [SensorService.uuid]))
    Task {
        var fragmenter = Fragmenter()  // BleuWire's compact framing, which the orchestrator reassembles
        var number = 0
        for await case .subscribed(let central, _) in events {
            for _ in 1...3 {
                number += 1
                let text = "\(name) #\(number): \(String(format: "%.2f", 20 + Double(number) / 4)) °C"
                for fragment in try fragmenter.fragments(of: Array(text.utf8), maximumFragmentLength: 20) {
                    try await sensor.notify(SensorService.readings, Data(fragment), to: [central])
                }
            }
        }
    }
}

let bus = EmulatorBus(configuration: .instant)  // an in-memory radio whose link takes no time
let sensorCount = 3
for number in 1...sensorCount { try await startSensor("thermo-\(number)", on: bus) }
let central = EmulatedCentralManager(bus: bus)
var names: [UUID: String] = [:]  // the sensors' identifiers, as this central knows them
for try await found in try await central.scan(ScanOptions(services: [SensorService.uuid])) {
    names[found.peripheral] = found.localName
    if names.count == sensorCount { break }
}
await central.stopScan()
var logger = Logger(label: "sensor-fleet")
logger.logLevel = .error  // the example prints what matters itself
let profile = DeviceProfile(service: SensorService.uuid, subscriptions: [SensorService.readings.uuid], writeCharacteristic: nil)
let pinned = InMemoryPinnedDeviceStore(Set(names.keys))  // start() pins what the store holds
let fleet = FleetOrchestrator(central: central, configuration: .init(profile: profile), logger: logger, store: pinned)
let events = fleet.events()
await fleet.start()
Task { try await Task.sleep(for: .seconds(10)); print("error: readings missing after 10 s"); exit(1) }  // a bound, not a wait
let victim = names.first { $0.value == "thermo-2" }!.key
var received: [UUID: Int] = [:]
for await event in events {
    switch event {
    case .ready(let id, let latency): print("\(names[id]!) ready after \(latency)")
    case .stateChanged(let id, let from, let to, _) where from.isUsable && !to.isUsable: print("\(names[id]!) lost its link: \(to)")
    case .message(let id, _, let data):
        print("\(names[id]!) says \(String(decoding: data, as: UTF8.self))")
        received[id, default: 0] += 1
        if received.count == sensorCount, received.values.allSatisfy({ $0 == 3 }) {
            bus.loseLink(between: central, and: victim)  // the orchestrator reconnects and subscribes again
        }
    default: break
    }
    if received[victim] == 6 { break }
}
await fleet.shutdown()
print("every reading arrived, \(names[victim]!)'s last three after its reconnection")
