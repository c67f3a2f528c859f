import BleuATT
import BleuCore
import CoreBluetoothVocabulary
import Foundation

/// The state of a ``CoreBluetoothPeripheralManager`` and CoreBluetooth's delegate for it: the
/// `CBPeripheralManager`, the published services with the handles given to them, the requests
/// waiting for answers, the centrals met, and the operations waiting for callbacks.
///
/// Isolation is ``CentralCore``'s: `@unchecked Sendable` is sound because ``queue``,
/// ``events`` and ``restoreIdentifier`` are immutable and `Sendable`, and every other stored
/// property — every CoreBluetooth object among them — is read and written only by code
/// running on ``queue``: CoreBluetooth's delegate callbacks (it is the `CBPeripheralManager`'s
/// queue) and the closures the manager submits to it.
final class PeripheralCore: NSObject, @unchecked Sendable {
    let queue: ManagerQueue
    let events = EventBroadcaster<PeripheralEvent>(bufferLimit: CoreBluetoothPeripheralManager.eventBufferLimit)
    let restoreIdentifier: String?

    // On `queue` only:
    var manager: CBPeripheralManager!
    var state: ManagerState = .unknown
    var restoration: PeripheralRestoration?
    /// The published services, laid out as a GATT server would: CoreBluetooth shows no
    /// handles, so this database gives them, and checks definitions as every backend does.
    private var database = GATTDatabase(empty: 0xFFFE)
    private var services: [UInt16: (object: CBMutableService, published: PublishedService)] = [:]
    private var characteristics: [UInt16: CBMutableCharacteristic] = [:]
    private var published: [ObjectIdentifier: PublishedCharacteristic] = [:]
    private var additions: [ObjectIdentifier: (published: PublishedService, waiter: Waiter<PublishedService>)] = [:]
    private var advertisingStarts: [Waiter<Void>] = []
    private var publications: [Waiter<UInt16>] = []
    private var unpublications: [UInt16: [Waiter<Void>]] = [:]
    private var publishedPSMs: Set<UInt16> = []
    /// Requests the application has yet to answer: a read, or the first write of a batch.
    private var requests: [UInt64: CBATTRequest] = [:]
    private var nextRequest: UInt64 = 0
    /// Every central met, by identifier (to address notifications and read its MTU).
    private var centrals: [UUID: CBCentral] = [:]
    /// The centrals reported as connected, with the characteristics each subscribed to.
    private var present: [UUID: Set<UInt16>] = [:]
    private var channels: [WeakChannel] = []

    init(queue: ManagerQueue, restoreIdentifier: String?) {
        self.queue = queue
        self.restoreIdentifier = restoreIdentifier
    }

    func subscribe() -> AsyncStream<PeripheralEvent> {
        queue.sync {
            events.subscribe {
                [.stateChanged(state)] + (restoration.map { [.willRestoreState($0)] } ?? [])
            }
        }
    }

    /// Ends the event streams and fails what waits when the manager goes away; the services
    /// and advertising are CoreBluetooth's to end (it does when the `CBPeripheralManager` goes,
    /// unless state restoration keeps them).
    func shutDown() {
        failPending(.cancelled)
        for reference in channels { reference.channel?.end(.cancelled) }
        channels.removeAll()
        events.finish()
    }

    private var unavailable: BleuError? { state.unavailableError }

    private func failPending(_ error: BleuError) {
        for addition in additions.values { addition.waiter.fail(error) }
        additions.removeAll()
        for waiter in advertisingStarts { waiter.fail(error) }
        advertisingStarts.removeAll()
        for waiter in publications { waiter.fail(error) }
        publications.removeAll()
        for waiter in unpublications.values.joined() { waiter.fail(error) }
        unpublications.removeAll()
    }

    // MARK: Services

    func add(_ definition: ServiceDefinition, _ waiter: Waiter<PublishedService>) {
        if let error = unavailable { return waiter.fail(error) }
        for characteristic in definition.characteristics {
            for descriptor in characteristic.descriptors where !Self.publishableDescriptors.contains(descriptor.uuid) {
                return waiter.fail(.notSupported(.descriptor(descriptor.uuid)))
            }
        }
        let published: PublishedService
        do {
            published = try database.add(definition)
        } catch {
            return waiter.fail(error)
        }
        let service = CBMutableService(type: CBUUID(definition.uuid), primary: definition.isPrimary)
        service.characteristics = definition.characteristics.map { definition in
            let characteristic = CBMutableCharacteristic(type: CBUUID(definition.uuid),
                                                         properties: CBCharacteristicProperties(definition.properties),
                                                         value: definition.value,
                                                         permissions: CBAttributePermissions(definition.permissions))
            characteristic.descriptors = definition.descriptors.map {
                CBMutableDescriptor(type: CBUUID($0.uuid), value: coreBluetoothDescriptorValue($0.value, type: $0.uuid))
            }
            return characteristic
        }
        service.includedServices = definition.includedServices.compactMap { uuid in
            services.values.first { $0.published.uuid == uuid }?.object
        }
        additions[ObjectIdentifier(service)] = (published, waiter)
        manager.add(service)
    }

