import BleuCore
import CoreBluetoothVocabulary
import Foundation

// The GATT operations of a central manager, started on its queue, and the `CBPeripheralDelegate`
// callbacks that complete them. Each kind of operation waits in a first-in, first-out list per
// peripheral and attribute: CoreBluetooth completes operations of one kind on one attribute in
// the order they were issued.
extension CentralCore {
    // MARK: Discovery

    func discoverServices(_ uuids: [BluetoothUUID]?, on id: UUID, _ waiter: Waiter<[RemoteService]>) {
        guard let entry = connected(id).ready(waiter) else { return }
        entry.serviceDiscoveries.append((uuids, waiter))
        entry.peripheral.discoverServices(uuids?.map { CBUUID($0) })
    }

    func discoverIncludedServices(_ uuids: [BluetoothUUID]?, for service: RemoteService, _ waiter: Waiter<[RemoteService]>) {
        guard let entry = connected(service.peripheral).ready(waiter) else { return }
        guard let object = entry.services[service.handle]?.object else { return waiter.fail(.serviceNotFound(service.uuid)) }
        entry.includedDiscoveries[service.handle, default: []].append((uuids, waiter))
        entry.peripheral.discoverIncludedServices(uuids?.map { CBUUID($0) }, for: object)
    }

    func discoverCharacteristics(_ uuids: [BluetoothUUID]?, for service: RemoteService,
                                 _ waiter: Waiter<[RemoteCharacteristic]>) {
        guard let entry = connected(service.peripheral).ready(waiter) else { return }
        guard let object = entry.services[service.handle]?.object else { return waiter.fail(.serviceNotFound(service.uuid)) }
        entry.characteristicDiscoveries[service.handle, default: []].append((uuids, waiter))
        entry.peripheral.discoverCharacteristics(uuids?.map { CBUUID($0) }, for: object)
    }

    func discoverDescriptors(for characteristic: RemoteCharacteristic, _ waiter: Waiter<[RemoteDescriptor]>) {
        guard let entry = connected(characteristic.peripheral).ready(waiter),
              let object = entry.characteristic(characteristic, waiter) else { return }
        entry.descriptorDiscoveries[characteristic.valueHandle, default: []].append(waiter)
        entry.peripheral.discoverDescriptors(for: object)
    }

    // MARK: Reading and writing

    func read(_ characteristic: RemoteCharacteristic, _ waiter: Waiter<Data>) {
        guard let entry = connected(characteristic.peripheral).ready(waiter),
              let object = entry.characteristic(characteristic, waiter) else { return }
        entry.reads[characteristic.valueHandle, default: []].append(waiter)
        entry.peripheral.readValue(for: object)
    }

    func write(_ value: Data, to characteristic: RemoteCharacteristic, type: WriteType, _ waiter: Waiter<Void>) {
        guard let entry = connected(characteristic.peripheral).ready(waiter),
              let object = entry.characteristic(characteristic, waiter) else { return }
        let peripheral = entry.peripheral
        switch type {
        case .withResponse:
            guard characteristic.properties.contains(.write) else {
                return waiter.fail(.notSupported(.characteristicProperties(characteristic.uuid, characteristic.properties, .write)))
            }
            let maximum = peripheral.maximumWriteValueLength(for: .withResponse)
            guard value.count <= maximum else { return waiter.fail(.valueTooLong(length: value.count, maximum: maximum)) }
            entry.writes[characteristic.valueHandle, default: []].append(waiter)
            peripheral.writeValue(value, for: object, type: .withResponse)
        case .withoutResponse:
            guard characteristic.properties.contains(.writeWithoutResponse) else {
                return waiter.fail(.notSupported(.characteristicProperties(characteristic.uuid, characteristic.properties, .writeWithoutResponse)))
            }
            let maximum = peripheral.maximumWriteValueLength(for: .withoutResponse)
            guard value.count <= maximum else { return waiter.fail(.valueTooLong(length: value.count, maximum: maximum)) }
            // CoreBluetooth drops a write without response sent while it cannot take one:
            // refuse it instead, so the caller waits for `readyToSendWriteWithoutResponse`.
            guard peripheral.canSendWriteWithoutResponse else { return waiter.fail(.sendQueueFull(entry.id)) }
            peripheral.writeValue(value, for: object, type: .withoutResponse)
            waiter.succeed()
        }
    }

    func canSendWriteWithoutResponse(to id: UUID) -> Bool {
        guard case .success(let entry) = connected(id) else { return false }
        return entry.peripheral.canSendWriteWithoutResponse
    }

