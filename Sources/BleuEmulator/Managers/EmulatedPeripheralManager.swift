import BleuATT
import BleuCore
import Foundation

/// The peripheral role on an ``EmulatorBus``: BleuCore's ``/BleuCore/PeripheralManager``
/// with CoreBluetooth's semantics. The application answers every read and write of a
/// characteristic that has no static value; the emulator enforces properties, permissions,
/// lengths and security before a request reaches it.
///
/// As with CoreBluetooth, the peripheral lives as long as its manager: when the last
/// reference goes, it stops advertising and its connections end — unless it was created with
/// a restore identifier, in which case its state waits for the manager that restores it.
public final class EmulatedPeripheralManager: PeripheralManager {
    /// What makes one peripheral different from another.
    public struct Options: Sendable {
        /// The ATT MTU this peripheral offers; `nil` takes the bus's ``EmulatorConfiguration/peripheralMTU``.
        public var attMTU: Int?
        /// Managers with the same device identifier are the same device on the bus (same
        /// address, identifiers and bonds).
        public var deviceIdentifier: String?
        /// The peripheral's distance from the centrals, in metres; `nil` takes
        /// ``RSSIModel/defaultDistance``.
        public var distance: Double?

        /// Options; each parameter sets the property of the same name.
        public init(attMTU: Int? = nil, deviceIdentifier: String? = nil, distance: Double? = nil) {
            self.attMTU = attMTU
            self.deviceIdentifier = deviceIdentifier
            self.distance = distance
        }
    }

    /// The bus the peripheral is on.
    public let bus: EmulatorBus
    public let restoreIdentifier: String?
    let key: PeripheralKey
    private let generation: Int
    private let hub: EventHub<PeripheralEvent>

    /// Creates a peripheral on `bus`. With a `restoreIdentifier` that a peripheral on this bus
    /// used before, the new manager takes over its services (same handles), advertising and
    /// connections, and its event streams start with ``/BleuCore/PeripheralEvent/willRestoreState(_:)``.
    public init(bus: EmulatorBus, restoreIdentifier: String? = nil, options: Options = Options()) {
        self.bus = bus
        self.restoreIdentifier = restoreIdentifier
        (key, generation, hub) = bus.withEngine { engine in
            let attached = engine.attachPeripheral(restoreIdentifier: restoreIdentifier, device: options.deviceIdentifier,
                                                   mtu: options.attMTU)
            if let distance = options.distance { engine.peripherals[attached.key]?.distance = max(0, distance) }
            return attached
        }
    }

    deinit {
        bus.withEngine { $0.detachPeripheral(key, generation: generation) }
    }

    public var state: ManagerState {
        get async { currentState }
    }

    public func events() -> AsyncStream<PeripheralEvent> {
        hub.subscribe()
    }

    // MARK: Services

    public func add(_ service: ServiceDefinition) async throws -> PublishedService {
        try addNow(service)
    }

    public func remove(_ service: PublishedService) async throws {
        try removeNow(service)
    }

    public func removeAllServices() async {
        removeAllServicesNow()
    }

    // MARK: Advertising

    public func startAdvertising(_ advertisement: AdvertisingData, scanResponse: AdvertisingData?) async throws {
        try startAdvertisingNow(advertisement, scanResponse: scanResponse)
    }

    public func stopAdvertising() async {
        stopAdvertisingNow()
    }

    public var isAdvertising: Bool {
        get async { isAdvertisingNow }
    }

    // MARK: Requests

    public func respond(to request: ReadRequest, with result: Result<Data, ATTError>) async {
        respondNow(to: request, with: result)
    }

    public func respond(to request: WriteRequests, with result: Result<Void, ATTError>) async {
        respondNow(to: request, with: result)
    }

    // MARK: Notifications

    /// Queues a notification (or indication) of `value` for the subscribed centrals.
    ///
    /// Returns `false`, queuing nothing, when the notification queue is full;
    /// ``/BleuCore/PeripheralEvent/readyToUpdateSubscribers`` follows when it drains. A value
    /// longer than a central's ATT MTU − 3 (``maximumUpdateValueLength(for:)``) is refused for
    /// that central: nothing goes to it, the bus's trace records a
    /// ``LinkTraceEvent/Kind/refused`` event, and the call still returns `true` (retrying would
    /// never fit, and no ready event would come), as for a central that is not subscribed.
    public func updateValue(_ value: Data, for characteristic: PublishedCharacteristic,
                            onSubscribedCentrals centrals: [UUID]?) async -> Bool {
        updateValueNow(value, for: characteristic, onSubscribedCentrals: centrals)
    }

