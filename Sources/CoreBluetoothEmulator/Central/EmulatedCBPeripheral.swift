import BleuCore
import Foundation

/// CoreBluetooth's `CBPeripheral`: a remote peripheral as an ``EmulatedCBCentralManager``
/// knows it. Each command completes through the peripheral's ``delegate`` on the manager's
/// queue, in the order given. As with CoreBluetooth, commands to a peripheral that is not
/// connected are refused ("API MISUSE", logged) and call nothing back.
public class EmulatedCBPeripheral: EmulatedCBPeer {
    struct State {
        var name: String?
        var state: CBPeripheralState = .disconnected
        var services: [EmulatedCBService]?
        var ancsAuthorized = false
    }

    let table = Locked(State())
    private let delegateBox = WeakDelegate(nil)
    private weak var manager: EmulatedCBCentralManager?

    init(identifier: UUID, manager: EmulatedCBCentralManager) {
        self.manager = manager
        super.init(identifier: identifier)
    }

    /// The object that receives this peripheral's callbacks.
    public weak var delegate: (any EmulatedCBPeripheralDelegate)? {
        get { delegateBox.get(as: (any EmulatedCBPeripheralDelegate).self) }
        set { delegateBox.set(newValue) }
    }

    /// The peripheral's name: its advertised local name, once seen.
    public var name: String? {
        table.withLock { $0.name }
    }

    /// The connection state.
    public var state: CBPeripheralState {
        table.withLock { $0.state }
    }

    /// The services discovered so far; `nil` before the first discovery.
    public var services: [EmulatedCBService]? {
        table.withLock { $0.services }
    }

    /// Whether a write without response would be sent now; when not,
    /// ``EmulatedCBPeripheralDelegate/peripheralIsReady(toSendWriteWithoutResponse:)`` follows
    /// once the link has room.
    public var canSendWriteWithoutResponse: Bool {
        manager?.core.canSendWriteWithoutResponseNow(to: identifier) ?? false
    }

    /// Whether the peripheral is authorized for ANCS; `false` until
    /// ``EmulatedCBCentralManager/emulateANCSAuthorization(_:for:)`` says otherwise.
    public var ancsAuthorized: Bool {
        table.withLock { $0.ancsAuthorized }
    }

    /// CoreBluetooth's deprecated cached RSSI; always `nil` (use ``readRSSI()``).
    public var rssi: NSNumber? { nil }

    // MARK: Commands

    /// Reads the link's RSSI; ``EmulatedCBPeripheralDelegate/peripheral(_:didReadRSSI:error:)`` follows.
    public func readRSSI() {
        guard let manager = connectedManager("readRSSI") else { return }
        let callbacks = manager.callbacks
        let result = Result { try manager.core.readRSSINow(of: identifier) }
        callbacks.async { [self] in
            switch result {
            case .success(let rssi): delegate?.peripheral(self, didReadRSSI: NSNumber(value: rssi), error: nil)
            case .failure(let error): delegate?.peripheral(self, didReadRSSI: NSNumber(value: 127), error: coreBluetoothError(for: error))
            }
        }
    }

    /// Discovers primary services (all for `nil`); ``services`` then holds them.
    public func discoverServices(_ serviceUUIDs: [CBUUID]?) {
        guard let manager = connectedManager("discoverServices") else { return }
        let callbacks = manager.callbacks
        let target = Unchecked(self)
        manager.core.discoverServices(serviceUUIDs?.map { BluetoothUUID($0) }, on: identifier) { result in
            callbacks.async { target.value.servicesDiscovered(result) }
        }
    }

    /// Discovers the services `service` includes (all for `nil`).
    public func discoverIncludedServices(_ includedServiceUUIDs: [CBUUID]?, for service: EmulatedCBService) {
        guard let manager = connectedManager("discoverIncludedServices"), let remote = service.remote else { return }
        let callbacks = manager.callbacks
        let target = Unchecked((self, service))
        manager.core.discoverIncludedServices(includedServiceUUIDs?.map { BluetoothUUID($0) }, for: remote) { result in
            callbacks.async { target.value.0.includedServicesDiscovered(result, for: target.value.1) }
        }
    }

    /// Discovers a service's characteristics (all for `nil`).
    public func discoverCharacteristics(_ characteristicUUIDs: [CBUUID]?, for service: EmulatedCBService) {
        guard let manager = connectedManager("discoverCharacteristics"), let remote = service.remote else { return }
        let callbacks = manager.callbacks
        let target = Unchecked((self, service))
        manager.core.discoverCharacteristics(characteristicUUIDs?.map { BluetoothUUID($0) }, for: remote) { result in
            callbacks.async { target.value.0.characteristicsDiscovered(result, for: target.value.1) }
        }
    }

