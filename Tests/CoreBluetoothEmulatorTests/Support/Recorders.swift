import BleuCore
import CoreBluetoothEmulator
import Foundation

/// A central-side delegate (manager and peripherals) that logs every callback and keeps the
/// objects it was handed, for the tests to use.
final class CentralRecorder: EmulatedCBCentralManagerDelegate, EmulatedCBPeripheralDelegate, @unchecked Sendable {
    let log = CallbackLog()
    private let lock = NSLock()
    private var found: [UUID: EmulatedCBPeripheral] = [:]
    private var advertisements: [UUID: [String: Any]] = [:]
    private var restored: [String: Any]?
    private var channel: EmulatedCBL2CAPChannel?

    func peripheral(named name: String) -> EmulatedCBPeripheral? {
        lock.withLock { found.values.first { $0.name == name } }
    }

    func advertisement(of peripheral: EmulatedCBPeripheral) -> [String: Any]? {
        lock.withLock { advertisements[peripheral.identifier] }
    }

    var restoredState: [String: Any]? { lock.withLock { restored } }
    var openedChannel: EmulatedCBL2CAPChannel? { lock.withLock { channel } }

    func centralManagerDidUpdateState(_ central: EmulatedCBCentralManager) {
        log.append("state \(central.state.rawValue)")
    }

    func centralManager(_ central: EmulatedCBCentralManager, willRestoreState dict: [String: Any]) {
        lock.withLock { restored = dict }
        log.append("willRestoreState")
    }

    func centralManager(_ central: EmulatedCBCentralManager, didDiscover peripheral: EmulatedCBPeripheral,
                        advertisementData: [String: Any], rssi RSSI: NSNumber) {
        peripheral.delegate = self
        lock.withLock {
            found[peripheral.identifier] = peripheral
            advertisements[peripheral.identifier] = advertisementData
        }
        log.append("didDiscover \(peripheral.name ?? "-")")
    }

    func centralManager(_ central: EmulatedCBCentralManager, didConnect peripheral: EmulatedCBPeripheral) {
        log.append("didConnect \(peripheral.state == .connected)")
    }

    func centralManager(_ central: EmulatedCBCentralManager, didFailToConnect peripheral: EmulatedCBPeripheral,
                        error: (any Error)?) {
        log.append("didFailToConnect \(describe(error))")
    }

    func centralManager(_ central: EmulatedCBCentralManager, didDisconnectPeripheral peripheral: EmulatedCBPeripheral,
                        error: (any Error)?) {
        log.append("didDisconnect \(describe(error))")
    }

    func centralManager(_ central: EmulatedCBCentralManager, connectionEventDidOccur event: CBConnectionEvent,
                        for peripheral: EmulatedCBPeripheral) {
        log.append("connectionEvent \(event == .peerConnected ? "connected" : "disconnected")")
    }

    func centralManager(_ central: EmulatedCBCentralManager, didUpdateANCSAuthorizationFor peripheral: EmulatedCBPeripheral) {
        log.append("didUpdateANCSAuthorization")
    }

    func peripheral(_ peripheral: EmulatedCBPeripheral, didModifyServices invalidatedServices: [EmulatedCBService]) {
        log.append("didModifyServices \(invalidatedServices.count)")
    }

    func peripheral(_ peripheral: EmulatedCBPeripheral, didReadRSSI RSSI: NSNumber, error: (any Error)?) {
        log.append("didReadRSSI \(RSSI.intValue) \(describe(error))")
    }

    func peripheral(_ peripheral: EmulatedCBPeripheral, didDiscoverServices error: (any Error)?) {
        log.append("didDiscoverServices \((peripheral.services ?? []).map(\.uuid.uuidString).joined(separator: ",")) \(describe(error))")
    }

    func peripheral(_ peripheral: EmulatedCBPeripheral, didDiscoverIncludedServicesFor service: EmulatedCBService,
                    error: (any Error)?) {
        log.append("didDiscoverIncludedServices \((service.includedServices ?? []).map(\.uuid.uuidString).joined(separator: ",")) \(describe(error))")
    }

    func peripheral(_ peripheral: EmulatedCBPeripheral, didDiscoverCharacteristicsFor service: EmulatedCBService,
                    error: (any Error)?) {
        log.append("didDiscoverCharacteristics \((service.characteristics ?? []).map(\.uuid.uuidString).joined(separator: ",")) \(describe(error))")
    }

    func peripheral(_ peripheral: EmulatedCBPeripheral, didUpdateValueFor characteristic: EmulatedCBCharacteristic,
                    error: (any Error)?) {
        log.append("didUpdateValue \(characteristic.uuid.uuidString) \(characteristic.value.map { hexString($0) } ?? "nil") \(describe(error))")
    }

    func peripheral(_ peripheral: EmulatedCBPeripheral, didWriteValueFor characteristic: EmulatedCBCharacteristic,
                    error: (any Error)?) {
        log.append("didWrite \(characteristic.uuid.uuidString) \(describe(error))")
    }

    func peripheral(_ peripheral: EmulatedCBPeripheral, didUpdateNotificationStateFor characteristic: EmulatedCBCharacteristic,
                    error: (any Error)?) {
        log.append("didUpdateNotificationState \(characteristic.uuid.uuidString) \(characteristic.isNotifying) \(describe(error))")
    }

