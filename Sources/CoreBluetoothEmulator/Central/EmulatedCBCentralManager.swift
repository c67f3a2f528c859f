import BleuCore
import Foundation

/// CoreBluetooth's `CBCentralManager` on Bleu's emulator: scan, connect, and reach peripherals'
/// services through ``EmulatedCBPeripheral``, with delegate callbacks on the queue given at
/// init (the main queue for `nil`), in CoreBluetooth's order.
///
/// Underneath is the emulator's ``/BleuEmulator/EmulatedCentralManager`` with its link model:
/// connections, discovery, reads and writes take the air time the bus's configuration gives
/// them, faults come from its seed, and virtual time works as for the native API.
///
/// ```swift
/// let central = EmulatedCBCentralManager(delegate: self, queue: nil)
/// // centralManagerDidUpdateState(_:) → .poweredOn, then:
/// central.scanForPeripherals(withServices: [CBUUID(string: "180D")])
/// ```
public class EmulatedCBCentralManager: EmulatedCBManager {
    /// What a central manager can do beyond the basics (CoreBluetooth's `CBCentralManager.Feature`).
    public struct Feature: OptionSet, Sendable, Hashable {
        public let rawValue: UInt

        public init(rawValue: UInt) {
            self.rawValue = rawValue
        }

        /// Extended scanning and connection events (``registerForConnectionEvents(options:)``).
        public static let extendedScanAndConnect = Feature(rawValue: 1)
    }

    struct Table {
        var peripherals: [UUID: EmulatedCBPeripheral] = [:]
        var isScanning = false
        /// Numbers scans, so what an ended scan delivers late is told apart from the current one's.
        var scan = 0
        /// Set by `registerForConnectionEvents`: which peers' connection events to report.
        var connectionEventFilter: ConnectionEventFilter?
        /// Peers whose connection was reported, so their disconnection is too.
        var connectionEventPeers: Set<UUID> = []
    }

    /// The emulator's central underneath.
    let core: EmulatedCentralManager

    /// The emulator's central underneath, for a test's controls on the bus
    /// (``/BleuEmulator/EmulatorBus/setState(_:of:)-(_,EmulatedCentralManager)``, ``/BleuEmulator/EmulatorBus/loseLink(between:and:)``).
    public var emulatorManager: EmulatedCentralManager { core }
    let callbacks: CallbackQueue
    let table = Locked(Table())
    private let delegateBox = WeakDelegate(nil)
    private var subscription: EventSubscription?

    /// The object that receives the manager's callbacks.
    public weak var delegate: (any EmulatedCBCentralManagerDelegate)? {
        get { delegateBox.get(as: (any EmulatedCBCentralManagerDelegate).self) }
        set { delegateBox.set(newValue) }
    }

    /// A central on ``/BleuEmulator/EmulatorBus/shared``, with no delegate, on the main queue.
    public convenience init() {
        self.init(delegate: nil, queue: nil)
    }

    /// A central on ``/BleuEmulator/EmulatorBus/shared`` whose callbacks run on `queue` (the main queue for `nil`).
    public convenience init(delegate: (any EmulatedCBCentralManagerDelegate)?, queue: DispatchQueue?) {
        self.init(delegate: delegate, queue: queue, options: nil)
    }

    /// A central on ``/BleuEmulator/EmulatorBus/shared`` with CoreBluetooth's initialization
    /// options: `CBCentralManagerOptionRestoreIdentifierKey` restores a predecessor's
    /// connections, scan and subscriptions (``EmulatedCBCentralManagerDelegate/centralManager(_:willRestoreState:)``);
    /// `CBCentralManagerOptionShowPowerAlertKey` has no effect in the emulator.
    public convenience init(delegate: (any EmulatedCBCentralManagerDelegate)?, queue: DispatchQueue?,
                            options: [String: Any]? = nil) {
        self.init(delegate: delegate, queue: queue, options: options, bus: .shared)
    }

