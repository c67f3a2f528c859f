import BleuCore
import Foundation

/// CoreBluetooth's `CBPeripheralManager` on Bleu's emulator: publish services, advertise,
/// answer centrals' requests and notify subscribers, with delegate callbacks on the queue given
/// at init (the main queue for `nil`), in CoreBluetooth's order.
///
/// Underneath is the emulator's ``/BleuEmulator/EmulatedPeripheralManager``: the emulator
/// enforces properties, permissions, lengths and security (pairing on encrypted attributes)
/// before a request reaches the delegate, as CoreBluetooth does.
public class EmulatedCBPeripheralManager: EmulatedCBManager {
    struct Table {
        /// Published services, with the handles they were given.
        var services: [(object: EmulatedCBMutableService, published: PublishedService)] = []
        /// Value handle → the application's characteristic object.
        var characteristics: [UInt16: EmulatedCBMutableCharacteristic] = [:]
        var centrals: [UUID: EmulatedCBCentral] = [:]
    }

    /// The emulator's peripheral underneath.
    let core: EmulatedPeripheralManager

    /// The emulator's peripheral underneath, for a test's controls on the bus
    /// (``/BleuEmulator/EmulatorBus/setState(_:of:)-(_,EmulatedPeripheralManager)``, ``/BleuEmulator/EmulatorBus/setDistance(_:of:)``).
    public var emulatorManager: EmulatedPeripheralManager { core }
    let callbacks: CallbackQueue
    let table = Locked(Table())
    private let delegateBox = WeakDelegate(nil)
    private var subscription: EventSubscription?

    /// The object that receives the manager's callbacks.
    public weak var delegate: (any EmulatedCBPeripheralManagerDelegate)? {
        get { delegateBox.get(as: (any EmulatedCBPeripheralManagerDelegate).self) }
        set { delegateBox.set(newValue) }
    }

    /// A peripheral on ``/BleuEmulator/EmulatorBus/shared``, with no delegate, on the main queue.
    public convenience init() {
        self.init(delegate: nil, queue: nil)
    }

    /// A peripheral on ``/BleuEmulator/EmulatorBus/shared`` whose callbacks run on `queue` (the main queue for `nil`).
    public convenience init(delegate: (any EmulatedCBPeripheralManagerDelegate)?, queue: DispatchQueue?) {
        self.init(delegate: delegate, queue: queue, options: nil)
    }

    /// A peripheral on ``/BleuEmulator/EmulatorBus/shared`` with CoreBluetooth's initialization
    /// options: `CBPeripheralManagerOptionRestoreIdentifierKey` restores a predecessor's services
    /// and advertising; `CBPeripheralManagerOptionShowPowerAlertKey` has no effect in the emulator.
    public convenience init(delegate: (any EmulatedCBPeripheralManagerDelegate)?, queue: DispatchQueue?,
                            options: [String: Any]? = nil) {
        self.init(delegate: delegate, queue: queue, options: options, bus: .shared)
    }

    /// A peripheral on `bus` — tests give each its own bus, so they stay isolated.
    public init(delegate: (any EmulatedCBPeripheralManagerDelegate)?, queue: DispatchQueue?, options: [String: Any]? = nil,
                bus: EmulatorBus) {
        let restores = bus.configuration.coreBluetooth.stateRestorationEnabled
        core = EmulatedPeripheralManager(bus: bus, restoreIdentifier: restores
            ? options?[CBPeripheralManagerOptionRestoreIdentifierKey] as? String : nil)
        callbacks = CallbackQueue(queue)
        super.init(initialState: .unknown)
        delegateBox.set(delegate)
        let handoff = WeakHandoff(self)
        let callbacks = callbacks
        let gate = StartupGate()
        subscription = core.events { event, handled in
            let restoration = if case .willRestoreState = event { true } else { false }
            gate.pass(first: restoration) {
                callbacks.async {
                    handoff.object?.handle(event)
                    handled()
                }
            }
        }
        gate.open()
    }