    func peripheral(_ peripheral: EmulatedCBPeripheral, didDiscoverDescriptorsFor characteristic: EmulatedCBCharacteristic,
                    error: (any Error)?) {
        log.append("didDiscoverDescriptors \((characteristic.descriptors ?? []).map(\.uuid.uuidString).joined(separator: ",")) \(describe(error))")
    }

    func peripheral(_ peripheral: EmulatedCBPeripheral, didUpdateValueFor descriptor: EmulatedCBDescriptor, error: (any Error)?) {
        log.append("didUpdateDescriptorValue \(descriptor.uuid.uuidString) \(descriptor.value.map { "\($0)" } ?? "nil") \(describe(error))")
    }

    func peripheral(_ peripheral: EmulatedCBPeripheral, didWriteValueFor descriptor: EmulatedCBDescriptor, error: (any Error)?) {
        log.append("didWriteDescriptor \(descriptor.uuid.uuidString) \(describe(error))")
    }

    func peripheralIsReady(toSendWriteWithoutResponse peripheral: EmulatedCBPeripheral) {
        log.append("isReadyToSendWriteWithoutResponse")
    }

    func peripheral(_ peripheral: EmulatedCBPeripheral, didOpen channel: EmulatedCBL2CAPChannel?, error: (any Error)?) {
        lock.withLock { self.channel = channel }
        log.append("didOpenChannel \(channel != nil) \(describe(error))")
    }
}

/// A peripheral-manager delegate that logs every callback, answers reads of dynamic
/// characteristics from `values`, and accepts writes (storing them in `values`).
final class PeripheralRecorder: EmulatedCBPeripheralManagerDelegate, @unchecked Sendable {
    let log = CallbackLog()
    private let lock = NSLock()
    private var stored: [String: Data] = [:]
    private var channel: EmulatedCBL2CAPChannel?
    private var restored: [String: Any]?
    /// When set, reads and writes are answered with this error instead.
    var refusal: CBATTError.Code? {
        get { lock.withLock { refusalCode } }
        set { lock.withLock { refusalCode = newValue } }
    }
    private var refusalCode: CBATTError.Code?

    func setValue(_ value: Data, for uuid: String) { lock.withLock { stored[uuid] = value } }
    func value(for uuid: String) -> Data? { lock.withLock { stored[uuid] } }
    var openedChannel: EmulatedCBL2CAPChannel? { lock.withLock { channel } }
    var restoredState: [String: Any]? { lock.withLock { restored } }

    func peripheralManagerDidUpdateState(_ peripheral: EmulatedCBPeripheralManager) {
        log.append("state \(peripheral.state.rawValue)")
    }

    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, willRestoreState dict: [String: Any]) {
        lock.withLock { restored = dict }
        log.append("willRestoreState")
    }

    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didAdd service: EmulatedCBService, error: (any Error)?) {
        log.append("didAdd \(service.uuid.uuidString) \(describe(error))")
    }

    func peripheralManagerDidStartAdvertising(_ peripheral: EmulatedCBPeripheralManager, error: (any Error)?) {
        log.append("didStartAdvertising \(describe(error))")
    }

    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, central: EmulatedCBCentral,
                           didSubscribeTo characteristic: EmulatedCBCharacteristic) {
        let count = (characteristic as? EmulatedCBMutableCharacteristic)?.subscribedCentrals?.count ?? -1
        log.append("didSubscribe \(characteristic.uuid.uuidString) \(count)")
    }

    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, central: EmulatedCBCentral,
                           didUnsubscribeFrom characteristic: EmulatedCBCharacteristic) {
        log.append("didUnsubscribe \(characteristic.uuid.uuidString)")
    }

    func peripheralManagerIsReady(toUpdateSubscribers peripheral: EmulatedCBPeripheralManager) {
        log.append("isReadyToUpdateSubscribers")
    }

    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didReceiveRead request: EmulatedCBATTRequest) {
        log.append("didReceiveRead \(request.characteristic.uuid.uuidString) \(request.offset)")
        if let refusal {
            peripheral.respond(to: request, withResult: refusal)
            return
        }
        let value = self.value(for: request.characteristic.uuid.uuidString) ?? Data()
        guard request.offset <= value.count else {
            peripheral.respond(to: request, withResult: .invalidOffset)
            return
        }
        request.value = value.subdata(in: request.offset..<value.count)
        peripheral.respond(to: request, withResult: .success)
    }

    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didReceiveWrite requests: [EmulatedCBATTRequest]) {
        log.append("didReceiveWrite \(requests.map { "\($0.characteristic.uuid.uuidString)@\($0.offset)=\(hexString($0.value ?? Data()))" }.joined(separator: " "))")
        guard let first = requests.first else { return }
        if let refusal {
            peripheral.respond(to: first, withResult: refusal)
            return
        }
        for request in requests {
            let uuid = request.characteristic.uuid.uuidString
            var value = self.value(for: uuid) ?? Data()
            if request.offset == 0 { value = Data() }
            value.append(request.value ?? Data())
            setValue(value, for: uuid)
        }
        peripheral.respond(to: first, withResult: .success)
    }

    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didPublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?) {
        log.append("didPublishL2CAPChannel \(PSM) \(describe(error))")
    }

    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didUnpublishL2CAPChannel PSM: CBL2CAPPSM,
                           error: (any Error)?) {
        log.append("didUnpublishL2CAPChannel \(PSM) \(describe(error))")
    }

    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didOpen channel: EmulatedCBL2CAPChannel?, error: (any Error)?) {
        lock.withLock { self.channel = channel }
        log.append("didOpenChannel \(channel != nil) \(describe(error))")
    }
}
