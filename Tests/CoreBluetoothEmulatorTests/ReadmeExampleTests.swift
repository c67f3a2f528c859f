// The CoreBluetoothEmulator package's README examples — its heart-rate peripheral and central,
// delegate style — as a user of that package wrote them, run on Bleu's emulator. Where the
// README does something CoreBluetooth itself refuses, the code follows CoreBluetooth and a
// comment says what changed (the porting guide lists the same points):
// 1. services are added and advertising starts once the manager is powered on, not right
//    after creating it;
// 2. the managers are created on the main thread, as an app does, since their callbacks come
//    on the main queue (the README created them from a task: a callback could run first);
// 3. reads and writes of a dynamic characteristic are answered with respond(to:withResult:)
//    (the README leaves them unanswered: a real central would wait for the ATT timeout).
import CoreBluetoothEmulator
import Foundation
import Testing
#if canImport(CoreBluetooth)
import CoreBluetooth
#endif

private final class MyPeripheralManager: EmulatedCBPeripheralManagerDelegate, @unchecked Sendable {
    var peripheralManager: EmulatedCBPeripheralManager!
    var heartRateCharacteristic: EmulatedCBMutableCharacteristic!
    let log = CallbackLog()
    var heartRate: UInt8 = 72

    @MainActor func setup() async {
        await EmulatorBus.shared.configure(.instant)
        peripheralManager = EmulatedCBPeripheralManager(delegate: self, queue: nil)
    }

    // (1) What the README's setup() did after creating the manager, once it is powered on.
    private func publish() {
        let service = EmulatedCBMutableService(type: CBUUID(string: "180D"), primary: true)
        heartRateCharacteristic = EmulatedCBMutableCharacteristic(
            type: CBUUID(string: "2A37"), properties: [.read, .notify], value: nil, permissions: [.readable])
        let controlCharacteristic = EmulatedCBMutableCharacteristic(
            type: CBUUID(string: "2A39"), properties: [.write], value: nil, permissions: [.writeable])
        service.characteristics = [heartRateCharacteristic, controlCharacteristic]
        peripheralManager.add(service)
        peripheralManager.startAdvertising([
            CBAdvertisementDataLocalNameKey: "Heart Rate Monitor",
            CBAdvertisementDataServiceUUIDsKey: [service.uuid],
            CBAdvertisementDataManufacturerDataKey: Data([0x4C, 0x00, 0x01, 0x02]),
            CBAdvertisementDataTxPowerLevelKey: NSNumber(value: -20),
            CBAdvertisementDataIsConnectable: NSNumber(value: true),
        ])
    }

    func peripheralManagerDidUpdateState(_ peripheral: EmulatedCBPeripheralManager) {
        log.append("state \(peripheral.state.rawValue)")
        if peripheral.state == .poweredOn { publish() }
    }

    func peripheralManagerDidStartAdvertising(_ peripheral: EmulatedCBPeripheralManager, error: Error?) {
        log.append(error == nil ? "Advertising started" : "Advertising failed: \(String(describing: error))")
    }

    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didAdd service: EmulatedCBService, error: Error?) {
        log.append(error == nil ? "Service added: \(service.uuid.uuidString)" : "Failed to add service: \(String(describing: error))")
    }

    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, central: EmulatedCBCentral,
                           didSubscribeTo characteristic: EmulatedCBCharacteristic) {
        log.append("Central subscribed to \(characteristic.uuid.uuidString)")
        sendHeartRateUpdate()
    }

    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didReceiveRead request: EmulatedCBATTRequest) {
        log.append("Received read request for \(request.characteristic.uuid.uuidString)")
        // (3) Answer the read.
        request.value = Data([0x00, heartRate])
        peripheral.respond(to: request, withResult: .success)
    }

    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didReceiveWrite requests: [EmulatedCBATTRequest]) {
        for request in requests {
            if let value = request.value {
                handleControlCommand(value)
            }
        }
        // (3) Answer the write.
        if let first = requests.first { peripheral.respond(to: first, withResult: .success) }
    }

    func sendHeartRateUpdate() {
        heartRate += 1
        let data = Data([0x00, heartRate])
        let success = peripheralManager.updateValue(data, for: heartRateCharacteristic, onSubscribedCentrals: nil)
        log.append(success ? "Sent heart rate: \(heartRate) bpm" : "Failed to send - queue full")
    }

    func handleControlCommand(_ data: Data) {
        log.append("Processing command: \(data.map { String(format: "%02x", $0) }.joined())")
    }
}

private final class MyCentralManager: EmulatedCBCentralManagerDelegate, EmulatedCBPeripheralDelegate, @unchecked Sendable {
    var centralManager: EmulatedCBCentralManager!
    var discoveredPeripheral: EmulatedCBPeripheral?
    var heartRateCharacteristic: EmulatedCBCharacteristic?
    let log = CallbackLog()

    @MainActor func setup() async {
        centralManager = EmulatedCBCentralManager(delegate: self, queue: nil)
    }

    func startScanning() {
        centralManager.scanForPeripherals(withServices: [CBUUID(string: "180D")],
                                          options: [CBCentralManagerScanOptionAllowDuplicatesKey: false])
    }

