import BleuCore
import CoreBluetoothVocabulary
import Foundation

/// The state of a ``CoreBluetoothCentralManager`` and CoreBluetooth's delegate for it: the
/// `CBCentralManager`, every `CBPeripheral` it met (with ``PeripheralEntry``'s attribute
/// tables), the running scan and the operations waiting for callbacks.
///
/// Isolation: everything here lives on one serial queue, ``queue``. CoreBluetooth calls the
/// delegate methods on it (it is the `CBCentralManager`'s queue); the manager's async methods
/// hop onto it (``ManagerQueue/wait(_:cancelled:)``) to start operations, and callbacks
/// complete them there. No CoreBluetooth object ever leaves the queue: callers get BleuCore's
/// values (`UUID`, ``/BleuCore/RemoteCharacteristic``…), converted here.
///
/// `@unchecked Sendable` is sound because of that confinement: ``queue``, ``events`` and
/// ``restoreIdentifier`` are immutable and `Sendable`; every other stored property is read and
/// written only by code running on ``queue`` — the delegate callbacks, and closures the manager
/// submits to ``queue`` — never concurrently (the queue is serial) and never elsewhere.
final class CentralCore: NSObject, @unchecked Sendable {
    let queue: ManagerQueue
    let events = EventBroadcaster<CentralEvent>(bufferLimit: CoreBluetoothCentralManager.eventBufferLimit)
    let restoreIdentifier: String?

    // On `queue` only:
    var manager: CBCentralManager!
    var state: ManagerState = .unknown
    var restoration: CentralRestoration?
    var peripherals: [UUID: PeripheralEntry] = [:]
    private var scan: Scan?
    private var nextScan = 0
    private var nextSubscriber = 0
    private var nextVerdict = 0

    /// The running scan: its stream, and the peripherals it reported (for duplicate filtering).
    private struct Scan {
        var id: Int
        var options: ScanOptions
        var continuation: AsyncThrowingStream<Advertisement, any Error>.Continuation
        var reported: Set<UUID> = []
    }

    init(queue: ManagerQueue, restoreIdentifier: String?) {
        self.queue = queue
        self.restoreIdentifier = restoreIdentifier
    }

    // MARK: Events

    /// A new event stream, starting with the state (and the restoration, if any) as of now on
    /// the queue, then every event after.
    func subscribe() -> AsyncStream<CentralEvent> {
        queue.sync {
            events.subscribe {
                [.stateChanged(state)] + (restoration.map { [.willRestoreState($0)] } ?? [])
            }
        }
    }

    /// Ends everything when the manager goes away: the scan, the value streams and the
    /// channels end, the event streams finish. Connections are CoreBluetooth's to end (it does
    /// when the `CBCentralManager` goes, unless state restoration keeps them).
    func shutDown() {
        endScan(error: nil)
        if state == .poweredOn, manager.isScanning { manager.stopScan() }
        for entry in peripherals.values {
            fail(entry, with: .cancelled)
            endSubscriptions(of: entry, error: .cancelled)
            closeChannels(of: entry, error: .cancelled)
            for waiter in entry.connects { waiter.fail(.cancelled) }
            entry.connects.removeAll()
        }
        events.finish()
    }

    // MARK: Checks

    /// The error for an operation while the radio is not on, or `nil`.
    var unavailable: BleuError? { state.unavailableError }

    /// The peripheral's entry, when it is connected and the radio on; else the error.
    func connected(_ id: UUID) -> Result<PeripheralEntry, BleuError> {
        if let error = unavailable { return .failure(error) }
        guard let entry = peripherals[id], entry.isConnected, entry.peripheral.state == .connected else {
            return .failure(.notConnected(id))
        }
        return .success(entry)
    }