    /// Discovers a characteristic's descriptors.
    public func discoverDescriptors(for characteristic: EmulatedCBCharacteristic) {
        guard let manager = connectedManager("discoverDescriptors"), let remote = characteristic.remote else { return }
        let callbacks = manager.callbacks
        let target = Unchecked((self, characteristic))
        manager.core.discoverDescriptors(for: remote) { result in
            callbacks.async { target.value.0.descriptorsDiscovered(result, for: target.value.1) }
        }
    }

    /// Reads a characteristic's value (long values whole);
    /// ``EmulatedCBPeripheralDelegate/peripheral(_:didUpdateValueFor:error:)-(_,EmulatedCBCharacteristic,_)`` follows.
    public func readValue(for characteristic: EmulatedCBCharacteristic) {
        guard let manager = connectedManager("readValue"), let remote = characteristic.remote else { return }
        let callbacks = manager.callbacks
        let target = Unchecked((self, characteristic))
        manager.core.read(remote) { result in
            callbacks.async {
                let (peripheral, characteristic) = target.value
                if case .success(let value) = result { characteristic.state.withLock { $0.value = value } }
                peripheral.delegate?.peripheral(peripheral, didUpdateValueFor: characteristic, error: result.coreBluetoothError)
            }
        }
    }

    /// Reads a descriptor's value;
    /// ``EmulatedCBPeripheralDelegate/peripheral(_:didUpdateValueFor:error:)-(_,EmulatedCBDescriptor,_)`` follows.
    public func readValue(for descriptor: EmulatedCBDescriptor) {
        guard let manager = connectedManager("readValue"), let remote = descriptor.remote else { return }
        let callbacks = manager.callbacks
        let target = Unchecked((self, descriptor))
        manager.core.read(remote) { result in
            callbacks.async {
                let (peripheral, descriptor) = target.value
                if case .success(let bytes) = result {
                    descriptor.state.withLock { $0.value = coreBluetoothDescriptorValue(bytes, type: remote.uuid) }
                }
                peripheral.delegate?.peripheral(peripheral, didUpdateValueFor: descriptor, error: result.coreBluetoothError)
            }
        }
    }

    /// Writes a characteristic's value. `.withResponse` (values up to 512 bytes; long ones as
    /// prepared writes) reports through
    /// ``EmulatedCBPeripheralDelegate/peripheral(_:didWriteValueFor:error:)-(_,EmulatedCBCharacteristic,_)``;
    /// `.withoutResponse` reports nothing and, as in CoreBluetooth, is dropped when
    /// ``canSendWriteWithoutResponse`` is `false` or the value is longer than
    /// ``maximumWriteValueLength(for:)`` (the emulator says so on standard error).
    public func writeValue(_ data: Data, for characteristic: EmulatedCBCharacteristic, type: CBCharacteristicWriteType) {
        guard let manager = connectedManager("writeValue"), let remote = characteristic.remote else { return }
        let callbacks = manager.callbacks
        switch type {
        case .withoutResponse:
            do {
                try manager.core.writeWithoutResponseNow(data, to: remote)
            } catch {
                manager.report("a write without response to \(characteristic.uuid.uuidString) was dropped: \(error)")
            }
        case .withResponse:
            let target = Unchecked((self, characteristic))
            manager.core.write(data, to: remote) { result in
                callbacks.async {
                    let (peripheral, characteristic) = target.value
                    peripheral.delegate?.peripheral(peripheral, didWriteValueFor: characteristic, error: result.coreBluetoothError)
                }
            }
        @unknown default:
            manager.report("writeValue: unknown write type \(type.rawValue)")
        }
    }

    /// Writes a descriptor's value. CoreBluetooth refuses the Client Characteristic
    /// Configuration descriptor (use ``setNotifyValue(_:for:)``); so does the emulator, with
    /// `CBError.Code.operationNotSupported`.
    public func writeValue(_ data: Data, for descriptor: EmulatedCBDescriptor) {
        guard let manager = connectedManager("writeValue"), let remote = descriptor.remote else { return }
        let callbacks = manager.callbacks
        let target = Unchecked((self, descriptor))
        guard remote.uuid != BluetoothUUID.Descriptor.clientCharacteristicConfiguration else {
            callbacks.async {
                let (peripheral, descriptor) = target.value
                peripheral.delegate?.peripheral(peripheral, didWriteValueFor: descriptor, error: CBError(.operationNotSupported))
            }
            return
        }
        manager.core.write(data, to: remote) { result in
            callbacks.async {
                let (peripheral, descriptor) = target.value
                peripheral.delegate?.peripheral(peripheral, didWriteValueFor: descriptor, error: result.coreBluetoothError)
            }
        }
    }

