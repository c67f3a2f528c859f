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
    private let backing: ManagerBacking<PeripheralKey, PeripheralEvent>

    /// The peripheral's node in the engine (a peripheral on a local bus only).
    var key: PeripheralKey { backing.key }
    private var generation: Int { backing.generation }
    private var hub: EventHub<PeripheralEvent> { backing.hub }
    /// The peripheral's line to the hub, on a bus connected to one.
    var remote: RemoteManager? { backing.remote }

    /// Creates a peripheral on `bus`. With a `restoreIdentifier` that a peripheral on this bus
    /// used before, the new manager takes over its services (same handles), advertising and
    /// connections, and its event streams start with ``/BleuCore/PeripheralEvent/willRestoreState(_:)``.
    public init(bus: EmulatorBus, restoreIdentifier: String? = nil, options: Options = Options()) {
        self.bus = bus
        self.restoreIdentifier = restoreIdentifier
        if let client = bus.remote {
            let number = client.newNumber()
            client.post(.attachPeripheral(manager: number, restoreIdentifier: restoreIdentifier, mtu: options.attMTU,
                                          device: options.deviceIdentifier, distance: options.distance))
            backing = .remote(RemoteManager(client: client, number: number))
            return
        }
        let (key, generation, hub) = bus.withEngine { engine in
            let attached = engine.attachPeripheral(restoreIdentifier: restoreIdentifier, device: options.deviceIdentifier,
                                                   mtu: options.attMTU)
            if let distance = options.distance { engine.peripherals[attached.key]?.distance = max(0, distance) }
            return attached
        }
        backing = .local(key, generation: generation, hub: hub)
    }

    deinit {
        switch backing {
        case .local(let key, let generation, _):
            bus.withEngine { $0.detachPeripheral(key, generation: generation) }
        case .remote(let remote):
            remote.client.post(.detach(manager: remote.number))
        }
    }

    public var state: ManagerState {
        get async {
            guard let remote else { return currentState }
            return (try? await call(remote, .state).state) ?? .unknown
        }
    }

    public func events() -> AsyncStream<PeripheralEvent> {
        guard let remote else { return hub.subscribe() }
        let client = remote.client, stream = client.newNumber()
        remote.start(.peripheral(manager: remote.number, .events(stream: stream, push: false)))
        return client.pulledEvents(stream) { element in
            guard case .peripheral(let event) = element else { return nil }
            return event.event(on: client)
        }
    }

    // MARK: Services

    public func add(_ service: ServiceDefinition) async throws -> PublishedService {
        guard let remote else { return try addNow(service) }
        return try await call(remote, .add(service)).expect(\.published, for: .addService)
    }

    public func remove(_ service: PublishedService) async throws {
        guard let remote else { return try removeNow(service) }
        _ = try await call(remote, .remove(service))
    }

    public func removeAllServices() async {
        guard let remote else { return removeAllServicesNow() }
        _ = try? await call(remote, .removeAllServices)
    }

    // MARK: Advertising

    public func startAdvertising(_ advertisement: AdvertisingData, scanResponse: AdvertisingData?) async throws {
        try await startAdvertising(advertisement, scanResponse: scanResponse, connectable: true)
    }

    public func stopAdvertising() async {
        guard let remote else { return stopAdvertisingNow() }
        _ = try? await call(remote, .stopAdvertising)
    }

    public var isAdvertising: Bool {
        get async {
            guard let remote else { return isAdvertisingNow }
            return (try? await call(remote, .isAdvertising).bool) ?? false
        }
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
        guard let remote else { return updateValueNow(value, for: characteristic, onSubscribedCentrals: centrals) }
        return (try? await call(remote, .updateValue(value, for: characteristic, centrals: centrals)).bool) ?? false
    }

    public func maximumUpdateValueLength(for central: UUID) async -> Int? {
        guard let remote else { return maximumUpdateValueLengthNow(for: central) }
        return (try? await call(remote, .maximumUpdateValueLength(central)).optionalInt) ?? nil
    }

    // MARK: Security

    public func securityLevel(of central: UUID) async -> SecurityLevel? {
        if let remote { return (try? await call(remote, .securityLevel(central)).security) ?? nil }
        return securityLevelNow(of: central)
    }

    /// Asks the central for security as ``/BleuCore/PeripheralManager/pair(_:minimum:)`` says;
    /// the emulated central answers as CoreBluetooth does, by pairing (or encrypting with the
    /// bond) under the bus's ``PairingConfiguration``.
    public func pair(_ central: UUID, minimum: SecurityLevel) async throws {
        if let remote {
            _ = try await call(remote, .pair(central, minimum: minimum))
            return
        }
        try await bus.awaiting { pair(central, minimum: minimum, id: $0, completion: $1) }
    }

    /// The link between this peripheral and `central`.
    private func linkID(to central: UUID, in engine: Engine) -> LinkID? {
        engine.peripherals[key]?.links.values.first { engine.links[$0]?.centralID == central }
    }

    // MARK: L2CAP

    public func publishL2CAPChannel(requiresEncryption: Bool) async throws -> UInt16 {
        guard let remote else { return try publishL2CAPChannelNow(requiresEncryption: requiresEncryption) }
        return try await call(remote, .publishL2CAPChannel(requiresEncryption: requiresEncryption)).expect(\.psm, for: .publishChannel)
    }

    public func unpublishL2CAPChannel(_ psm: UInt16) async throws {
        guard let remote else { return try unpublishL2CAPChannelNow(psm) }
        _ = try await call(remote, .unpublishL2CAPChannel(psm))
    }

    // MARK: The same calls, synchronous (package: the delegate-style API's path)
    //
    // Each takes effect at once, in call order, with the results and errors of the async
    // calls above, which are built on these.

    /// The radio's state now.
    package var currentState: ManagerState {
        if let remote { return (try? now(remote, .state).state) ?? .unknown }
        return bus.withEngine { $0.peripherals[key]?.state ?? .unknown }
    }

    /// Pushes everything ``events()`` would stream, in order, to `sink`, which calls
    /// `handled` once the application has handled the event (a write command's slot frees
    /// then). Keep the returned subscription to keep receiving.
    package func events(sink: @escaping @Sendable (PeripheralEvent, _ handled: @escaping @Sendable () -> Void) -> Void) -> EventSubscription {
        if let remote {
            let client = remote.client, stream = client.newNumber()
            client.setSink(stream) { delivery in
                if case .element(.peripheral(let event), let handled) = delivery { sink(event.event(on: client), handled) }
            }
            // Waits for the hub's answer: the events every stream starts with (the state) are
            // pushed before it, so the sink has them on return, as on a local bus.
            _ = try? now(remote, .events(stream: stream, push: true))
            return EventSubscription {
                client.setSink(stream, nil)
                client.post(.release(stream: stream))
            }
        }
        let hub = hub
        let id = bus.withEngine { _ in hub.subscribe(sink: sink) }
        return EventSubscription { hub.unsubscribe(id) }
    }

    package func addNow(_ service: ServiceDefinition) throws -> PublishedService {
        if let remote { return try now(remote, .add(service)).expect(\.published, for: .addService) }
        return try bus.withEngine { engine throws(BleuError) in
            _ = try engine.poweredPeripheral(key, generation: generation)
            let published = try engine.peripherals[key]!.database.add(service)
            engine.servicesChanged(peripheral: key)
            return published
        }
    }

    package func removeNow(_ service: PublishedService) throws {
        if let remote {
            _ = try now(remote, .remove(service))
            return
        }
        try bus.withEngine { engine throws(BleuError) in
            _ = try engine.poweredPeripheral(key, generation: generation)
            try engine.peripherals[key]!.database.remove(service)
            engine.servicesChanged(peripheral: key)
        }
    }

    package func removeAllServicesNow() {
        if let remote { return remote.start(.peripheral(manager: remote.number, .removeAllServices)) }
        bus.withEngine { engine in
            guard (try? engine.peripheral(key, generation: generation)) != nil,
                  engine.peripherals[key]?.database.isEmpty == false else { return }
            engine.peripherals[key]?.database.removeAll()
            engine.servicesChanged(peripheral: key)
        }
    }

    package func startAdvertisingNow(_ advertisement: AdvertisingData, scanResponse: AdvertisingData?,
                                     connectable: Bool = true) throws {
        if let remote {
            _ = try now(remote, .startAdvertising(advertisement, scanResponse: scanResponse, connectable: connectable))
            return
        }
        try bus.withEngine { engine throws(BleuError) in
            _ = try engine.poweredPeripheral(key, generation: generation)
            try engine.startAdvertising(peripheral: key, advertisement, scanResponse: scanResponse, connectable: connectable)
        }
    }

    package func stopAdvertisingNow() {
        if let remote { return remote.start(.peripheral(manager: remote.number, .stopAdvertising)) }
        bus.withEngine { engine in
            guard (try? engine.peripheral(key, generation: generation)) != nil else { return }
            engine.stopAdvertising(peripheral: key)
        }
    }

    package var isAdvertisingNow: Bool {
        if let remote { return (try? now(remote, .isAdvertising).bool) ?? false }
        return bus.withEngine { $0.peripherals[key]?.advertising != nil }
    }

    package func respondNow(to request: ReadRequest, with result: Result<Data, ATTError>) {
        if let remote { return remote.start(.peripheral(manager: remote.number, .respondToRead(request, result))) }
        bus.withEngine { $0.respondToRead(peripheral: key, request: request.id.rawValue, with: result) }
    }

    package func respondNow(to request: WriteRequests, with result: Result<Void, ATTError>) {
        guard request.needsResponse else { return }
        if let remote { return remote.start(.peripheral(manager: remote.number, .respondToWrite(request, result))) }
        bus.withEngine { $0.respondToWrite(peripheral: key, request: request.id.rawValue, with: result) }
    }

    package func updateValueNow(_ value: Data, for characteristic: PublishedCharacteristic,
                                onSubscribedCentrals centrals: [UUID]?) -> Bool {
        if let remote { return (try? now(remote, .updateValue(value, for: characteristic, centrals: centrals)).bool) ?? false }
        return bus.withEngine { engine in
            guard (try? engine.peripheral(key, generation: generation)) != nil else { return false }
            return engine.updateValue(peripheral: key, value, for: characteristic, centrals: centrals)
        }
    }

    package func maximumUpdateValueLengthNow(for central: UUID) -> Int? {
        if let remote { return (try? now(remote, .maximumUpdateValueLength(central)).optionalInt) ?? nil }
        return bus.withEngine { engine in
            engine.peripherals[key]?.links.values.compactMap { engine.links[$0] }.first { $0.centralID == central }.map { $0.mtu - 3 }
        }
    }

    package func publishL2CAPChannelNow(requiresEncryption: Bool) throws -> UInt16 {
        if let remote { return try now(remote, .publishL2CAPChannel(requiresEncryption: requiresEncryption)).expect(\.psm, for: .publishChannel) }
        return try bus.withEngine { engine throws(BleuError) in
            _ = try engine.poweredPeripheral(key, generation: generation)
            return try engine.publishChannel(peripheral: key, requiresEncryption: requiresEncryption)
        }
    }

    package func unpublishL2CAPChannelNow(_ psm: UInt16) throws {
        if let remote {
            _ = try now(remote, .unpublishL2CAPChannel(psm))
            return
        }
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
        if let remote {
            _ = try await call(remote, .startAdvertising(advertisement, scanResponse: scanResponse, connectable: connectable))
            return
        }
        try startAdvertisingNow(advertisement, scanResponse: scanResponse, connectable: connectable)
    }

    /// Ends the connection to a central from the peripheral's side (as a BLE peripheral may;
    /// CoreBluetooth offers no call for it). The central reports
    /// ``/BleuCore/DisconnectReason/remoteUserTerminated``, this side
    /// ``/BleuCore/DisconnectReason/localHostTerminated``. Returns once the link is down.
    public func disconnect(_ central: UUID) async {
        if let remote {
            _ = try? await call(remote, .disconnect(central))
            return
        }
        let _: Void? = try? await bus.awaiting { disconnect(central, id: $0, completion: $1) }
    }

    /// The centrals connected now, as this peripheral knows them.
    public var connectedCentrals: [UUID] {
        get async {
            if let remote { return (try? await call(remote, .connectedCentrals).centrals) ?? [] }
            return connectedCentralsNow
        }
    }

    // MARK: Beyond CoreBluetooth, without waiting (package: the hub's path)

    /// The link's security level now; `nil` without a link.
    package func securityLevelNow(of central: UUID) -> SecurityLevel? {
        bus.withEngine { engine in linkID(to: central, in: engine).flatMap { engine.links[$0]?.security } }
    }

    package func pair(_ central: UUID, minimum: SecurityLevel, id: OperationID, completion: @escaping Completion<Void>) {
        bus.begin(id, { engine, id throws(BleuError) in
            _ = try engine.poweredPeripheral(key, generation: generation)
            guard let link = linkID(to: central, in: engine) else { throw .notConnected(central) }
            engine.raiseSecurity(on: link, to: minimum, operation: id)
        }, completion: { completion($0.map { _ in }) })
    }

    /// Ends the link to `central`, as ``disconnect(_:)``; completes once it is down.
    package func disconnect(_ central: UUID, id: OperationID, completion: @escaping Completion<Void>) {
        bus.begin(id, { engine, id throws(BleuError) in
            guard let link = engine.peripherals[key]?.links.values.first(where: { engine.links[$0]?.centralID == central }) else {
                engine.succeed(id)
                return
            }
            engine.terminate(link, from: .peripheralToCentral, code: DisconnectReason.remoteUserTerminated.hciCode, waiter: id)
        }, completion: { completion($0.map { _ in }) })
    }

    package var connectedCentralsNow: [UUID] {
        bus.withEngine { engine in
            (engine.peripherals[key]?.links.values.sorted() ?? []).compactMap { engine.links[$0]?.centralID }
        }
    }

    /// The process behind this peripheral went away (a hub's client): it stops advertising
    /// and its peers see its links time out. A peripheral on a local bus only.
    package func vanish() {
        bus.withEngine { $0.vanishPeripheral(key, generation: generation) }
    }
}

extension EmulatedPeripheralManager {
    /// A call to this peripheral's counterpart at the hub.
    private func call(_ remote: RemoteManager, _ call: PeripheralCall) async throws -> HubValue {
        try await remote.client.call(.peripheral(manager: remote.number, call))
    }

    /// A call that blocks until the hub answers (the synchronous calls' path).
    private func now(_ remote: RemoteManager, _ call: PeripheralCall) throws -> HubValue {
        try remote.client.now(.peripheral(manager: remote.number, call))
    }
}

extension HubPeripheralEvent {
    /// The event as the application sees it: an opened channel becomes this client's end of it.
    func event(on client: HubClient) -> PeripheralEvent {
        switch self {
        case .event(let event): event
        case .channelOpened(let channel): .l2capChannelOpened(client.channel(channel))
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