    /// A central on `bus` — tests give each its own bus, so they stay isolated.
    public init(delegate: (any EmulatedCBCentralManagerDelegate)?, queue: DispatchQueue?, options: [String: Any]? = nil,
                bus: EmulatorBus) {
        let restores = bus.configuration.coreBluetooth.stateRestorationEnabled
        core = EmulatedCentralManager(bus: bus, restoreIdentifier: restores
            ? options?[CBCentralManagerOptionRestoreIdentifierKey] as? String : nil)
        callbacks = CallbackQueue(queue)
        super.init(initialState: .unknown)
        delegateBox.set(delegate)
        let handoff = WeakHandoff(self)
        let callbacks = callbacks
        let gate = StartupGate()
        subscription = core.events { event in
            let restoration = if case .willRestoreState = event { true } else { false }
            gate.pass(first: restoration) { callbacks.async { handoff.object?.handle(event) } }
        }
        gate.open()
    }

    /// Whether CoreBluetooth's optional features are available: the emulator has them all.
    public class func supports(_ features: Feature) -> Bool {
        Feature.extendedScanAndConnect.isSuperset(of: features)
    }

    // MARK: Scanning

    /// Whether a scan is running.
    public var isScanning: Bool {
        table.withLock { $0.isScanning }
    }

    /// Scans for peripherals advertising any of `serviceUUIDs` (every peripheral for `nil`);
    /// each is reported through ``EmulatedCBCentralManagerDelegate/centralManager(_:didDiscover:advertisementData:rssi:)``,
    /// once per scan unless `CBCentralManagerScanOptionAllowDuplicatesKey` is true.
    /// `CBCentralManagerScanOptionSolicitedServiceUUIDsKey` also reports peripherals soliciting
    /// those services. A new scan replaces the running one.
    public func scanForPeripherals(withServices serviceUUIDs: [CBUUID]?, options: [String: Any]? = nil) {
        guard !refuseUnlessPoweredOn("scanForPeripherals") else { return }
        let handoff = WeakHandoff(self)
        let callbacks = callbacks
        // Scanning before the scan starts: with instant timing its first advertisements are
        // on the queue before `scan` returns.
        let scan = table.withLock { table in
            table.scan += 1
            table.isScanning = true
            return table.scan
        }
        do {
            try core.scan(scanOptions(services: serviceUUIDs, options: options)) { delivery in
                callbacks.async { handoff.object?.scanDelivered(delivery, scan: scan) }
            }
        } catch {
            table.withLock { if $0.scan == scan { $0.isScanning = false } }
            report("scanForPeripherals failed: \(error)")
        }
    }

    /// Stops scanning.
    public func stopScan() {
        core.stopScanning()
        table.withLock { $0.isScanning = false }
    }

    // MARK: Connections

    /// Connects to a peripheral; ``EmulatedCBCentralManagerDelegate/centralManager(_:didConnect:)``
    /// or ``EmulatedCBCentralManagerDelegate/centralManager(_:didFailToConnect:error:)`` follows.
    /// As with CoreBluetooth the attempt does not time out: cancel it with
    /// ``cancelPeripheralConnection(_:)``. Connection options are accepted and have no effect.
    public func connect(_ peripheral: EmulatedCBPeripheral, options: [String: Any]? = nil) {
        guard !refuseUnlessPoweredOn("connect") else { return }
        guard peripheral.state != .connected else { return }
        peripheral.setState(.connecting)
        let handoff = WeakHandoff(self)
        let callbacks = callbacks
        let target = Unchecked(peripheral)
        core.connect(peripheral.identifier, timeout: nil) { result in
            callbacks.async { handoff.object?.connectCompleted(target.value, result) }
        }
    }

    /// Disconnects from a peripheral, or cancels a pending connection;
    /// ``EmulatedCBCentralManagerDelegate/centralManager(_:didDisconnectPeripheral:error:)``
    /// follows with no error.
    public func cancelPeripheralConnection(_ peripheral: EmulatedCBPeripheral) {
        guard peripheral.state == .connected || peripheral.state == .connecting else { return }
        if peripheral.state == .connected { peripheral.setState(.disconnecting) }
        core.cancelConnection(peripheral.identifier) { _ in }
    }

    /// The peripherals among `identifiers` this central knows (seen, connected or bonded).
    public func retrievePeripherals(withIdentifiers identifiers: [UUID]) -> [EmulatedCBPeripheral] {
        core.retrievePeripheralsNow(withIdentifiers: identifiers).map(peripheral(for:))
    }