    /// The descriptors CoreBluetooth lets an application publish.
    private static let publishableDescriptors: Set<BluetoothUUID> = [
        BluetoothUUID.Descriptor.characteristicUserDescription, BluetoothUUID(0x2904),
    ]

    /// Files a service CoreBluetooth published (or restored) under its handles.
    private func register(_ service: CBMutableService, as published: PublishedService) {
        services[published.handle] = (service, published)
        let objects = (service.characteristics ?? []).compactMap { $0 as? CBMutableCharacteristic }
        for (object, characteristic) in zip(objects, published.characteristics) {
            characteristics[characteristic.valueHandle] = object
            self.published[ObjectIdentifier(object)] = characteristic
        }
    }

    func remove(_ service: PublishedService, _ waiter: Waiter<Void>) {
        if let error = unavailable { return waiter.fail(error) }
        guard let entry = services[service.handle], entry.published == service else {
            return waiter.fail(.invalidState(.serviceNotPublished(service.uuid)))
        }
        do {
            try database.remove(service)
        } catch {
            return waiter.fail(error)
        }
        manager.remove(entry.object)
        forget(service)
        waiter.succeed()
    }

    func removeAllServices() {
        if state == .poweredOn { manager.removeAllServices() }
        database.removeAll()
        for service in services.values.map(\.published) { forget(service) }
    }

    private func forget(_ service: PublishedService) {
        guard let entry = services.removeValue(forKey: service.handle) else { return }
        for object in entry.object.characteristics ?? [] { published[ObjectIdentifier(object)] = nil }
        for characteristic in service.characteristics { characteristics[characteristic.valueHandle] = nil }
    }

    // MARK: Advertising

    func startAdvertising(_ advertisement: AdvertisingData, scanResponse: AdvertisingData?, _ waiter: Waiter<Void>) {
        if let error = unavailable { return waiter.fail(error) }
        do {
            _ = try advertisement.encoded()
        } catch {
            return waiter.fail(.invalidData(.advertisingData(error)))
        }
        if let scanResponse {
            do {
                _ = try scanResponse.encoded()
            } catch {
                return waiter.fail(.invalidData(.scanResponse(error)))
            }
        }
        let merged = scanResponse.map { advertisement.merged(with: $0) } ?? advertisement
        for structure in merged.structures {
            switch structure {
            case .flags, .localName, .serviceUUIDs:
                continue  // CoreBluetooth sets the flags itself
            default:
                return waiter.fail(.notSupported(.advertisingField(adType: structure.adType)))
            }
        }
        // The two keys CoreBluetooth advertises, from the one conversion the package has.
        let dictionary = advertisementDictionary(merged, isConnectable: true, autoGeneratedTxPower: nil).filter {
            $0.key == CBAdvertisementDataLocalNameKey || $0.key == CBAdvertisementDataServiceUUIDsKey
        }
        if manager.isAdvertising { manager.stopAdvertising() }  // advertising again replaces the data
        advertisingStarts.append(waiter)
        manager.startAdvertising(dictionary)
    }

    func stopAdvertising() {
        guard state == .poweredOn else { return }
        manager.stopAdvertising()
    }

    var isAdvertising: Bool {
        state == .poweredOn && manager.isAdvertising
    }

    // MARK: Requests

    func respond(to id: ATTRequestID, with result: Result<Data, ATTError>) {
        guard let request = requests.removeValue(forKey: id.rawValue) else { return }
        switch result {
        case .success(let value):
            request.value = value
            manager.respond(to: request, withResult: .success)
        case .failure(let error):
            manager.respond(to: request, withResult: CBATTError.Code(error))
        }
    }

    // MARK: Notifications

    func updateValue(_ value: Data, for characteristic: PublishedCharacteristic, onSubscribedCentrals identifiers: [UUID]?) -> Bool {
        guard state == .poweredOn, let object = characteristics[characteristic.valueHandle] else { return false }
        var targets = object.subscribedCentrals ?? []
        if let identifiers { targets = targets.filter { identifiers.contains($0.identifier) } }
        // A value longer than a central's notifications carry is not sent to it.
        targets = targets.filter { value.count <= $0.maximumUpdateValueLength }
        guard !targets.isEmpty else { return true }  // nothing to send is sent
        return manager.updateValue(value, for: object, onSubscribedCentrals: targets)
    }