    func read(_ descriptor: RemoteDescriptor, _ waiter: Waiter<Data>) {
        guard let entry = connected(descriptor.peripheral).ready(waiter),
              let object = entry.descriptor(descriptor, waiter) else { return }
        entry.descriptorReads[descriptor.handle, default: []].append(waiter)
        entry.peripheral.readValue(for: object)
    }

    func write(_ value: Data, to descriptor: RemoteDescriptor, _ waiter: Waiter<Void>) {
        guard let entry = connected(descriptor.peripheral).ready(waiter),
              let object = entry.descriptor(descriptor, waiter) else { return }
        guard descriptor.uuid != BluetoothUUID.Descriptor.clientCharacteristicConfiguration else {
            return waiter.fail(.notSupported(.clientConfigurationWrite))
        }
        entry.descriptorWrites[descriptor.handle, default: []].append(waiter)
        entry.peripheral.writeValue(value, for: object)
    }

    // MARK: Notifications

    func subscribe(to characteristic: RemoteCharacteristic, _ waiter: Waiter<AsyncThrowingStream<Data, any Error>>) {
        guard let entry = connected(characteristic.peripheral).ready(waiter),
              let object = entry.characteristic(characteristic, waiter) else { return }
        enable(.stream(waiter), characteristic, object, entry)
    }

    func subscribe(to characteristic: RemoteCharacteristic, receive: @escaping @Sendable (ValueDelivery) -> Void,
                   _ waiter: Waiter<ValueSubscription>) {
        guard let entry = connected(characteristic.peripheral).ready(waiter),
              let object = entry.characteristic(characteristic, waiter) else { return }
        enable(.receiver(waiter, receive), characteristic, object, entry)
    }

    /// Turns notifications on for a subscribe call, or joins it to those already on (or being
    /// turned on).
    private func enable(_ enabling: PeripheralEntry.Enabling, _ characteristic: RemoteCharacteristic, _ object: CBCharacteristic,
                        _ entry: PeripheralEntry) {
        guard !characteristic.properties.isDisjoint(with: [.notify, .indicate]) else {
            return enabling.fail(.notSupported(.characteristicProperties(characteristic.uuid, characteristic.properties, .subscribe)))
        }
        let handle = characteristic.valueHandle
        var changes = entry.notifyChanges[handle] ?? []
        if changes.isEmpty, entry.subscriptions[handle]?.enabled == true {
            // Already on: another subscriber of the same values.
            return complete(enabling, entry, valueHandle: handle)
        }
        if case .enable(let enablings)? = changes.last {
            // An enable is under way: its confirmation answers this call too.
            changes[changes.count - 1] = .enable(enablings + [enabling])
            entry.notifyChanges[handle] = changes
            return
        }
        entry.notifyChanges[handle, default: []].append(.enable([enabling]))
        entry.peripheral.setNotifyValue(true, for: object)
    }

    /// Notifications are on: the call gets its stream, or its receiver is filed.
    private func complete(_ enabling: PeripheralEntry.Enabling, _ entry: PeripheralEntry, valueHandle: UInt16) {
        switch enabling {
        case .stream(let waiter): waiter.succeed(makeValueStream(entry, valueHandle: valueHandle))
        case .receiver(let waiter, let receive): waiter.succeed(makeReceiver(entry, valueHandle: valueHandle, receive))
        }
    }

    func unsubscribe(from characteristic: RemoteCharacteristic, _ waiter: Waiter<Void>) {
        guard let entry = connected(characteristic.peripheral).ready(waiter),
              let object = entry.characteristic(characteristic, waiter) else { return }
        let handle = characteristic.valueHandle
        guard entry.subscriptions[handle] != nil || entry.notifyChanges[handle]?.isEmpty == false else {
            return waiter.succeed()  // not subscribed: nothing to turn off
        }
        entry.notifyChanges[handle, default: []].append(.disable(waiter))
        entry.peripheral.setNotifyValue(false, for: object)
    }

    // MARK: Link properties

    func maximumWriteValueLength(for id: UUID, type: WriteType) -> Result<Int, BleuError> {
        connected(id).map { $0.peripheral.maximumWriteValueLength(for: type == .withResponse ? .withResponse : .withoutResponse) }
    }

    func readRSSI(of id: UUID, _ waiter: Waiter<Int>) {
        guard let entry = connected(id).ready(waiter) else { return }
        entry.rssiReads.append(waiter)
        entry.peripheral.readRSSI()
    }