    /// CoreBluetooth's deprecated authorization query: the emulator always authorizes.
    public class func authorizationStatus() -> CBPeripheralManagerAuthorizationStatus { .authorized }

    // MARK: Services

    /// Publishes a service; ``EmulatedCBPeripheralManagerDelegate/peripheralManager(_:didAdd:error:)`` follows.
    /// A characteristic with a value is static and must be read-only (else the error is
    /// `CBError.Code.invalidParameters`), as in CoreBluetooth.
    public func add(_ service: EmulatedCBMutableService) {
        guard !refuseUnlessPoweredOn("add") else { return }
        let outcome = Result { () throws -> PublishedService in
            let definition = try ServiceDefinition(service)
            return try core.addNow(definition)
        }
        if case .success(let published) = outcome {
            let characteristics = (service.characteristics ?? []).compactMap { $0 as? EmulatedCBMutableCharacteristic }
            table.withLock { table in
                table.services.append((service, published))
                for (object, characteristic) in zip(characteristics, published.characteristics) {
                    object.state.withLock { $0.published = characteristic; $0.service = service }
                    table.characteristics[characteristic.valueHandle] = object
                }
            }
        }
        let target = Unchecked((self, service))
        callbacks.async {
            let (manager, service) = target.value
            manager.delegate?.peripheralManager(manager, didAdd: service, error: outcome.coreBluetoothError)
        }
    }

    /// Removes a published service.
    public func remove(_ service: EmulatedCBMutableService) {
        guard let index = table.withLock({ $0.services.firstIndex { $0.object === service } }) else { return }
        let published = table.withLock { $0.services[index].published }
        do {
            try core.removeNow(published)
        } catch {
            report("remove failed: \(error)")
            return
        }
        forget(published)
    }

    /// Removes every published service.
    public func removeAllServices() {
        core.removeAllServicesNow()
        table.withLock { table in
            table.services.removeAll()
            table.characteristics.removeAll()
        }
    }

    // MARK: Advertising

    /// Starts advertising; ``EmulatedCBPeripheralManagerDelegate/peripheralManagerDidStartAdvertising(_:error:)`` follows.
    ///
    /// CoreBluetooth advertises only `CBAdvertisementDataLocalNameKey` and
    /// `CBAdvertisementDataServiceUUIDsKey`; the emulator also takes the keys the
    /// CoreBluetoothEmulator package took (manufacturer data, service data, solicited services,
    /// TX power, and `CBAdvertisementDataIsConnectable` = `false` for a non-connectable
    /// advertisement). What does not fit the 31-byte advertisement goes to the scan response
    /// as CoreBluetooth places it: the local name first, then the service UUIDs that do not fit.
    public func startAdvertising(_ advertisementData: [String: Any]?) {
        guard !refuseUnlessPoweredOn("startAdvertising") else { return }
        let outcome = Result { () throws in
            let data = try advertisingData(fromCoreBluetooth: advertisementData ?? [:])
            let connectable = Self.flag(advertisementData?[CBAdvertisementDataIsConnectable]) ?? true
            let (advertising, scanResponse) = try Self.advertisingLayout(data)
            try core.startAdvertisingNow(advertising, scanResponse: scanResponse, connectable: connectable)
        }
        let target = Unchecked(self)
        callbacks.async {
            let manager = target.value
            manager.delegate?.peripheralManagerDidStartAdvertising(manager, error: outcome.coreBluetoothError)
        }
    }