    /// The entry for a peripheral CoreBluetooth handed over: made (and given this delegate)
    /// on first sight.
    @discardableResult
    func entry(for peripheral: CBPeripheral) -> PeripheralEntry {
        // CoreBluetooth keeps one object per peripheral while the manager holds it, as this one does.
        if let known = peripherals[peripheral.identifier] { return known }
        let entry = PeripheralEntry(peripheral)
        peripheral.delegate = self
        peripherals[peripheral.identifier] = entry
        return entry
    }

    /// The entry of a peripheral this manager knows, or that CoreBluetooth knows by identifier.
    func knownEntry(_ id: UUID) -> PeripheralEntry? {
        if let known = peripherals[id] { return known }
        return manager.retrievePeripherals(withIdentifiers: [id]).first.map { entry(for: $0) }
    }

    // MARK: Scanning

    func startScan(_ options: ScanOptions, _ waiter: Waiter<AsyncThrowingStream<Advertisement, any Error>>) {
        if let error = unavailable { return waiter.fail(error) }
        endScan(error: nil)
        nextScan += 1
        let id = nextScan
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: Advertisement.self, bufferingPolicy: .bufferingNewest(CoreBluetoothCentralManager.scanBufferLimit))
        continuation.onTermination = { [weak self] _ in
            guard let core = self else { return }
            core.queue.async { core.scanEnded(id) }
        }
        scan = Scan(id: id, options: options, continuation: continuation)
        let arguments = coreBluetoothScanArguments(options)
        manager.scanForPeripherals(withServices: arguments.services, options: arguments.options)
        waiter.succeed(stream)
    }

    func stopScan() {
        guard scan != nil else { return }
        endScan(error: nil)
        if state == .poweredOn { manager.stopScan() }
    }

    /// A scan stream ended (its consumer stopped, or the scan was stopped or replaced): stops
    /// the radio's scan when it was the running one — unless the manager is restorable, whose
    /// scan goes on for its successor to restore, as the emulator's own central does.
    private func scanEnded(_ id: Int) {
        guard scan?.id == id else { return }
        scan = nil
        if state == .poweredOn, restoreIdentifier == nil { manager.stopScan() }
    }

    private func endScan(error: BleuError?) {
        guard let ended = scan else { return }
        scan = nil
        ended.continuation.finish(throwing: error)
    }

    // MARK: Connections

    func connect(_ id: UUID, timeout: Duration?, _ waiter: Waiter<Void>) {
        if let error = unavailable { return waiter.fail(error) }
        guard let entry = knownEntry(id) else { return waiter.fail(.peripheralNotFound(id)) }
        if entry.isConnected, entry.peripheral.state == .connected { return waiter.succeed() }
        let attempting = entry.connects.contains { $0.isWaiting }
        entry.connects.append(waiter)
        if !attempting { manager.connect(entry.peripheral, options: nil) }
        if let timeout {
            queue.asyncAfter(timeout) { [weak self] in
                guard waiter.isWaiting else { return }
                waiter.fail(.connectionTimeout(id))
                self?.connectAbandoned(id)
            }
        }
    }

    /// A caller stopped waiting for a connection (timed out, cancelled): the attempt is
    /// cancelled when no caller waits for it any more.
    func connectAbandoned(_ id: UUID) {
        guard let entry = peripherals[id] else { return }
        entry.connects.removeAll { !$0.isWaiting }
        if entry.connects.isEmpty, !entry.isConnected, entry.peripheral.state == .connecting {
            manager.cancelPeripheralConnection(entry.peripheral)
        }
    }

    func cancelConnection(_ id: UUID, _ waiter: Waiter<Void>) {
        guard let entry = peripherals[id], state == .poweredOn else { return waiter.succeed() }
        for connect in entry.connects { connect.fail(.cancelled) }
        entry.connects.removeAll()
        switch entry.peripheral.state {
        case .connected where entry.isConnected:
            entry.disconnects.append(waiter)
            manager.cancelPeripheralConnection(entry.peripheral)
        case .connecting, .connected:
            manager.cancelPeripheralConnection(entry.peripheral)
            waiter.succeed()
        case .disconnected, .disconnecting:
            waiter.succeed()
        @unknown default:
            waiter.succeed()
        }
    }

    func retrievePeripherals(_ identifiers: [UUID]) -> [KnownPeripheral] {
        guard state == .poweredOn else { return identifiers.compactMap { peripherals[$0].map(known) } }
        return manager.retrievePeripherals(withIdentifiers: identifiers).map { known(entry(for: $0)) }
    }

    func retrieveConnectedPeripherals(_ services: [BluetoothUUID]) -> [KnownPeripheral] {
        guard state == .poweredOn else { return [] }
        guard !services.isEmpty else {
            return peripherals.values.filter(\.isConnected).sorted { $0.id.uuidString < $1.id.uuidString }.map(known)
        }
        return manager.retrieveConnectedPeripherals(withServices: services.map { CBUUID($0) }).map { known(entry(for: $0)) }
    }

    private func known(_ entry: PeripheralEntry) -> KnownPeripheral {
        KnownPeripheral(id: entry.id, name: entry.peripheral.name, isConnected: entry.isConnected)
    }

    // MARK: The link's end

    /// The connection ended: its operations fail, its value streams and channels end, and
    /// the manager reports it.
    func linkEnded(_ entry: PeripheralEntry, reason: DisconnectReason) {
        guard entry.isConnected else { return }
        entry.isConnected = false
        entry.lastLinkEnd = reason
        for resolve in entry.awaitingLinkEnd.values { resolve(reason) }
        entry.awaitingLinkEnd.removeAll()
        let error = BleuError.disconnected(entry.id, reason)
        fail(entry, with: error)
        endSubscriptions(of: entry, error: error)
        closeChannels(of: entry, error: error)
        events.yield(.disconnected(entry.id, reason))
        for waiter in entry.disconnects { waiter.succeed() }
        entry.disconnects.removeAll()
    }

    /// Fails every operation waiting for a callback from the peripheral.
    func fail(_ entry: PeripheralEntry, with error: BleuError) {
        for pending in entry.serviceDiscoveries { pending.waiter.fail(error) }
        entry.serviceDiscoveries.removeAll()
        for pending in entry.includedDiscoveries.values.joined() { pending.waiter.fail(error) }
        entry.includedDiscoveries.removeAll()
        for pending in entry.characteristicDiscoveries.values.joined() { pending.waiter.fail(error) }
        entry.characteristicDiscoveries.removeAll()
        for waiter in entry.descriptorDiscoveries.values.joined() { waiter.fail(error) }
        entry.descriptorDiscoveries.removeAll()
        for waiter in entry.reads.values.joined() { waiter.fail(error) }
        entry.reads.removeAll()
        for waiter in entry.writes.values.joined() { waiter.fail(error) }
        entry.writes.removeAll()
        for waiter in entry.descriptorReads.values.joined() { waiter.fail(error) }
        entry.descriptorReads.removeAll()
        for waiter in entry.descriptorWrites.values.joined() { waiter.fail(error) }
        entry.descriptorWrites.removeAll()
        for change in entry.notifyChanges.values.joined() {
            switch change {
            case .enable(let enablings): for enabling in enablings { enabling.fail(error) }
            case .disable(let waiter): waiter.fail(error)
            }
        }
        entry.notifyChanges.removeAll()
        for waiter in entry.rssiReads { waiter.fail(error) }
        entry.rssiReads.removeAll()
        for pending in entry.channelOpens { pending.waiter.fail(error) }
        entry.channelOpens.removeAll()
    }

    func endSubscriptions(of entry: PeripheralEntry, error: BleuError) {
        for subscription in entry.subscriptions.values {
            for subscriber in subscription.subscribers.values { subscriber.end(error) }
        }
        entry.subscriptions.removeAll()
    }

    private func closeChannels(of entry: PeripheralEntry, error: BleuError) {
        for reference in entry.channels { reference.channel?.end(error) }
        entry.channels.removeAll()
    }

    // MARK: Value streams

    /// A new stream of the characteristic's values, filed with its subscription.
    func makeValueStream(_ entry: PeripheralEntry, valueHandle: UInt16) -> AsyncThrowingStream<Data, any Error> {
        let (subscriber, stream, continuation) = ValueSubscriber.stream(limit: CoreBluetoothCentralManager.valueBufferLimit)
        let id = file(subscriber, with: entry, valueHandle: valueHandle)
        let peripheral = entry.id
        continuation.onTermination = { [weak self] _ in
            guard let core = self else { return }
            core.queue.async { _ = core.peripherals[peripheral]?.subscriptions[valueHandle]?.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Files `receive` with the characteristic's subscription: it is handed each value on this
    /// queue, as CoreBluetooth reports it. Cancelling the subscription silences it at once and
    /// removes it.
    func makeReceiver(_ entry: PeripheralEntry, valueHandle: UInt16,
                      _ receive: @escaping @Sendable (ValueDelivery) -> Void) -> ValueSubscription {
        let (subscriber, silence) = ValueSubscriber.receiver(receive)
        let id = file(subscriber, with: entry, valueHandle: valueHandle)
        let peripheral = entry.id
        return ValueSubscription { [weak self] in
            silence()
            guard let core = self else { return }
            core.queue.async { _ = core.peripherals[peripheral]?.subscriptions[valueHandle]?.subscribers.removeValue(forKey: id) }
        }
    }

    private func file(_ subscriber: ValueSubscriber, with entry: PeripheralEntry, valueHandle: UInt16) -> Int {
        nextSubscriber += 1
        entry.subscriptions[valueHandle]?.subscribers[nextSubscriber] = subscriber
        return nextSubscriber
    }

    /// A notified value: every subscriber of the subscription gets it; a stream whose consumer
    /// fell ``CoreBluetoothCentralManager/valueBufferLimit`` values behind ends with
    /// ``/BleuCore/BleuError/bufferOverflow(_:)``.
    func deliver(_ value: Data, to entry: PeripheralEntry, valueHandle: UInt16) {
        guard let subscription = entry.subscriptions[valueHandle] else { return }
        for (id, subscriber) in subscription.subscribers where !subscriber.deliver(value) {
            entry.subscriptions[valueHandle]?.subscribers[id] = nil
            subscriber.end(BleuError.bufferOverflow(
                .values(of: subscription.characteristic.uuid, limit: CoreBluetoothCentralManager.valueBufferLimit)))
        }
    }

    // MARK: Errors

    /// How long an operation that failed with an error whose meaning depends on the link's end
    /// (``errorDependsOnLinkEnd(_:)``) waits for the disconnection callback before it fails as
    /// if the link stayed up.
    static let linkEndGrace: Duration = .milliseconds(250)

    /// Fails an operation with the Bleu error for what a peripheral's callback reported. When
    /// that depends on whether the link ends along with it, the failure waits for the
    /// disconnection callback (``linkEnded(_:reason:)``), at most ``linkEndGrace``.
    func fail<Value>(_ waiter: Waiter<Value>, with error: any Error, from entry: PeripheralEntry, during operation: BleuError.Operation) {
        guard entry.isConnected, errorDependsOnLinkEnd(error) else {
            let linkEnd = entry.isConnected ? nil : entry.lastLinkEnd
            return waiter.fail(bleuError(fromCoreBluetooth: error, peer: entry.id, during: .operation(operation, linkEnd: linkEnd)))
        }
        nextVerdict += 1
        let id = nextVerdict
        let peer = entry.id
        entry.awaitingLinkEnd[id] = { linkEnd in
            waiter.fail(bleuError(fromCoreBluetooth: error, peer: peer, during: .operation(operation, linkEnd: linkEnd)))
        }
        queue.asyncAfter(Self.linkEndGrace) { [weak self] in
            self?.peripherals[peer]?.awaitingLinkEnd.removeValue(forKey: id)?(nil)
        }
    }
}

// MARK: - CBCentralManagerDelegate

extension CentralCore: CBCentralManagerDelegate {
    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        let new = ManagerState(central.state)
        guard new != state else { return }
        state = new
        events.yield(.stateChanged(new))
        guard let error = new.unavailableError else { return }
        // The radio is gone: the scan ends, attempts fail, connections end.
        endScan(error: error)
        for entry in peripherals.values {
            for waiter in entry.connects { waiter.fail(error) }
            entry.connects.removeAll()
            linkEnded(entry, reason: new == .unauthorized ? .localHostTerminated : .poweredOff)
        }
    }

    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        let restored = dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral] ?? []
        var subscriptions: [RemoteCharacteristic] = []
        for peripheral in restored {
            let entry = entry(for: peripheral)
            entry.isConnected = peripheral.state == .connected
            guard entry.isConnected else { continue }
            // The services the restored peripheral still has, and the characteristics whose
            // notifications are on: subscribing to them again rewrites nothing.
            let services = peripheral.services ?? []
            for service in services {
                let remoteService = entry.register(service: service, among: services, includedBy: nil)
                let characteristics = service.characteristics ?? []
                for characteristic in characteristics where characteristic.isNotifying {
                    let remote = entry.register(characteristic: characteristic, among: characteristics, service: remoteService.handle)
                    entry.subscriptions[remote.valueHandle] = PeripheralEntry.Subscription(characteristic: remote, enabled: true)
                    subscriptions.append(remote)
                }
            }
        }
        var scanOptions: ScanOptions?
        let services = dict[CBCentralManagerRestoredStateScanServicesKey] as? [CBUUID]
        let options = dict[CBCentralManagerRestoredStateScanOptionsKey] as? [String: Any]
        if services != nil || options != nil {
            scanOptions = CoreBluetoothVocabulary.scanOptions(services: services?.isEmpty == false ? services : nil, options: options)
        }
        let restoration = CentralRestoration(peripherals: restored.map(\.identifier), scanOptions: scanOptions,
                                             subscriptions: subscriptions)
        self.restoration = restoration
        events.yield(.willRestoreState(restoration))
    }

    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                        advertisementData: [String: Any], rssi RSSI: NSNumber) {
        guard var running = scan else { return }
        let entry = entry(for: peripheral)
        if !running.options.allowDuplicates {
            guard running.reported.insert(entry.id).inserted else { return }
            scan = running
        }
        let data: AdvertisingData
        do {
            data = try advertisingData(fromCoreBluetooth: advertisementData)
        } catch {
            // CoreBluetooth's own dictionary has the types it documents; one that does not is
            // reported, not skipped.
            endScan(error: .invalidData(.advertisement(from: entry.id)))
            manager.stopScan()
            return
        }
        let connectable = (advertisementData[CBAdvertisementDataIsConnectable] as? NSNumber)?.boolValue ?? true
        running.continuation.yield(Advertisement(peripheral: entry.id, data: data, rssi: RSSI.intValue,
                                                 isConnectable: connectable))
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        let entry = entry(for: peripheral)
        if !entry.isConnected {
            entry.isConnected = true
            events.yield(.connected(entry.id))
        }
        for waiter in entry.connects { waiter.succeed() }
        entry.connects.removeAll()
    }

    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?) {
        let entry = entry(for: peripheral)
        let failure = error.map { bleuError(fromCoreBluetooth: $0, peer: entry.id, during: .connecting) }
            ?? .connectionFailed(entry.id, reason: .unspecified)
        for waiter in entry.connects { waiter.fail(failure) }
        entry.connects.removeAll()
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?) {
        let entry = entry(for: peripheral)
        // A peripheral that was only being connected ends here too when the attempt was
        // cancelled; its callers were answered already.
        linkEnded(entry, reason: disconnectReason(fromCoreBluetooth: error))
        for waiter in entry.disconnects { waiter.succeed() }
        entry.disconnects.removeAll()
    }
}