    /// The connected peripherals hosting any of `serviceUUIDs`.
    public func retrieveConnectedPeripherals(withServices serviceUUIDs: [CBUUID]) -> [EmulatedCBPeripheral] {
        core.retrieveConnectedPeripheralsNow(withServices: serviceUUIDs.map { BluetoothUUID($0) }).map(peripheral(for:))
    }

    /// Reports ``EmulatedCBCentralManagerDelegate/centralManager(_:connectionEventDidOccur:for:)``
    /// for this central's connections to peers matching the options
    /// (`CBConnectionEventMatchingOption.peripheralUUIDs`, `.serviceUUIDs`; every peer for `nil`).
    public func registerForConnectionEvents(options: [CBConnectionEventMatchingOption: Any]? = nil) {
        let filter = ConnectionEventFilter(
            peripherals: (options?[.peripheralUUIDs] as? [UUID]).map(Set.init),
            services: (options?[.serviceUUIDs] as? [CBUUID])?.map { BluetoothUUID($0) })
        table.withLock { $0.connectionEventFilter = filter }
    }

    // MARK: Beyond CoreBluetooth

    /// Changes a peripheral's ANCS authorization, as the user does in an iPhone's settings:
    /// ``EmulatedCBPeripheral/ancsAuthorized`` follows and, with
    /// ``/BleuEmulator/CoreBluetoothOptions/fireANCSAuthorizationUpdates``, the delegate hears
    /// ``EmulatedCBCentralManagerDelegate/centralManager(_:didUpdateANCSAuthorizationFor:)``.
    public func emulateANCSAuthorization(_ authorized: Bool, for peripheral: EmulatedCBPeripheral) {
        let target = Unchecked((self, peripheral))
        callbacks.async {
            let (manager, peripheral) = target.value
            let changed = peripheral.table.withLock { table in
                defer { table.ancsAuthorized = authorized }
                return table.ancsAuthorized != authorized
            }
            guard changed, manager.core.bus.configuration.coreBluetooth.fireANCSAuthorizationUpdates else { return }
            manager.delegate?.centralManager(manager, didUpdateANCSAuthorizationFor: peripheral)
        }
    }

    // MARK: Internals

    /// The one object for a peripheral identifier, made on first sight.
    func peripheral(for known: KnownPeripheral) -> EmulatedCBPeripheral {
        let peripheral = peripheral(for: known.id)
        if let name = known.name { peripheral.setName(name) }
        if known.isConnected, peripheral.state == .disconnected { peripheral.setState(.connected) }
        return peripheral
    }

    func peripheral(for identifier: UUID) -> EmulatedCBPeripheral {
        table.withLock { table in
            if let existing = table.peripherals[identifier] { return existing }
            let made = EmulatedCBPeripheral(identifier: identifier, manager: self)
            table.peripherals[identifier] = made
            return made
        }
    }

    private func handle(_ event: CentralEvent) {
        switch event {
        case .stateChanged(let state):
            observe(state)
            if state != .poweredOn {
                table.withLock { $0.isScanning = false }
            }
            delegate?.centralManagerDidUpdateState(self)
        case .willRestoreState(let restoration):
            restore(restoration)
        case .connected(let identifier):
            let peripheral = peripheral(for: identifier)
            peripheral.setState(.connected)
            reportConnectionEvent(.peerConnected, for: peripheral)
        case .disconnected(let identifier, let reason):
            let peripheral = peripheral(for: identifier)
            guard peripheral.state != .disconnected else { return }
            peripheral.linkEnded()
            delegate?.centralManager(self, didDisconnectPeripheral: peripheral, timestamp: Date().timeIntervalSinceReferenceDate,
                                     isReconnecting: false, error: coreBluetoothDisconnectionError(for: reason))
            reportConnectionEvent(.peerDisconnected, for: peripheral)
        case .mtuChanged:
            break  // CoreBluetooth has no callback; maximumWriteValueLength(for:) reflects it.
        case .readyToSendWriteWithoutResponse(let identifier):
            let peripheral = peripheral(for: identifier)
            peripheral.delegate?.peripheralIsReady(toSendWriteWithoutResponse: peripheral)
        case .servicesChanged(let identifier):
            peripheral(for: identifier).servicesInvalidated()
        }
    }