    /// Where CoreBluetooth's peripheral manager puts the data it advertises: all of it in the
    /// advertising packet when it fits; else the local name in the scan response; else also the
    /// service UUIDs that do not fit the advertising packet, as incomplete lists (CoreBluetooth
    /// puts those in its "overflow area", which only its own scanners read — the emulator's
    /// stand-in is the scan response, which every scanner merges). Throws
    /// `AdvertisingDataError` for data that fits neither packet.
    static func advertisingLayout(_ data: AdvertisingData) throws(AdvertisingDataError) -> (AdvertisingData, AdvertisingData?) {
        let limit = AdvertisingData.legacyMaximumLength
        func length(_ structures: [ADStructure]) throws(AdvertisingDataError) -> Int {
            try AdvertisingData(structures).encoded(maximumLength: .max).count
        }
        if try length(data.structures) <= limit { return (data, nil) }
        var advertising: [ADStructure] = []
        var response: [ADStructure] = []
        var services: [BluetoothUUID] = []
        for structure in data.structures {
            switch structure {
            case .localName: response.append(structure)
            case .serviceUUIDs(let uuids, _, _): services += uuids
            default: advertising.append(structure)
            }
        }
        if try length(advertising + Self.serviceLists(services, complete: true)) <= limit {
            advertising += Self.serviceLists(services, complete: true)
        } else {
            // As many UUIDs as fit stay in the advertising packet, in order; the rest follow the name.
            var kept: [BluetoothUUID] = []
            var moved: [BluetoothUUID] = []
            for uuid in services {
                if moved.isEmpty, try length(advertising + Self.serviceLists(kept + [uuid], complete: false)) <= limit {
                    kept.append(uuid)
                } else {
                    moved.append(uuid)
                }
            }
            advertising += Self.serviceLists(kept, complete: false)
            response += Self.serviceLists(moved, complete: false)
        }
        let scanResponse = AdvertisingData(response)
        _ = try AdvertisingData(advertising).encoded()
        _ = try scanResponse.encoded()
        return (AdvertisingData(advertising), response.isEmpty ? nil : scanResponse)
    }

    /// Service UUID lists, one per width, in the order the widths first appear.
    private static func serviceLists(_ uuids: [BluetoothUUID], complete: Bool) -> [ADStructure] {
        var widths: [BluetoothUUID.Width] = []
        for uuid in uuids where !widths.contains(uuid.shortestWidth) { widths.append(uuid.shortestWidth) }
        return widths.map { width in .serviceUUIDs(uuids.filter { $0.shortestWidth == width }, width: width, complete: complete) }
    }

    /// Stops advertising.
    public func stopAdvertising() {
        core.stopAdvertisingNow()
    }

    /// Whether the peripheral is advertising.
    public var isAdvertising: Bool {
        core.isAdvertisingNow
    }

    /// Accepted for CoreBluetooth's sake; the emulator keeps the bus's connection interval.
    public func setDesiredConnectionLatency(_ latency: CBPeripheralManagerConnectionLatency, for central: EmulatedCBCentral) {}

    // MARK: Requests and notifications

    /// Sends a value to subscribed centrals (all for `nil`) as a notification, or an indication
    /// when the characteristic only indicates. Returns `false`, sending nothing, when the queue
    /// is full; ``EmulatedCBPeripheralManagerDelegate/peripheralManagerIsReady(toUpdateSubscribers:)``
    /// follows when it drains.
    public func updateValue(_ value: Data, for characteristic: EmulatedCBMutableCharacteristic,
                            onSubscribedCentrals centrals: [EmulatedCBCentral]?) -> Bool {
        guard let published = characteristic.published else {
            report("updateValue: \(characteristic.uuid.uuidString) is not published")
            return false
        }
        return core.updateValueNow(value, for: published, onSubscribedCentrals: centrals?.map(\.identifier))
    }

    /// Answers a read (with the request's ``EmulatedCBATTRequest/value`` on success) or a batch
    /// of writes (through its first request; answers to the others are ignored, as in
    /// CoreBluetooth). Write commands take no answer.
    public func respond(to request: EmulatedCBATTRequest, withResult result: CBATTError.Code) {
        switch request.origin {
        case .read(let read):
            core.respondNow(to: read, with: result == .success ? .success(request.value ?? Data()) : .failure(ATTError(result) ?? .unlikelyError))
        case .write(let batch, let index):
            guard index == 0 else { return }
            core.respondNow(to: batch, with: result == .success ? .success(()) : .failure(ATTError(result) ?? .unlikelyError))
        }
    }