    /// The longest value one write of this type carries: ATT MTU − 3 without response, 512
    /// with response (long writes).
    public func maximumWriteValueLength(for type: CBCharacteristicWriteType) -> Int {
        let writeType: WriteType = type == .withoutResponse ? .withoutResponse : .withResponse
        guard let length = try? manager?.core.maximumWriteValueLengthNow(for: identifier, type: writeType) else {
            // Not connected: what the smallest link carries.
            return writeType == .withoutResponse ? 20 : 512
        }
        return length
    }

    /// Enables or disables notifications (or indications) of a characteristic;
    /// ``EmulatedCBPeripheralDelegate/peripheral(_:didUpdateNotificationStateFor:error:)`` follows,
    /// then every value through ``EmulatedCBPeripheralDelegate/peripheral(_:didUpdateValueFor:error:)-(_,EmulatedCBCharacteristic,_)``.
    public func setNotifyValue(_ enabled: Bool, for characteristic: EmulatedCBCharacteristic) {
        guard let manager = connectedManager("setNotifyValue"), let remote = characteristic.remote else { return }
        let callbacks = manager.callbacks
        let target = Unchecked((self, characteristic))
        if !enabled {
            manager.core.unsubscribe(from: remote) { result in
                callbacks.async {
                    let (peripheral, characteristic) = target.value
                    if case .success = result {
                        characteristic.state.withLock { $0.isNotifying = false; $0.notifyRequested = false }
                    }
                    peripheral.delegate?.peripheral(peripheral, didUpdateNotificationStateFor: characteristic,
                                                    error: result.coreBluetoothError)
                }
            }
            return
        }
        let alreadyOn = characteristic.state.withLock { state in
            defer { state.notifyRequested = true }
            return state.notifyRequested
        }
        guard !alreadyOn else {
            callbacks.async {
                let (peripheral, characteristic) = target.value
                peripheral.delegate?.peripheral(peripheral, didUpdateNotificationStateFor: characteristic, error: nil)
            }
            return
        }
        manager.core.subscribe(to: remote, sink: { delivery in
            callbacks.async {
                let (peripheral, characteristic) = target.value
                switch delivery {
                case .element(let value):
                    characteristic.state.withLock { $0.value = value }
                    peripheral.delegate?.peripheral(peripheral, didUpdateValueFor: characteristic, error: nil)
                case .end:
                    characteristic.state.withLock { $0.isNotifying = false; $0.notifyRequested = false }
                }
            }
        }, completion: { result in
            callbacks.async {
                let (peripheral, characteristic) = target.value
                characteristic.state.withLock { state in
                    state.isNotifying = result.coreBluetoothError == nil
                    state.notifyRequested = state.isNotifying
                }
                peripheral.delegate?.peripheral(peripheral, didUpdateNotificationStateFor: characteristic,
                                                error: result.coreBluetoothError)
            }
        })
    }

    /// Opens an L2CAP channel to a PSM the peripheral published;
    /// ``EmulatedCBPeripheralDelegate/peripheral(_:didOpen:error:)`` follows.
    public func openL2CAPChannel(_ PSM: CBL2CAPPSM) {
        guard let manager = connectedManager("openL2CAPChannel") else { return }
        let callbacks = manager.callbacks
        let target = Unchecked(self)
        guard manager.core.bus.configuration.coreBluetooth.l2capSupported else {
            callbacks.async {
                let peripheral = target.value
                peripheral.delegate?.peripheral(peripheral, didOpen: nil, error: CBError(.operationNotSupported))
            }
            return
        }
        manager.core.openL2CAPChannel(psm: PSM, on: identifier) { result in
            callbacks.async {
                let peripheral = target.value
                switch result {
                case .success(let channel):
                    peripheral.delegate?.peripheral(peripheral, didOpen: EmulatedCBL2CAPChannel(channel, peer: peripheral, callbacks: callbacks),
                                                    error: nil)
                case .failure(let error):
                    peripheral.delegate?.peripheral(peripheral, didOpen: nil, error: coreBluetoothError(for: error))
                }
            }
        }
    }

    // MARK: Internals (on the manager's queue)