    func maximumUpdateValueLength(for central: UUID) -> Int? {
        guard present[central] != nil else { return nil }
        return centrals[central]?.maximumUpdateValueLength
    }

    // MARK: L2CAP

    func publishL2CAPChannel(requiresEncryption: Bool, _ waiter: Waiter<UInt16>) {
        if let error = unavailable { return waiter.fail(error) }
        publications.append(waiter)
        manager.publishL2CAPChannel(withEncryption: requiresEncryption)
    }

    func unpublishL2CAPChannel(_ psm: UInt16, _ waiter: Waiter<Void>) {
        if let error = unavailable { return waiter.fail(error) }
        guard publishedPSMs.contains(psm) else {
            return waiter.fail(.invalidState(.psmNotPublished(psm)))
        }
        unpublications[psm, default: []].append(waiter)
        manager.unpublishL2CAPChannel(psm)
    }

    // MARK: Centrals

    /// A central made a request or subscribed: reported as connected the first time (and the
    /// first time after it unsubscribed from everything, which is how CoreBluetooth's
    /// peripheral role sees a central leave). CoreBluetooth shows no disconnections:
    /// ``/BleuCore/PeripheralEvent/centralDisconnected(_:_:)`` is never reported.
    private func met(_ central: CBCentral) -> UUID {
        let id = central.identifier
        centrals[id] = central
        if present[id] == nil {
            present[id] = []
            events.yield(.centralConnected(id))
        }
        return id
    }

    /// The published characteristic of a CoreBluetooth object CoreBluetooth handed over.
    private func publishedCharacteristic(of object: CBCharacteristic) -> PublishedCharacteristic? {
        if let known = published[ObjectIdentifier(object)] { return known }
        // Another object for the same characteristic: find it by its UUIDs.
        let uuid = BluetoothUUID(object.uuid)
        let service = object.service.map { BluetoothUUID($0.uuid) }
        return services.values.flatMap(\.published.characteristics).first {
            $0.uuid == uuid && (service == nil || $0.service == service)
        }
    }

    private func error(_ error: any Error, during operation: BleuError.Operation) -> BleuError {
        bleuError(fromCoreBluetooth: error, peer: nil, during: .operation(operation, linkEnd: nil))
    }
}

// MARK: - CBPeripheralManagerDelegate