    func centralManagerDidUpdateState(_ central: EmulatedCBCentralManager) {
        if central.state == .poweredOn { startScanning() }
    }

    func centralManager(_ central: EmulatedCBCentralManager, didDiscover peripheral: EmulatedCBPeripheral,
                        advertisementData: [String: Any], rssi RSSI: NSNumber) {
        if let name = advertisementData[CBAdvertisementDataLocalNameKey] as? String { log.append("Name: \(name)") }
        if let services = advertisementData[CBAdvertisementDataServiceUUIDsKey] as? [CBUUID] {
            log.append("Services: \(services.map(\.uuidString))")
        }
        if let manufacturerData = advertisementData[CBAdvertisementDataManufacturerDataKey] as? Data {
            log.append("Manufacturer: \(manufacturerData.map { String(format: "%02x", $0) }.joined())")
        }
        discoveredPeripheral = peripheral
        centralManager.stopScan()
        centralManager.connect(peripheral, options: nil)
    }

    func centralManager(_ central: EmulatedCBCentralManager, didConnect peripheral: EmulatedCBPeripheral) {
        log.append("Connected to \(peripheral.name ?? "Unknown")")
        peripheral.delegate = self
        peripheral.discoverServices([CBUUID(string: "180D")])
    }

    func peripheral(_ peripheral: EmulatedCBPeripheral, didDiscoverServices error: Error?) {
        guard error == nil, let services = peripheral.services else { return }
        for service in services {
            peripheral.discoverCharacteristics(nil, for: service)
        }
    }

    func peripheral(_ peripheral: EmulatedCBPeripheral, didDiscoverCharacteristicsFor service: EmulatedCBService, error: Error?) {
        guard error == nil, let characteristics = service.characteristics else { return }
        for characteristic in characteristics where characteristic.uuid == CBUUID(string: "2A37") {
            heartRateCharacteristic = characteristic
            if characteristic.properties.contains(.read) { peripheral.readValue(for: characteristic) }
            if characteristic.properties.contains(.notify) { peripheral.setNotifyValue(true, for: characteristic) }
        }
    }

    func peripheral(_ peripheral: EmulatedCBPeripheral, didUpdateValueFor characteristic: EmulatedCBCharacteristic, error: Error?) {
        guard error == nil, let data = characteristic.value else { return }
        if characteristic.uuid == CBUUID(string: "2A37"), data.count >= 2 {
            log.append("Heart Rate: \(data[1]) bpm")
        }
    }

    func peripheral(_ peripheral: EmulatedCBPeripheral, didWriteValueFor characteristic: EmulatedCBCharacteristic, error: Error?) {
        log.append(error == nil ? "Write succeeded" : "Write failed: \(String(describing: error))")
    }

    func peripheral(_ peripheral: EmulatedCBPeripheral, didUpdateNotificationStateFor characteristic: EmulatedCBCharacteristic,
                    error: Error?) {
        log.append("Notifications \(characteristic.isNotifying ? "enabled" : "disabled")")
    }

    func writeControlCommand(_ command: Data) {
        guard let peripheral = discoveredPeripheral,
              let service = peripheral.services?.first,
              let controlChar = service.characteristics?.first(where: { $0.uuid == CBUUID(string: "2A39") }) else {
            return
        }
        peripheral.writeValue(command, for: controlChar, type: .withResponse)
    }
}

@Suite("The CoreBluetoothEmulator README's heart-rate example, on EmulatorBus.shared", .serialized, .timeLimit(.minutes(1)))
struct ReadmeExampleTests {
    @Test("the peripheral publishes and advertises, the central finds it, reads, subscribes, hears notifications and writes")
    func heartRateExample() async throws {
        await EmulatorBus.shared.reset()
        let peripheral = MyPeripheralManager()
        await peripheral.setup()
        #expect(await peripheral.log.next() == "state 5")
        #expect(await peripheral.log.next() == "Service added: 180D")
        #expect(await peripheral.log.next() == "Advertising started")

        let central = MyCentralManager()
        await central.setup()
        #expect(await central.log.next() == "Name: Heart Rate Monitor")
        #expect(await central.log.next() == "Services: [\"180D\"]")
        #expect(await central.log.next() == "Manufacturer: 4c000102")
        #expect(await central.log.next() == "Connected to Heart Rate Monitor")
        #expect(await central.log.next() == "Heart Rate: 72 bpm")       // the read
        #expect(await central.log.next() == "Notifications enabled")
        #expect(await central.log.next() == "Heart Rate: 73 bpm")       // the notification sent on subscription
        #expect(await peripheral.log.next("Received read request") == "Received read request for 2A37")
        #expect(await peripheral.log.next("Central subscribed") == "Central subscribed to 2A37")
        #expect(await peripheral.log.next("Sent heart rate") == "Sent heart rate: 73 bpm")

        await MainActor.run { central.writeControlCommand(Data([0x01])) }
        #expect(await central.log.next() == "Write succeeded")
        #expect(await peripheral.log.next("Processing command") == "Processing command: 01")
    }
}