    // MARK: L2CAP

    /// Publishes an L2CAP channel; ``EmulatedCBPeripheralManagerDelegate/peripheralManager(_:didPublishL2CAPChannel:error:)``
    /// follows with the PSM the emulator assigned.
    public func publishL2CAPChannel(withEncryption encryptionRequired: Bool) {
        guard !refuseUnlessPoweredOn("publishL2CAPChannel") else { return }
        let supported = core.bus.configuration.coreBluetooth.l2capSupported
        let outcome = Result { () throws -> UInt16 in
            guard supported else { throw CBError(.operationNotSupported) }
            return try core.publishL2CAPChannelNow(requiresEncryption: encryptionRequired)
        }
        let target = Unchecked(self)
        callbacks.async {
            let manager = target.value
            manager.delegate?.peripheralManager(manager, didPublishL2CAPChannel: (try? outcome.get()) ?? 0,
                                                error: outcome.coreBluetoothError)
        }
    }

    /// Stops accepting channels on a PSM; open channels stay open.
    public func unpublishL2CAPChannel(_ PSM: CBL2CAPPSM) {
        let outcome = Result { try core.unpublishL2CAPChannelNow(PSM) }
        let target = Unchecked(self)
        callbacks.async {
            let manager = target.value
            manager.delegate?.peripheralManager(manager, didUnpublishL2CAPChannel: PSM, error: outcome.coreBluetoothError)
        }
    }

    // MARK: Internals (on the manager's queue)

    private func handle(_ event: PeripheralEvent) {
        switch event {
        case .stateChanged(let state):
            observe(state)
            if state != .poweredOn {
                // The emulator, as CoreBluetooth, drops the services of a radio that is not on.
                table.withLock { table in
                    table.services.removeAll()
                    table.characteristics.removeAll()
                }
            }
            delegate?.peripheralManagerDidUpdateState(self)
        case .willRestoreState(let restoration):
            restore(restoration)
        case .centralConnected, .centralDisconnected, .mtuChanged:
            break  // CoreBluetooth's peripheral role does not see connections.
        case .readRequest(let read):
            let request = EmulatedCBATTRequest(central: central(read.central), characteristic: characteristic(read.characteristic),
                                               offset: read.offset, value: nil, origin: .read(read))
            delegate?.peripheralManager(self, didReceiveRead: request)
        case .writeRequests(let batch):
            let requests = batch.requests.enumerated().map { index, write in
                EmulatedCBATTRequest(central: central(write.central), characteristic: characteristic(write.characteristic),
                                     offset: write.offset, value: write.value, origin: .write(batch, index: index))
            }
            delegate?.peripheralManager(self, didReceiveWrite: requests)
        case .subscribed(let identifier, let published):
            let central = central(identifier)
            let characteristic = characteristic(published)
            characteristic.state.withLock { state in
                if !state.subscribedCentrals.contains(where: { $0 === central }) { state.subscribedCentrals.append(central) }
            }
            delegate?.peripheralManager(self, central: central, didSubscribeTo: characteristic)
        case .unsubscribed(let identifier, let published):
            let central = central(identifier)
            let characteristic = characteristic(published)
            characteristic.state.withLock { $0.subscribedCentrals.removeAll { $0 === central } }
            delegate?.peripheralManager(self, central: central, didUnsubscribeFrom: characteristic)
        case .readyToUpdateSubscribers:
            delegate?.peripheralManagerIsReady(toUpdateSubscribers: self)
        case .l2capChannelOpened(let channel):
            let opened = EmulatedCBL2CAPChannel(channel, peer: central(channel.peer), callbacks: callbacks)
            delegate?.peripheralManager(self, didOpen: opened, error: nil)
        }
    }