    // MARK: L2CAP

    func openL2CAPChannel(psm: UInt16, on id: UUID, _ waiter: Waiter<any L2CAPChannel>) {
        guard let entry = connected(id).ready(waiter) else { return }
        entry.channelOpens.append((psm, waiter))
        entry.peripheral.openL2CAPChannel(psm)
    }
}

// MARK: - CBPeripheralDelegate

extension CentralCore: CBPeripheralDelegate {
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        let entry = entry(for: peripheral)
        guard let pending = entry.serviceDiscoveries.popFirst() else { return }
        if let error { return fail(pending.waiter, with: error, from: entry, during: .discoverServices) }
        let all = peripheral.services ?? []
        let found = all.map { entry.register(service: $0, among: all, includedBy: nil) }
        pending.waiter.succeed(found.filter { pending.filter?.contains($0.uuid) ?? true })
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverIncludedServicesFor service: CBService, error: (any Error)?) {
        let entry = entry(for: peripheral)
        guard let handle = entry.handle(of: service), let pending = entry.includedDiscoveries[handle]?.popFirst() else { return }
        if let error { return fail(pending.waiter, with: error, from: entry, during: .discoverIncludedServices) }
        let all = service.includedServices ?? []
        let found = all.map { entry.register(service: $0, among: all, includedBy: handle) }
        pending.waiter.succeed(found.filter { pending.filter?.contains($0.uuid) ?? true })
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        let entry = entry(for: peripheral)
        guard let handle = entry.handle(of: service), let pending = entry.characteristicDiscoveries[handle]?.popFirst() else { return }
        if let error { return fail(pending.waiter, with: error, from: entry, during: .discoverCharacteristics) }
        let all = service.characteristics ?? []
        let found = all.map { entry.register(characteristic: $0, among: all, service: handle) }
        pending.waiter.succeed(found.filter { pending.filter?.contains($0.uuid) ?? true })
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: (any Error)?) {
        let entry = entry(for: peripheral)
        guard let handle = entry.valueHandle(of: characteristic),
              let waiter = entry.descriptorDiscoveries[handle]?.popFirst() else { return }
        if let error { return fail(waiter, with: error, from: entry, during: .discoverDescriptors) }
        let all = characteristic.descriptors ?? []
        waiter.succeed(all.map { entry.register(descriptor: $0, among: all, characteristic: handle) })
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?) {
        let entry = entry(for: peripheral)
        guard let handle = entry.valueHandle(of: characteristic) else { return }
        // CoreBluetooth reports a read's value and a notified one alike. A waiting read takes
        // the value; so do the subscribers while notifications are on, so no notified value
        // is lost to a read issued at the same time.
        if let waiter = entry.reads[handle]?.popFirst() {
            if let error { return fail(waiter, with: error, from: entry, during: .read) }
            waiter.succeed(characteristic.value ?? Data())
        }
        guard error == nil, characteristic.isNotifying, entry.subscriptions[handle]?.enabled == true else { return }
        deliver(characteristic.value ?? Data(), to: entry, valueHandle: handle)
    }

    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?) {
        let entry = entry(for: peripheral)
        guard let handle = entry.valueHandle(of: characteristic), let waiter = entry.writes[handle]?.popFirst() else { return }
        if let error { return fail(waiter, with: error, from: entry, during: .write) }
        waiter.succeed()
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor descriptor: CBDescriptor, error: (any Error)?) {
        let entry = entry(for: peripheral)
        guard let handle = entry.handle(of: descriptor), let waiter = entry.descriptorReads[handle]?.popFirst() else { return }
        if let error { return fail(waiter, with: error, from: entry, during: .readDescriptor) }
        guard let bytes = descriptorBytes(fromCoreBluetooth: descriptor.value, type: BluetoothUUID(descriptor.uuid)) else {
            return waiter.fail(.invalidData(.descriptorValue(BluetoothUUID(descriptor.uuid))))
        }
        waiter.succeed(bytes)
    }

    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor descriptor: CBDescriptor, error: (any Error)?) {
        let entry = entry(for: peripheral)
        guard let handle = entry.handle(of: descriptor), let waiter = entry.descriptorWrites[handle]?.popFirst() else { return }
        if let error { return fail(waiter, with: error, from: entry, during: .writeDescriptor) }
        waiter.succeed()
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic,
                    error: (any Error)?) {
        let entry = entry(for: peripheral)
        guard let handle = entry.valueHandle(of: characteristic),
              let change = entry.notifyChanges[handle]?.popFirst() else { return }
        switch change {
        case .enable(let enablings):
            if let error {
                for enabling in enablings {
                    switch enabling {
                    case .stream(let waiter): fail(waiter, with: error, from: entry, during: .subscribe)
                    case .receiver(let waiter, _): fail(waiter, with: error, from: entry, during: .subscribe)
                    }
                }
                return
            }
            if entry.subscriptions[handle] == nil, let remote = entry.characteristics[handle]?.remote {
                entry.subscriptions[handle] = PeripheralEntry.Subscription(characteristic: remote)
            }
            entry.subscriptions[handle]?.enabled = true
            for enabling in enablings where enabling.isWaiting {
                complete(enabling, entry, valueHandle: handle)
            }
        case .disable(let waiter):
            if let error { return fail(waiter, with: error, from: entry, during: .unsubscribe) }
            for subscriber in entry.subscriptions.removeValue(forKey: handle)?.subscribers.values.map({ $0 }) ?? [] {
                subscriber.end(nil)
            }
            waiter.succeed()
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didReadRSSI RSSI: NSNumber, error: (any Error)?) {
        let entry = entry(for: peripheral)
        guard let waiter = entry.rssiReads.popFirst() else { return }
        if let error { return fail(waiter, with: error, from: entry, during: .readRSSI) }
        waiter.succeed(RSSI.intValue)
    }

    func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) {
        events.yield(.readyToSendWriteWithoutResponse(peripheral.identifier))
    }

    func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {
        let entry = entry(for: peripheral)
        for service in invalidatedServices {
            guard let handle = entry.handle(of: service) else { continue }
            for valueHandle in entry.forget(serviceHandle: handle) {
                // The characteristic is gone: its streams end, and subscribing again needs a
                // new discovery.
                for subscriber in entry.subscriptions.removeValue(forKey: valueHandle)?.subscribers.values.map({ $0 }) ?? [] {
                    subscriber.end(BleuError.invalidState(.servicesChanged(entry.id)))
                }
            }
        }
        events.yield(.servicesChanged(entry.id))
    }

    func peripheral(_ peripheral: CBPeripheral, didOpen channel: CBL2CAPChannel?, error: (any Error)?) {
        let entry = entry(for: peripheral)
        let index = channel.flatMap { opened in entry.channelOpens.firstIndex { $0.psm == opened.psm } } ?? 0
        guard index < entry.channelOpens.count else { return }
        let (psm, waiter) = entry.channelOpens.remove(at: index)
        if let error { return fail(waiter, with: error, from: entry, during: .openChannel(psm: psm)) }
        guard let channel else { return waiter.fail(.invalidState(.unexpectedOutcome(.openChannel(psm: psm)))) }
        let opened = CoreBluetoothL2CAPChannel(channel, peer: entry.id, queue: queue)
        entry.channels.append(WeakChannel(channel: opened.core))
        waiter.succeed(opened)
    }
}