extension PeripheralCore: CBPeripheralManagerDelegate {
    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        let new = ManagerState(peripheral.state)
        guard new != state else { return }
        state = new
        events.yield(.stateChanged(new))
        guard let error = new.unavailableError else { return }
        // CoreBluetooth drops the services, advertising and channels of a radio that is not on.
        failPending(error)
        database.removeAll()
        services.removeAll()
        characteristics.removeAll()
        published.removeAll()
        publishedPSMs.removeAll()
        requests.removeAll()
        present.removeAll()
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, willRestoreState dict: [String: Any]) {
        var restored: [PublishedService] = []
        for service in dict[CBPeripheralManagerRestoredStateServicesKey] as? [CBMutableService] ?? [] {
            let definition = ServiceDefinition(restoring: service)
            do {
                let published = try database.add(definition)
                register(service, as: published)
                restored.append(published)
            } catch {
                // Only a service this manager could not have published (a database full of
                // them, an included service missing) fails here; it stays CoreBluetooth's,
                // unknown to this manager, and is not reported.
                continue
            }
        }
        var advertisement: AdvertisingData?
        if let data = dict[CBPeripheralManagerRestoredStateAdvertisementDataKey] as? [String: Any] {
            do {
                advertisement = try advertisingData(fromCoreBluetooth: data)
            } catch {
                // CoreBluetooth restores the keys it advertises with the types it documents;
                // a dictionary that does not parse is reported as no advertisement.
                advertisement = nil
            }
        }
        let restoration = PeripheralRestoration(services: restored, advertisement: advertisement, scanResponse: nil)
        self.restoration = restoration
        events.yield(.willRestoreState(restoration))
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?) {
        guard let addition = additions.removeValue(forKey: ObjectIdentifier(service)) else { return }
        if let error {
            do {
                try database.remove(addition.published)
            } catch {
                // It was added above and nothing removed it since: nothing to undo.
            }
            return addition.waiter.fail(self.error(error, during: .addService))
        }
        guard let mutable = service as? CBMutableService else {
            return addition.waiter.fail(.invalidState(.unexpectedOutcome(.addService)))
        }
        register(mutable, as: addition.published)
        addition.waiter.succeed(addition.published)
    }

    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: (any Error)?) {
        guard let waiter = advertisingStarts.popFirst() else { return }
        if let error { return waiter.fail(self.error(error, during: .advertise)) }
        waiter.succeed()
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic) {
        guard let published = publishedCharacteristic(of: characteristic) else { return }
        let id = met(central)
        present[id, default: []].insert(published.valueHandle)
        events.yield(.subscribed(central: id, characteristic: published))
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic) {
        guard let published = publishedCharacteristic(of: characteristic) else { return }
        let id = central.identifier
        events.yield(.unsubscribed(central: id, characteristic: published))
        present[id]?.remove(published.valueHandle)
        if present[id]?.isEmpty == true { present[id] = nil }
    }

    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {
        events.yield(.readyToUpdateSubscribers)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        guard let characteristic = publishedCharacteristic(of: request.characteristic) else {
            return peripheral.respond(to: request, withResult: .attributeNotFound)
        }
        let central = met(request.central)
        let id = file(request)
        events.yield(.readRequest(ReadRequest(id: id, central: central, characteristic: characteristic, offset: request.offset)))
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        guard let first = requests.first else { return }
        var writes: [WriteRequest] = []
        for request in requests {
            guard let characteristic = publishedCharacteristic(of: request.characteristic) else {
                return peripheral.respond(to: first, withResult: .attributeNotFound)
            }
            writes.append(WriteRequest(central: request.central.identifier, characteristic: characteristic,
                                       offset: request.offset, value: request.value ?? Data()))
        }
        let central = met(first.central)
        // CoreBluetooth does not say whether the central waits for an answer. Writes to a
        // characteristic that takes writes with response are answered (CoreBluetooth ignores
        // an answer to a write command); to one that takes only commands, not.
        let needsResponse = writes.contains { $0.characteristic.properties.contains(.write) }
        nextRequest += 1
        let id = needsResponse ? file(first) : ATTRequestID(nextRequest)
        events.yield(.writeRequests(WriteRequests(id: id, central: central, requests: writes, needsResponse: needsResponse)))
    }

    /// Keeps a request until the application answers it; past
    /// ``CoreBluetoothPeripheralManager/requestLimit`` unanswered ones, the oldest is forgotten
    /// (its central timed out long ago).
    private func file(_ request: CBATTRequest) -> ATTRequestID {
        nextRequest += 1
        requests[nextRequest] = request
        if requests.count > CoreBluetoothPeripheralManager.requestLimit, let oldest = requests.keys.min() {
            requests[oldest] = nil
        }
        return ATTRequestID(nextRequest)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didPublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?) {
        guard let waiter = publications.popFirst() else { return }
        if let error { return waiter.fail(self.error(error, during: .publishChannel)) }
        publishedPSMs.insert(PSM)
        waiter.succeed(PSM)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didUnpublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?) {
        guard let waiter = unpublications[PSM]?.popFirst() else { return }
        if let error { return waiter.fail(self.error(error, during: .unpublishChannel)) }
        publishedPSMs.remove(PSM)
        waiter.succeed()
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didOpen channel: CBL2CAPChannel?, error: (any Error)?) {
        guard let channel, error == nil else { return }  // a channel that failed to open reaches no one
        let central = channel.peer.identifier
        let opened = CoreBluetoothL2CAPChannel(channel, peer: central, queue: queue)
        channels.removeAll { $0.channel == nil }
        channels.append(WeakChannel(channel: opened.core))
        events.yield(.l2capChannelOpened(opened))
    }
}

extension ServiceDefinition {
    /// The definition of a service CoreBluetooth restored: its characteristics with their
    /// properties, permissions, static values (read-only ones) and publishable descriptors.
    init(restoring service: CBMutableService) {
        let characteristics = (service.characteristics ?? []).compactMap { $0 as? CBMutableCharacteristic }.map { characteristic in
            let properties = CharacteristicProperties(characteristic.properties)
            let isStatic = properties.isDisjoint(with: [.write, .writeWithoutResponse, .notify, .indicate])
            let descriptors = (characteristic.descriptors ?? []).compactMap { descriptor -> DescriptorDefinition? in
                let uuid = BluetoothUUID(descriptor.uuid)
                guard uuid != BluetoothUUID.Descriptor.clientCharacteristicConfiguration,
                      let bytes = descriptorBytes(fromCoreBluetooth: descriptor.value, type: uuid) else { return nil }
                return DescriptorDefinition(uuid: uuid, value: bytes)
            }
            return CharacteristicDefinition(uuid: BluetoothUUID(characteristic.uuid), properties: properties,
                                            permissions: AttributePermissions(characteristic.permissions),
                                            value: isStatic ? characteristic.value : nil, descriptors: descriptors)
        }
        self.init(uuid: BluetoothUUID(service.uuid), isPrimary: service.isPrimary, characteristics: characteristics,
                  includedServices: (service.includedServices ?? []).map { BluetoothUUID($0.uuid) })
    }
}