    public func maximumUpdateValueLength(for central: UUID) async -> Int? {
        maximumUpdateValueLengthNow(for: central)
    }

    // MARK: Security

    public func securityLevel(of central: UUID) async -> SecurityLevel? {
        bus.withEngine { engine in linkID(to: central, in: engine).flatMap { engine.links[$0]?.security } }
    }

    /// Asks the central for security as ``/BleuCore/PeripheralManager/pair(_:minimum:)`` says;
    /// the emulated central answers as CoreBluetooth does, by pairing (or encrypting with the
    /// bond) under the bus's ``PairingConfiguration``.
    public func pair(_ central: UUID, minimum: SecurityLevel) async throws {
        let _: OperationResult = try await bus.awaiting { id, completion in
            bus.begin(id, { engine, id throws(BleuError) in
                _ = try engine.poweredPeripheral(key, generation: generation)
                guard let link = linkID(to: central, in: engine) else { throw .notConnected(central) }
                engine.raiseSecurity(on: link, to: minimum, operation: id)
            }, completion: completion)
        }
    }

    /// The link between this peripheral and `central`.
    private func linkID(to central: UUID, in engine: Engine) -> LinkID? {
        engine.peripherals[key]?.links.values.first { engine.links[$0]?.centralID == central }
    }

    // MARK: L2CAP

    public func publishL2CAPChannel(requiresEncryption: Bool) async throws -> UInt16 {
        try publishL2CAPChannelNow(requiresEncryption: requiresEncryption)
    }

    public func unpublishL2CAPChannel(_ psm: UInt16) async throws {
        try unpublishL2CAPChannelNow(psm)
    }

    // MARK: The same calls, synchronous (package: the delegate-style API's path)
    //
    // Each takes effect at once, in call order, with the results and errors of the async
    // calls above, which are built on these.

    /// The radio's state now.
    package var currentState: ManagerState {
        bus.withEngine { $0.peripherals[key]?.state ?? .unknown }
    }

    /// Pushes everything ``events()`` would stream, in order, to `sink`, which calls
    /// `handled` once the application has handled the event (a write command's slot frees
    /// then). Keep the returned subscription to keep receiving.
    package func events(sink: @escaping @Sendable (PeripheralEvent, _ handled: @escaping @Sendable () -> Void) -> Void) -> EventSubscription {
        let hub = hub
        let id = bus.withEngine { _ in hub.subscribe(sink: sink) }
        return EventSubscription { hub.unsubscribe(id) }
    }

    package func addNow(_ service: ServiceDefinition) throws -> PublishedService {
        try bus.withEngine { engine throws(BleuError) in
            _ = try engine.poweredPeripheral(key, generation: generation)
            let published = try engine.peripherals[key]!.database.add(service)
            engine.servicesChanged(peripheral: key)
            return published
        }
    }

    package func removeNow(_ service: PublishedService) throws {
        try bus.withEngine { engine throws(BleuError) in
            _ = try engine.poweredPeripheral(key, generation: generation)
            try engine.peripherals[key]!.database.remove(service)
            engine.servicesChanged(peripheral: key)
        }
    }

    package func removeAllServicesNow() {
        bus.withEngine { engine in
            guard (try? engine.peripheral(key, generation: generation)) != nil,
                  engine.peripherals[key]?.database.isEmpty == false else { return }
            engine.peripherals[key]?.database.removeAll()
            engine.servicesChanged(peripheral: key)
        }
    }

    package func startAdvertisingNow(_ advertisement: AdvertisingData, scanResponse: AdvertisingData?,
                                     connectable: Bool = true) throws {
        try bus.withEngine { engine throws(BleuError) in
            _ = try engine.poweredPeripheral(key, generation: generation)
            try engine.startAdvertising(peripheral: key, advertisement, scanResponse: scanResponse, connectable: connectable)
        }
    }

    package func stopAdvertisingNow() {
        bus.withEngine { engine in
            guard (try? engine.peripheral(key, generation: generation)) != nil else { return }
            engine.stopAdvertising(peripheral: key)
        }
    }

