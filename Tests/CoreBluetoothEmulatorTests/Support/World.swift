import BleuCore
import CoreBluetoothEmulator
import Foundation

/// One isolated bus with a CoreBluetooth-style peripheral manager and central manager, each
/// with a recording delegate on its own serial queue, both powered on.
struct World {
    let bus: EmulatorBus
    let peripheral = PeripheralRecorder()
    let central = CentralRecorder()
    let peripheralQueue = DispatchQueue(label: "peripheral manager")
    let centralQueue = DispatchQueue(label: "central manager")
    let peripheralManager: EmulatedCBPeripheralManager
    let centralManager: EmulatedCBCentralManager

    init(_ configuration: EmulatorConfiguration = .instant, clock: any Clock<Duration> = ContinuousClock()) async {
        bus = EmulatorBus(configuration: configuration, clock: clock)
        peripheralManager = EmulatedCBPeripheralManager(delegate: peripheral, queue: peripheralQueue, bus: bus)
        centralManager = EmulatedCBCentralManager(delegate: central, queue: centralQueue, bus: bus)
        _ = await peripheral.log.next("state")
        _ = await central.log.next("state")
    }

    /// Waits until every callback queued so far on the central's queue has run.
    func settleCentral() {
        centralQueue.sync {}
    }

    /// Publishes `service` and waits for `didAdd`; returns its error text.
    @discardableResult
    func publish(_ service: EmulatedCBMutableService) async -> String {
        peripheralManager.add(service)
        return await peripheral.log.next("didAdd")
    }

    /// Advertises `data` and waits for `didStartAdvertising`.
    @discardableResult
    func advertise(_ data: [String: Any]) async -> String {
        peripheralManager.startAdvertising(data)
        return await peripheral.log.next("didStartAdvertising")
    }

    /// Discovers `service` on a connected peripheral and its characteristics (all of them) and
    /// returns the characteristics, in handle order.
    func characteristics(of service: String, on peripheral: EmulatedCBPeripheral) async throws -> [EmulatedCBCharacteristic] {
        peripheral.discoverServices([CBUUID(string: service)])
        _ = await central.log.next("didDiscoverServices")
        let found = try #require(peripheral.services?.first { $0.uuid == CBUUID(string: service) })
        peripheral.discoverCharacteristics(nil, for: found)
        _ = await central.log.next("didDiscoverCharacteristics")
        return try #require(found.characteristics)
    }

    /// The characteristic `uuid` of `service` on a connected peripheral, discovered.
    func characteristic(_ uuid: String, of service: String, on peripheral: EmulatedCBPeripheral) async throws -> EmulatedCBCharacteristic {
        try #require(try await characteristics(of: service, on: peripheral).first { $0.uuid == CBUUID(string: uuid) })
    }

    /// Scans, finds the peripheral advertising `name`, connects and returns it connected.
    func connect(to name: String) async throws -> EmulatedCBPeripheral {
        centralManager.scanForPeripherals(withServices: nil)
        _ = await central.log.next("didDiscover \(name)")
        centralManager.stopScan()
        let found = try #require(central.peripheral(named: name))
        centralManager.connect(found)
        #expect(await central.log.next("didConnect") == "didConnect true")
        return found
    }
}

import Testing

/// The heart-rate-like service most tests use: a dynamic readable/notifying measurement
/// (2A37), a writable control point (2A39), a static read-only body location (2A38) with a
/// user description, and a write-without-response characteristic (2A3A).
func heartRateService() -> (EmulatedCBMutableService, measurement: EmulatedCBMutableCharacteristic) {
    let service = EmulatedCBMutableService(type: CBUUID(string: "180D"), primary: true)
    let measurement = EmulatedCBMutableCharacteristic(type: CBUUID(string: "2A37"), properties: [.read, .notify],
                                                      value: nil, permissions: [.readable])
    let control = EmulatedCBMutableCharacteristic(type: CBUUID(string: "2A39"), properties: [.write], value: nil,
                                                  permissions: [.writeable])
    let location = EmulatedCBMutableCharacteristic(type: CBUUID(string: "2A38"), properties: [.read], value: Data([0x01]),
                                                   permissions: [.readable])
    location.descriptors = [EmulatedCBMutableDescriptor(type: CBUUID(string: "2901"), value: "Wrist")]
    let stream = EmulatedCBMutableCharacteristic(type: CBUUID(string: "2A3A"), properties: [.writeWithoutResponse],
                                                 value: nil, permissions: [.writeable])
    service.characteristics = [measurement, control, location, stream]
    return (service, measurement)
}