    /// The manager, when the peripheral is connected; else logs CoreBluetooth's API misuse.
    private func connectedManager(_ command: String) -> EmulatedCBCentralManager? {
        guard let manager, state == .connected else {
            manager?.report("API MISUSE: \(command) can only be issued to a connected peripheral (\(identifier))")
            return nil
        }
        return manager
    }

    func setState(_ state: CBPeripheralState) {
        table.withLock { $0.state = state }
    }

    func setName(_ name: String) {
        let changed = table.withLock { table in
            defer { table.name = name }
            return table.name != nil && table.name != name
        }
        if changed { delegate?.peripheralDidUpdateName(self) }
    }

    /// The link ended: the peripheral is disconnected and its notifications are off.
    func linkEnded() {
        let services = table.withLock { table in
            table.state = .disconnected
            return table.services ?? []
        }
        for characteristic in services.flatMap({ $0.characteristics ?? [] }) {
            characteristic.state.withLock { $0.isNotifying = false; $0.notifyRequested = false }
        }
    }

    /// Service Changed: every discovered service is invalid; the delegate is told to rediscover.
    func servicesInvalidated() {
        let invalidated = table.withLock { table in
            defer { table.services = nil }
            return table.services ?? []
        }
        delegate?.peripheral(self, didModifyServices: invalidated)
    }

    private func servicesDiscovered(_ result: Result<[RemoteService], any Error>) {
        if case .success(let found) = result {
            table.withLock { table in
                table.services = Self.merge(found, into: table.services ?? [], key: { $0.remote?.handle }, handle: \.handle) {
                    EmulatedCBService(type: CBUUID($0.uuid), primary: $0.isPrimary, remote: $0, peripheral: self)
                }
            }
        }
        delegate?.peripheral(self, didDiscoverServices: result.coreBluetoothError)
    }

    private func includedServicesDiscovered(_ result: Result<[RemoteService], any Error>, for service: EmulatedCBService) {
        if case .success(let found) = result {
            service.state.withLock { state in
                state.includedServices = Self.merge(found, into: state.includedServices ?? [], key: { $0.remote?.handle },
                                                    handle: \.handle) {
                    EmulatedCBService(type: CBUUID($0.uuid), primary: $0.isPrimary, remote: $0, peripheral: self)
                }
            }
        }
        delegate?.peripheral(self, didDiscoverIncludedServicesFor: service, error: result.coreBluetoothError)
    }

    private func characteristicsDiscovered(_ result: Result<[RemoteCharacteristic], any Error>, for service: EmulatedCBService) {
        if case .success(let found) = result {
            service.state.withLock { state in
                state.characteristics = Self.merge(found, into: state.characteristics ?? [], key: { $0.remote?.valueHandle },
                                                   handle: \.valueHandle) {
                    EmulatedCBCharacteristic(type: CBUUID($0.uuid), properties: CBCharacteristicProperties($0.properties),
                                             value: nil, remote: $0, service: service)
                }
            }
        }
        delegate?.peripheral(self, didDiscoverCharacteristicsFor: service, error: result.coreBluetoothError)
    }

    private func descriptorsDiscovered(_ result: Result<[RemoteDescriptor], any Error>, for characteristic: EmulatedCBCharacteristic) {
        if case .success(let found) = result {
            characteristic.state.withLock { state in
                state.descriptors = Self.merge(found, into: state.descriptors ?? [], key: { $0.remote?.handle }, handle: \.handle) {
                    EmulatedCBDescriptor(type: CBUUID($0.uuid), value: nil, remote: $0, characteristic: characteristic)
                }
            }
        }
        delegate?.peripheral(self, didDiscoverDescriptorsFor: characteristic, error: result.coreBluetoothError)
    }

    /// Discovered attributes join those already known, each attribute keeping its object (an
    /// application holds on to them), in handle order.
    private static func merge<Found, Object>(_ found: [Found], into existing: [Object], key: (Object) -> UInt16?,
                                              handle: KeyPath<Found, UInt16>, make: (Found) -> Object) -> [Object] {
        var byHandle: [UInt16: Object] = [:]
        for object in existing {
            if let handle = key(object) { byHandle[handle] = object }
        }
        for attribute in found where byHandle[attribute[keyPath: handle]] == nil {
            byHandle[attribute[keyPath: handle]] = make(attribute)
        }
        return byHandle.keys.sorted().map { byHandle[$0]! }
    }
}

extension Result where Failure == any Error {
    /// The error as CoreBluetooth reports it to a delegate (`nil` on success).
    var coreBluetoothError: (any Error)? {
        if case .failure(let error) = self { return CoreBluetoothEmulator.coreBluetoothError(for: error) }
        return nil
    }
}