// MARK: - Helpers

extension Result where Failure == BleuError {
    /// The value, or `nil` after failing `waiter` with the error.
    func ready<Value>(_ waiter: Waiter<Value>) -> Success? {
        switch self {
        case .success(let value): return value
        case .failure(let error):
            waiter.fail(error)
            return nil
        }
    }
}

extension PeripheralEntry {
    /// CoreBluetooth's object for a characteristic this manager reported, or `nil` after
    /// failing `waiter` (the characteristic was never discovered here, or the services changed).
    func characteristic<Value>(_ characteristic: RemoteCharacteristic, _ waiter: Waiter<Value>) -> CBCharacteristic? {
        guard let object = characteristics[characteristic.valueHandle]?.object else {
            waiter.fail(.characteristicNotFound(characteristic.uuid))
            return nil
        }
        return object
    }

    /// CoreBluetooth's object for a descriptor this manager reported, or `nil` after failing `waiter`.
    func descriptor<Value>(_ descriptor: RemoteDescriptor, _ waiter: Waiter<Value>) -> CBDescriptor? {
        guard let object = descriptors[descriptor.handle]?.object else {
            waiter.fail(.descriptorNotFound(descriptor.uuid))
            return nil
        }
        return object
    }
}

extension Array {
    /// Removes and returns the first element, or `nil` when empty.
    mutating func popFirst() -> Element? {
        isEmpty ? nil : removeFirst()
    }
}