    package var isAdvertisingNow: Bool {
        bus.withEngine { $0.peripherals[key]?.advertising != nil }
    }

    package func respondNow(to request: ReadRequest, with result: Result<Data, ATTError>) {
        bus.withEngine { $0.respondToRead(peripheral: key, request: request.id.rawValue, with: result) }
    }

    package func respondNow(to request: WriteRequests, with result: Result<Void, ATTError>) {
        guard request.needsResponse else { return }
        bus.withEngine { $0.respondToWrite(peripheral: key, request: request.id.rawValue, with: result) }
    }

    package func updateValueNow(_ value: Data, for characteristic: PublishedCharacteristic,
                                onSubscribedCentrals centrals: [UUID]?) -> Bool {
        bus.withEngine { engine in
            guard (try? engine.peripheral(key, generation: generation)) != nil else { return false }
            return engine.updateValue(peripheral: key, value, for: characteristic, centrals: centrals)
        }
    }

    package func maximumUpdateValueLengthNow(for central: UUID) -> Int? {
        bus.withEngine { engine in
            engine.peripherals[key]?.links.values.compactMap { engine.links[$0] }.first { $0.centralID == central }.map { $0.mtu - 3 }
        }
    }

    package func publishL2CAPChannelNow(requiresEncryption: Bool) throws -> UInt16 {
        try bus.withEngine { engine throws(BleuError) in
            _ = try engine.poweredPeripheral(key, generation: generation)
            return try engine.publishChannel(peripheral: key, requiresEncryption: requiresEncryption)
        }
    }

    package func unpublishL2CAPChannelNow(_ psm: UInt16) throws {
        try bus.withEngine { engine throws(BleuError) in
            _ = try engine.peripheral(key, generation: generation)
            try engine.unpublishChannel(peripheral: key, psm: psm)
        }
    }

    // MARK: Beyond CoreBluetooth

    /// Starts advertising, connectable or not: a non-connectable advertisement only broadcasts
    /// (centrals see ``/BleuCore/Advertisement/isConnectable`` `false`, and connection attempts
    /// wait until the peripheral advertises connectably). Throws as
    /// ``startAdvertising(_:scanResponse:)`` does.
    public func startAdvertising(_ advertisement: AdvertisingData, scanResponse: AdvertisingData?,
                                 connectable: Bool) async throws {
        try startAdvertisingNow(advertisement, scanResponse: scanResponse, connectable: connectable)
    }

    /// Ends the connection to a central from the peripheral's side (as a BLE peripheral may;
    /// CoreBluetooth offers no call for it). The central reports
    /// ``/BleuCore/DisconnectReason/remoteUserTerminated``, this side
    /// ``/BleuCore/DisconnectReason/localHostTerminated``. Returns once the link is down.
    public func disconnect(_ central: UUID) async {
        _ = try? await bus.perform { engine, id throws(BleuError) in
            guard let link = engine.peripherals[key]?.links.values.first(where: { engine.links[$0]?.centralID == central }) else {
                engine.succeed(id)
                return
            }
            engine.terminate(link, from: .peripheralToCentral, code: DisconnectReason.remoteUserTerminated.hciCode, waiter: id)
        }
    }

    /// The centrals connected now, as this peripheral knows them.
    public var connectedCentrals: [UUID] {
        get async {
            bus.withEngine { engine in
                (engine.peripherals[key]?.links.values.sorted() ?? []).compactMap { engine.links[$0]?.centralID }
            }
        }
    }
}

extension Engine {
    /// The peripheral's database changed: subscriptions to characteristics that are gone end
    /// (their queued values are dropped), and connected centrals are told to rediscover
    /// (Service Changed).
    mutating func servicesChanged(peripheral key: PeripheralKey) {
        guard let node = peripherals[key] else { return }
        for linkID in node.links.values.sorted() {
            guard let link = links[linkID] else { continue }
            for handle in link.server.configurations.keys.sorted() where node.database.characteristic(valueHandle: handle) == nil {
                links[linkID]?.server.connection.configure(handle, 0)
                dropQueuedValues(handle: handle, on: linkID)
            }
            if link.isUp { centrals[link.central]?.hub.yield(.servicesChanged(link.peripheralID)) }
        }
    }
}