    private func restore(_ restoration: PeripheralRestoration) {
        var services: [EmulatedCBMutableService] = []
        for published in restoration.services {
            let service = EmulatedCBMutableService(type: CBUUID(published.uuid), primary: published.isPrimary)
            let characteristics = published.characteristics.map { characteristic(restoring: $0, in: service) }
            service.characteristics = characteristics
            table.withLock { $0.services.append((service, published)) }
            services.append(service)
        }
        var dictionary: [String: Any] = [CBPeripheralManagerRestoredStateServicesKey: services]
        if let advertisement = restoration.advertisement {
            let merged = restoration.scanResponse.map { advertisement.merged(with: $0) } ?? advertisement
            dictionary[CBPeripheralManagerRestoredStateAdvertisementDataKey] =
                advertisementDictionary(merged, isConnectable: true, autoGeneratedTxPower: nil)
        }
        delegate?.peripheralManager(self, willRestoreState: dictionary)
    }

    /// The one object for a central identifier.
    private func central(_ identifier: UUID) -> EmulatedCBCentral {
        table.withLock { table in
            if let existing = table.centrals[identifier] { return existing }
            let made = EmulatedCBCentral(identifier: identifier, manager: self)
            table.centrals[identifier] = made
            return made
        }
    }

    /// The application's object for a published characteristic (made for one restored).
    private func characteristic(_ published: PublishedCharacteristic) -> EmulatedCBMutableCharacteristic {
        if let known = table.withLock({ $0.characteristics[published.valueHandle] }) { return known }
        return characteristic(restoring: published, in: nil)
    }

    private func characteristic(restoring published: PublishedCharacteristic,
                                in service: EmulatedCBMutableService?) -> EmulatedCBMutableCharacteristic {
        let made = EmulatedCBMutableCharacteristic(type: CBUUID(published.uuid),
                                                   properties: CBCharacteristicProperties(published.properties),
                                                   value: nil, permissions: CBAttributePermissions(published.permissions))
        made.state.withLock { $0.published = published; $0.service = service }
        table.withLock { $0.characteristics[published.valueHandle] = made }
        return made
    }

    private func forget(_ published: PublishedService) {
        table.withLock { table in
            table.services.removeAll { $0.published == published }
            for characteristic in published.characteristics { table.characteristics[characteristic.valueHandle] = nil }
        }
    }


    /// A Boolean option as an application writes it: `NSNumber` or `Bool`.
    static func flag(_ value: Any?) -> Bool? {
        switch value {
        case let flag as Bool: flag
        case let number as NSNumber: number.boolValue
        default: nil
        }
    }
}

extension ServiceDefinition {
    /// The definition of a service the application built from mutable objects.
    init(_ service: EmulatedCBMutableService) throws {
        let characteristics = try (service.characteristics ?? []).map { characteristic in
            guard let mutable = characteristic as? EmulatedCBMutableCharacteristic else {
                throw CBError(.invalidParameters)
            }
            let descriptors = try (mutable.descriptors ?? []).map { descriptor in
                guard let bytes = EmulatedCBDescriptor.bytes(of: descriptor.value) else { throw CBError(.invalidParameters) }
                return DescriptorDefinition(uuid: BluetoothUUID(descriptor.uuid), value: bytes)
            }
            return CharacteristicDefinition(uuid: BluetoothUUID(mutable.uuid), properties: CharacteristicProperties(mutable.properties),
                                            permissions: AttributePermissions(mutable.permissions), value: mutable.value,
                                            descriptors: descriptors)
        }
        self.init(uuid: BluetoothUUID(service.uuid), isPrimary: service.isPrimary, characteristics: characteristics,
                  includedServices: (service.includedServices ?? []).map { BluetoothUUID($0.uuid) })
    }
}