    private func scanDelivered(_ delivery: StreamDelivery<Advertisement>, scan: Int) {
        guard table.withLock({ $0.isScanning && $0.scan == scan }) else { return }  // stopped or replaced
        switch delivery {
        case .element(let advertisement):
            let peripheral = peripheral(for: advertisement.peripheral)
            if let name = advertisement.localName { peripheral.setName(name) }
            let generates = core.bus.configuration.coreBluetooth.autoGenerateAdvertisementFields
            let dictionary = advertisementDictionary(advertisement.data, isConnectable: advertisement.isConnectable,
                                                     autoGeneratedTxPower: generates ? txPower(of: advertisement.peripheral) : nil)
            delegate?.centralManager(self, didDiscover: peripheral, advertisementData: dictionary,
                                     rssi: NSNumber(value: advertisement.rssi))
        case .end:
            table.withLock { $0.isScanning = false }  // the radio stopped it
        }
    }

    private func connectCompleted(_ peripheral: EmulatedCBPeripheral, _ result: Result<Void, any Error>) {
        switch result {
        case .success:
            peripheral.setState(.connected)
            delegate?.centralManager(self, didConnect: peripheral)
        case .failure(BleuError.cancelled):
            // cancelPeripheralConnection(_:) on a pending attempt: CoreBluetooth reports a disconnection.
            guard peripheral.state != .disconnected else { return }
            peripheral.linkEnded()
            delegate?.centralManager(self, didDisconnectPeripheral: peripheral, timestamp: Date().timeIntervalSinceReferenceDate,
                                     isReconnecting: false, error: nil)
        case .failure(let error):
            guard peripheral.state == .connecting else { return }
            peripheral.setState(.disconnected)
            delegate?.centralManager(self, didFailToConnect: peripheral, error: coreBluetoothError(for: error))
        }
    }

    private func restore(_ restoration: CentralRestoration) {
        var dictionary: [String: Any] = [:]
        let peripherals = restoration.peripherals.map { identifier in
            let peripheral = peripheral(for: identifier)
            peripheral.setState(core.isConnectedNow(identifier) ? .connected : .connecting)
            return peripheral
        }
        dictionary[CBCentralManagerRestoredStatePeripheralsKey] = peripherals
        if let scan = restoration.scanOptions {
            let arguments = coreBluetoothScanArguments(scan)
            dictionary[CBCentralManagerRestoredStateScanServicesKey] = arguments.services ?? []
            dictionary[CBCentralManagerRestoredStateScanOptionsKey] = arguments.options
        }
        delegate?.centralManager(self, willRestoreState: dictionary)
    }

    /// The TX power level a peripheral that advertises none is reported with: between −12 and
    /// −4 dBm, fixed per peripheral by the bus's seed.
    private func txPower(of peripheral: UUID) -> Int {
        let bytes = withUnsafeBytes(of: peripheral.uuid) { Array($0) }
        let mixed = bytes.reduce(core.bus.seed) { ($0 &* 31) &+ UInt64($1) }
        return -12 + Int(mixed % 9)
    }

    private func reportConnectionEvent(_ event: CBConnectionEvent, for peripheral: EmulatedCBPeripheral) {
        guard core.bus.configuration.coreBluetooth.fireConnectionEvents,
              let filter = table.withLock({ $0.connectionEventFilter }) else { return }
        let identifier = peripheral.identifier
        switch event {
        case .peerConnected:
            if let services = filter.services,
               !core.retrieveConnectedPeripheralsNow(withServices: services).contains(where: { $0.id == identifier }) {
                return
            }
            if let peripherals = filter.peripherals, !peripherals.contains(identifier) { return }
            table.withLock { _ = $0.connectionEventPeers.insert(identifier) }
        case .peerDisconnected:
            guard table.withLock({ $0.connectionEventPeers.remove(identifier) }) != nil else { return }
        @unknown default:
            return
        }
        delegate?.centralManager(self, connectionEventDidOccur: event, for: peripheral)
    }

}

/// Which peers `registerForConnectionEvents(options:)` reports: `nil` fields match every peer.
struct ConnectionEventFilter {
    var peripherals: Set<UUID>?
    var services: [BluetoothUUID]?
}
