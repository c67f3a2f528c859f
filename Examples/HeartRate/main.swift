// HeartRate — a typed heart-rate sensor and a typed central, with BleuGATT on the emulator.
//
// The peripheral hosts the Bluetooth SIG's Heart Rate Service from BleuGATT's catalogue with
// typed handlers; the central finds it by its service UUID, reads the body sensor location,
// subscribes to measurements (decoded into `HeartRateMeasurement` values) and writes the
// control point. Nothing here deals in bytes: the codecs of the catalogue do.
//
//     swift run HeartRate
//
// Any backend's managers will do in place of the emulated ones (BleuHCI's on a controller).

import BleuCore
import BleuEmulator
import BleuGATT
import Foundation
import Synchronization

let bus = EmulatorBus(configuration: .instant)  // an in-memory radio whose link takes no time

// Peripheral: host the Heart Rate Service with typed handlers, and advertise it.
let peripheral = EmulatedPeripheralManager(bus: bus)
let energy = Mutex<UInt16>(180)  // kilojoules expended; the control point resets it
let sensor = try await GATTServer(peripheral: peripheral).host(HeartRateService.self) { handlers in
    handlers.onRead(HeartRateService.bodySensorLocation) { _ in .wrist }
    handlers.onWrite(HeartRateService.controlPoint) { command, _ in
        if command == .resetEnergyExpended { energy.withLock { $0 = 0 } }
    }
}
try await peripheral.startAdvertising(AdvertisingData(localName: "Pulse", serviceUUIDs: [HeartRateService.uuid]))

// Central: scan for the service, connect, discover it with the characteristics the type declares.
let central = EmulatedCentralManager(bus: bus)
guard let found = try await central.scan(ScanOptions(services: [HeartRateService.uuid])).first(where: { _ in true }) else {
    print("error: the scan ended without finding a heart-rate sensor")
    exit(1)
}
await central.stopScan()
print("found \(found.localName ?? "a sensor") at \(found.rssi) dBm")
try await central.connect(found.peripheral)
let heartRate = try await GATTClient(central: central, peripheral: found.peripheral).discover(HeartRateService.self)
print("body sensor location: \(try await heartRate.read(HeartRateService.bodySensorLocation))")

// Subscribe, then let the sensor notify five measurements.
let beats = try await heartRate.subscribe(to: HeartRateService.measurement)
for (index, bpm) in [72, 75, 79, 83, 86].enumerated() {
    let expended = energy.withLock { value in
        value += 4
        return value
    }
    let measurement = HeartRateMeasurement(heartRate: UInt16(bpm), sensorContact: .detected,
                                           energyExpended: index == 0 ? expended : nil, rrIntervals: [UInt16(61_440 / bpm)])
    try await sensor.notify(HeartRateService.measurement, measurement)
}
var received = 0
for try await beat in beats {
    let energyText = beat.energyExpended.map { ", \($0) kJ" } ?? ""
    print("heart rate: \(beat.heartRate) bpm, RR \(beat.rrIntervalSeconds.map { String(format: "%.3f s", $0) })\(energyText)")
    received += 1
    if received == 5 { break }
}

// Reset the energy expended through the control point: a typed write, validated by the server.
try await heartRate.write(.resetEnergyExpended, to: HeartRateService.controlPoint)
print("energy expended after reset: \(energy.withLock { $0 }) kJ")
await central.cancelConnection(found.peripheral)
