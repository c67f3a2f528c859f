import BleuATT
import BleuCore
import Foundation

/// The central role on an ``EmulatorBus``: BleuCore's ``/BleuCore/CentralManager`` with
/// CoreBluetooth's semantics, on the emulator's link model.
///
/// A central knows each peripheral under an identifier of its own (random per bus, stable
/// for the bus's lifetime, never chosen by the peripheral), as on real hardware.
///
/// The central lives as long as its manager: when the last reference goes, its scan stops
/// and its connections end (the peripherals see ``/BleuCore/DisconnectReason/remoteUserTerminated``)
/// — unless it was created with a restore identifier, in which case they wait for the manager
/// that restores it.
public final class EmulatedCentralManager: CentralManager {
    /// What makes one central different from another.
    public struct Options: Sendable {
        /// The ATT MTU this central offers; `nil` takes the bus's ``EmulatorConfiguration/centralMTU``.
        public var attMTU: Int?
        /// Managers with the same device identifier are the same device on the bus: the same
        /// address, so the same identifiers for peripherals and the same bonds. `nil` makes a
        /// new device (or, with a restore identifier, the restored one).
        public var deviceIdentifier: String?
        /// Answers passkey entry during pairing (see ``PairingConfiguration/Method/passkeyEntry``).
        public var passkeyHandler: PasskeyHandler?

        /// Options; each parameter sets the property of the same name.
        public init(attMTU: Int? = nil, deviceIdentifier: String? = nil, passkeyHandler: PasskeyHandler? = nil) {
            self.attMTU = attMTU
            self.deviceIdentifier = deviceIdentifier
            self.passkeyHandler = passkeyHandler
        }
    }

    /// The bus the central is on.
    public let bus: EmulatorBus
    public let restoreIdentifier: String?
    private let backing: ManagerBacking<CentralKey, CentralEvent>

    /// The central's node in the engine (a central on a local bus only).
    var key: CentralKey { backing.key }
    private var generation: Int { backing.generation }
    private var hub: EventHub<CentralEvent> { backing.hub }
    /// The central's line to the hub, on a bus connected to one.
    var remote: RemoteManager? { backing.remote }

    /// Creates a central on `bus`. With a `restoreIdentifier` that a central on this bus used
    /// before, the new manager takes over that central's state — its connections (usable at
    /// once), scan and subscriptions — and its event streams start with
    /// ``/BleuCore/CentralEvent/willRestoreState(_:)``; a predecessor still alive stops working.
    public init(bus: EmulatorBus, restoreIdentifier: String? = nil, options: Options = Options()) {
        self.bus = bus
        self.restoreIdentifier = restoreIdentifier
        if let client = bus.remote {
            let number = client.newNumber()
            if let handler = options.passkeyHandler { client.setPasskeyHandler(handler, for: number) }
            client.post(.attachCentral(manager: number, restoreIdentifier: restoreIdentifier, mtu: options.attMTU,
                                       device: options.deviceIdentifier, passkeyHandler: options.passkeyHandler != nil))
            backing = .remote(RemoteManager(client: client, number: number))
            return
        }
        let (key, generation, hub) = bus.withEngine { engine in
            let attached = engine.attachCentral(restoreIdentifier: restoreIdentifier, device: options.deviceIdentifier,
                                                mtu: options.attMTU)
            if let handler = options.passkeyHandler { engine.centrals[attached.key]?.passkeyHandler = handler }
            return attached
        }
        backing = .local(key, generation: generation, hub: hub)
    }

    deinit {
        switch backing {
        case .local(let key, let generation, _):
            bus.withEngine { $0.detachCentral(key, generation: generation) }
        case .remote(let remote):
            remote.client.setPasskeyHandler(nil, for: remote.number)
            remote.client.post(.detach(manager: remote.number))
        }
    }

    /// Sets (or clears) the handler that enters passkeys during pairing.
    public func setPasskeyHandler(_ handler: PasskeyHandler?) {
        if let remote {
            remote.client.setPasskeyHandler(handler, for: remote.number)
            remote.start(.central(manager: remote.number, .setPasskeyHandler(handler != nil)))
            return
        }
        bus.withEngine { $0.centrals[key]?.passkeyHandler = handler }
    }

    public var state: ManagerState {
        get async {
            guard let remote else { return currentState }
            return (try? await call(remote, .state).state) ?? .unknown
        }
    }

    public func events() -> AsyncStream<CentralEvent> {
        guard let remote else { return hub.subscribe() }
        let stream = remote.client.newNumber()
        remote.start(.central(manager: remote.number, .events(stream: stream, push: false)))
        return remote.client.pulledEvents(stream) { $0.centralEvent }
    }

    // MARK: Scanning

    public func scan(_ options: ScanOptions) async throws -> AsyncThrowingStream<Advertisement, any Error> {
        if let remote {
            let stream = remote.client.newNumber()
            _ = try await call(remote, .scan(options, stream: stream, push: false))
            return remote.client.pulled(stream) { $0.advertisement }
        }
        return try scanNow(options)
    }

    public func stopScan() async {
        if let remote {
            _ = try? await call(remote, .stopScan)
            return
        }
        stopScanning()
    }

    // MARK: Connections

    public func connect(_ peripheral: UUID, timeout: Duration?) async throws {
        try await bus.awaiting { connect(peripheral, timeout: timeout, id: $0, completion: $1) }
    }

    public func cancelConnection(_ peripheral: UUID) async {
        _ = try? await bus.awaiting { cancelConnection(peripheral, id: $0, completion: $1) }
    }

    public func isConnected(_ peripheral: UUID) async -> Bool {
        guard let remote else { return isConnectedNow(peripheral) }
        return (try? await call(remote, .isConnected(peripheral)).bool) ?? false
    }

    public func retrievePeripherals(withIdentifiers identifiers: [UUID]) async -> [KnownPeripheral] {
        guard let remote else { return retrievePeripheralsNow(withIdentifiers: identifiers) }
        return (try? await call(remote, .retrievePeripherals(identifiers)).peripherals) ?? []
    }

    public func retrieveConnectedPeripherals(withServices services: [BluetoothUUID]) async -> [KnownPeripheral] {
        guard let remote else { return retrieveConnectedPeripheralsNow(withServices: services) }
        return (try? await call(remote, .retrieveConnectedPeripherals(services)).peripherals) ?? []
    }

    // MARK: Discovery

    public func discoverServices(_ uuids: [BluetoothUUID]?, on peripheral: UUID) async throws -> [RemoteService] {
        try await bus.awaiting { discoverServices(uuids, on: peripheral, id: $0, completion: $1) }
    }

    public func discoverIncludedServices(_ uuids: [BluetoothUUID]?, for service: RemoteService) async throws -> [RemoteService] {
        try await bus.awaiting { discoverIncludedServices(uuids, for: service, id: $0, completion: $1) }
    }

    public func discoverCharacteristics(_ uuids: [BluetoothUUID]?, for service: RemoteService) async throws -> [RemoteCharacteristic] {
        try await bus.awaiting { discoverCharacteristics(uuids, for: service, id: $0, completion: $1) }
    }

    public func discoverDescriptors(for characteristic: RemoteCharacteristic) async throws -> [RemoteDescriptor] {
        try await bus.awaiting { discoverDescriptors(for: characteristic, id: $0, completion: $1) }
    }

    // MARK: Reading and writing

    public func read(_ characteristic: RemoteCharacteristic) async throws -> Data {
        try await bus.awaiting { read(characteristic, id: $0, completion: $1) }
    }

    public func write(_ value: Data, to characteristic: RemoteCharacteristic, type: WriteType) async throws {
        switch type {
        case .withoutResponse:
            if let remote {
                _ = try await call(remote, .write(value, to: characteristic, .withoutResponse))
                return
            }
            try writeWithoutResponseNow(value, to: characteristic)
        case .withResponse:
            try await bus.awaiting { write(value, to: characteristic, id: $0, completion: $1) }
        }
    }

    public func canSendWriteWithoutResponse(to peripheral: UUID) async -> Bool {
        guard let remote else { return canSendWriteWithoutResponseNow(to: peripheral) }
        return (try? await call(remote, .canSendWriteWithoutResponse(peripheral)).bool) ?? false
    }

    public func read(_ descriptor: RemoteDescriptor) async throws -> Data {
        try await bus.awaiting { read(descriptor, id: $0, completion: $1) }
    }

    public func write(_ value: Data, to descriptor: RemoteDescriptor) async throws {
        try await bus.awaiting { write(value, to: descriptor, id: $0, completion: $1) }
    }

    // MARK: Notifications

    public func subscribe(to characteristic: RemoteCharacteristic) async throws -> AsyncThrowingStream<Data, any Error> {
        if let remote {
            let stream = remote.client.newNumber()
            _ = try await call(remote, .subscribe(characteristic, stream: stream, push: false))
            return remote.client.pulled(stream) { $0.data }
        }
        return try await bus.awaiting { subscribe(to: characteristic, id: $0, completion: $1) }
    }

    /// Delivers each value from the engine as it takes the notification off the air (or from
    /// the hub's connection, on a hub): no task between the radio and `receive`.
    public func subscribe(to characteristic: RemoteCharacteristic,
                          receive: @escaping @Sendable (ValueDelivery) -> Void) async throws -> ValueSubscription {
        let (subscriber, silence) = ValueSubscriber.receiver(receive)
        if let remote {
            let client = remote.client
            let stream = client.newNumber()
            client.setSink(stream) { delivery in
                switch delivery {
                case .element(.data(let value), _): _ = subscriber.deliver(value)
                case .element: break
                case .end(let error): subscriber.end(error)
                }
            }
            do {
                _ = try await call(remote, .subscribe(characteristic, stream: stream, push: true))
            } catch {
                client.setSink(stream, nil)
                throw error
            }
            return ValueSubscription {
                silence()
                client.setSink(stream, nil)
                client.post(.release(stream: stream))
            }
        }
        let stream: StreamID = try await bus.awaiting { id, completion in
            beginSubscription(to: characteristic, sink: { delivery in
                switch delivery {
                case .element(.data(let value)): _ = subscriber.deliver(value)
                case .element(.advertisement): break
                case .end(let error): subscriber.end(error)
                }
            }, id: id, completion: completion)
        }
        return ValueSubscription { [weak bus] in
            silence()
            bus?.whenUnlocked { $0.removeStream(stream) }
        }
    }

    public func unsubscribe(from characteristic: RemoteCharacteristic) async throws {
        try await bus.awaiting { unsubscribe(from: characteristic, id: $0, completion: $1) }
    }

    // MARK: Link properties

    public func attMTU(for peripheral: UUID) async throws -> Int {
        guard let remote else { return try attMTUNow(for: peripheral) }
        return try await call(remote, .attMTU(peripheral)).expect(\.int, for: .exchangeMTU)
    }

    public func maximumWriteValueLength(for peripheral: UUID, type: WriteType) async throws -> Int {
        guard let remote else { return try maximumWriteValueLengthNow(for: peripheral, type: type) }
        return try await call(remote, .maximumWriteValueLength(peripheral, type)).expect(\.int, for: .write)
    }

    public func readRSSI(of peripheral: UUID) async throws -> Int {
        guard let remote else { return try readRSSINow(of: peripheral) }
        return try await call(remote, .readRSSI(peripheral)).expect(\.int, for: .readRSSI)
    }

    // MARK: Security

    public func securityLevel(of peripheral: UUID) async -> SecurityLevel? {
        if let remote { return (try? await call(remote, .securityLevel(peripheral)).security) ?? nil }
        return securityLevelNow(of: peripheral)
    }

    /// Raises the link as ``/BleuCore/CentralManager/pair(_:minimum:)`` says, by the bus's
    /// ``PairingConfiguration``: its method decides the level pairing gives (Just Works:
    /// encrypted; passkey entry: authenticated, asking this manager's passkey handler).
    public func pair(_ peripheral: UUID, minimum: SecurityLevel) async throws {
        try await bus.awaiting { pair(peripheral, minimum: minimum, id: $0, completion: $1) }
    }

    // MARK: L2CAP

    public func openL2CAPChannel(psm: UInt16, on peripheral: UUID) async throws -> any L2CAPChannel {
        try await bus.awaiting { openL2CAPChannel(psm: psm, on: peripheral, id: $0, completion: $1) }
    }

    // MARK: The same operations without waiting (package: the delegate-style API's path)
    //
    // Each begins at once, in call order, and completes through `completion` inside the
    // engine, in the engine's order; results and errors are those of the async calls above,
    // which are built on these. `id` is the caller's operation number (`nil`: a new one).

    /// The radio's state now.
    package var currentState: ManagerState {
        if let remote { return (try? now(remote, .state).state) ?? .unknown }
        return bus.withEngine { $0.centrals[key]?.state ?? .unknown }
    }

    /// Pushes everything ``events()`` would stream, in order, to `sink`; keep the returned
    /// subscription to keep receiving.
    package func events(sink: @escaping @Sendable (CentralEvent) -> Void) -> EventSubscription {
        if let remote {
            let client = remote.client, stream = client.newNumber()
            client.setSink(stream) { delivery in
                if case .element(.central(let event), let handled) = delivery {
                    sink(event)
                    handled()
                }
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
        let id = bus.withEngine { _ in hub.subscribe(sink: { event, handled in sink(event); handled() }) }
        return EventSubscription { hub.unsubscribe(id) }
    }

    /// Starts a scan whose advertisements are pushed to `sink` (and its end, after
    /// ``stopScanning()`` or a power loss). Throws as ``scan(_:)``.
    package func scan(_ options: ScanOptions, sink: @escaping @Sendable (StreamDelivery<Advertisement>) -> Void) throws {
        if let remote {
            let stream = remote.client.newNumber()
            remote.client.setSink(stream) { delivery in
                switch delivery {
                case .element(.advertisement(let advertisement), _): sink(.element(advertisement))
                case .element: break
                case .end(let error): sink(.end(error))
                }
            }
            _ = try now(remote, .scan(options, stream: stream, push: true))
            return
        }
        try bus.withEngine { engine throws(BleuError) in
            _ = try engine.poweredCentral(key, generation: generation)
            _ = engine.startScan(central: key, options: options, sink: { delivery in
                switch delivery {
                case .element(.advertisement(let advertisement)): sink(.element(advertisement))
                case .element(.data): break
                case .end(let error): sink(.end(error))
                }
            })
        }
    }

    /// Starts a scan whose advertisements are pulled from the returned stream, as ``scan(_:)``
    /// (a central on a local bus).
    package func scanNow(_ options: ScanOptions) throws -> AsyncThrowingStream<Advertisement, any Error> {
        let stream = try bus.withEngine { engine throws(BleuError) in
            _ = try engine.poweredCentral(key, generation: generation)
            return engine.startScan(central: key, options: options)
        }
        return bus.advertisementStream(stream)
    }

    /// Stops the running scan, if any.
    package func stopScanning() {
        if let remote {
            remote.start(.central(manager: remote.number, .stopScan))
            return
        }
        bus.withEngine { engine in
            guard (try? engine.central(key, generation: generation)) != nil else { return }
            engine.stopScan(central: key)
        }
    }

    package func connect(_ peripheral: UUID, timeout: Duration?, id: OperationID? = nil, completion: @escaping Completion<Void>) {
        if let remote { return begin(remote, .connect(peripheral, timeout: timeout), id: id, completion: completion) { _ in () } }
        bus.begin(id ?? bus.newOperationID(), { engine, id throws(BleuError) in
            _ = try engine.central(key, generation: generation)
            try engine.connect(central: key, to: peripheral, timeout: timeout, operation: id)
        }, completion: { completion($0.map { _ in }) })
    }

    package func cancelConnection(_ peripheral: UUID, id: OperationID? = nil, completion: @escaping Completion<Void>) {
        if let remote { return begin(remote, .cancelConnection(peripheral), id: id, completion: completion) { _ in () } }
        bus.begin(id ?? bus.newOperationID(), { engine, id throws(BleuError) in
            _ = try engine.central(key, generation: generation)
            engine.cancelConnection(central: key, peripheralID: peripheral, operation: id)
        }, completion: { completion($0.map { _ in }) })
    }

    package func isConnectedNow(_ peripheral: UUID) -> Bool {
        if let remote { return (try? now(remote, .isConnected(peripheral)).bool) ?? false }
        return bus.withEngine { engine in
            guard let node = engine.centrals[key], let known = node.known[peripheral], let link = node.links[known] else { return false }
            return engine.links[link]?.isUp == true
        }
    }

    package func retrievePeripheralsNow(withIdentifiers identifiers: [UUID]) -> [KnownPeripheral] {
        if let remote { return (try? now(remote, .retrievePeripherals(identifiers)).peripherals) ?? [] }
        return bus.withEngine { engine in engine.retrievePeripherals(central: key, identifiers) }
    }

    package func retrieveConnectedPeripheralsNow(withServices services: [BluetoothUUID]) -> [KnownPeripheral] {
        if let remote { return (try? now(remote, .retrieveConnectedPeripherals(services)).peripherals) ?? [] }
        return bus.withEngine { engine in engine.retrieveConnectedPeripherals(central: key, services) }
    }

    package func discoverServices(_ uuids: [BluetoothUUID]?, on peripheral: UUID, id: OperationID? = nil,
                                  completion: @escaping Completion<[RemoteService]>) {
        if let remote {
            return begin(remote, .discoverServices(uuids, on: peripheral), id: id, completion: completion) { try $0.expect(\.services, for: .discoverServices) }
        }
        run(.discoverServices(filter: uuids), on: peripheral, id: id, completion: completion) {
            if case .services(let services) = $0 { services } else { [] }
        }
    }

    package func discoverIncludedServices(_ uuids: [BluetoothUUID]?, for service: RemoteService, id: OperationID? = nil,
                                          completion: @escaping Completion<[RemoteService]>) {
        if let remote {
            return begin(remote, .discoverIncludedServices(uuids, for: service), id: id, completion: completion) {
                try $0.expect(\.services, for: .discoverIncludedServices)
            }
        }
        run(.discoverIncluded(service: service, filter: uuids), on: service.peripheral, id: id, completion: completion) {
            if case .services(let services) = $0 { services } else { [] }
        }
    }

    package func discoverCharacteristics(_ uuids: [BluetoothUUID]?, for service: RemoteService, id: OperationID? = nil,
                                         completion: @escaping Completion<[RemoteCharacteristic]>) {
        if let remote {
            return begin(remote, .discoverCharacteristics(uuids, for: service), id: id, completion: completion) {
                try $0.expect(\.characteristics, for: .discoverCharacteristics)
            }
        }
        run(.discoverCharacteristics(service: service, filter: uuids), on: service.peripheral, id: id, completion: completion) {
            if case .characteristics(let found) = $0 { found } else { [] }
        }
    }

    package func discoverDescriptors(for characteristic: RemoteCharacteristic, id: OperationID? = nil,
                                     completion: @escaping Completion<[RemoteDescriptor]>) {
        if let remote {
            return begin(remote, .discoverDescriptors(characteristic), id: id, completion: completion) {
                try $0.expect(\.descriptors, for: .discoverDescriptors)
            }
        }
        run(.discoverDescriptors(characteristic: characteristic), on: characteristic.peripheral, id: id, completion: completion) {
            if case .descriptors(let found) = $0 { found } else { [] }
        }
    }

    package func read(_ characteristic: RemoteCharacteristic, id: OperationID? = nil, completion: @escaping Completion<Data>) {
        if let remote { return begin(remote, .read(characteristic), id: id, completion: completion) { try $0.expect(\.data, for: .read) } }
        run(.read(handle: characteristic.valueHandle), on: characteristic.peripheral, id: id, completion: completion) {
            if case .data(let value) = $0 { value } else { Data() }
        }
    }

    /// A write with response (long values as prepared writes).
    package func write(_ value: Data, to characteristic: RemoteCharacteristic, id: OperationID? = nil,
                       completion: @escaping Completion<Void>) {
        guard characteristic.properties.contains(.write) else {
            completion(.failure(BleuError.notSupported(.characteristicProperties(characteristic.uuid, characteristic.properties, .write))))
            return
        }
        if let remote { return begin(remote, .write(value, to: characteristic, .withResponse), id: id, completion: completion) { _ in () } }
        run(.write(handle: characteristic.valueHandle, value: value), on: characteristic.peripheral, id: id,
            completion: completion) { _ in }
    }

    /// Queues a write without response, or throws as ``write(_:to:type:)`` does.
    package func writeWithoutResponseNow(_ value: Data, to characteristic: RemoteCharacteristic) throws {
        guard characteristic.properties.contains(.writeWithoutResponse) else {
            throw BleuError.notSupported(.characteristicProperties(characteristic.uuid, characteristic.properties, .writeWithoutResponse))
        }
        if let remote {
            _ = try now(remote, .write(value, to: characteristic, .withoutResponse))
            return
        }
        try bus.withEngine { engine throws(BleuError) in
            let link = try engine.requireLink(central: key, generation: generation, peripheral: characteristic.peripheral)
            let maximum = (engine.links[link]?.mtu ?? EmulatorConfiguration.minimumMTU) - 3
            guard value.count <= maximum else { throw .valueTooLong(length: value.count, maximum: maximum) }
            try engine.writeWithoutResponse(value, handle: characteristic.valueHandle, on: link)
        }
    }

    package func canSendWriteWithoutResponseNow(to peripheral: UUID) -> Bool {
        if let remote { return (try? now(remote, .canSendWriteWithoutResponse(peripheral)).bool) ?? false }
        return bus.withEngine { engine in
            guard let link = try? engine.requireLink(central: key, generation: generation, peripheral: peripheral) else { return false }
            return engine.canSendWriteWithoutResponse(on: link)
        }
    }

    package func read(_ descriptor: RemoteDescriptor, id: OperationID? = nil, completion: @escaping Completion<Data>) {
        if let remote { return begin(remote, .readDescriptor(descriptor), id: id, completion: completion) { try $0.expect(\.data, for: .readDescriptor) } }
        run(.read(handle: descriptor.handle), on: descriptor.peripheral, id: id, completion: completion) {
            if case .data(let value) = $0 { value } else { Data() }
        }
    }

    package func write(_ value: Data, to descriptor: RemoteDescriptor, id: OperationID? = nil, completion: @escaping Completion<Void>) {
        if let remote { return begin(remote, .writeDescriptor(value, to: descriptor), id: id, completion: completion) { _ in () } }
        run(.write(handle: descriptor.handle, value: value), on: descriptor.peripheral, id: id, completion: completion) { _ in }
    }

    /// Enables notifications (or indications) and pushes the values to `sink` from then on,
    /// as ``subscribe(to:)`` streams them; the sink's end comes with the subscription's.
    /// `completion` reports whether enabling succeeded.
    package func subscribe(to characteristic: RemoteCharacteristic, id: OperationID? = nil,
                           sink: @escaping @Sendable (StreamDelivery<Data>) -> Void, completion: @escaping Completion<Void>) {
        if let remote {
            let stream = remote.client.newNumber()
            remote.client.setSink(stream) { delivery in
                switch delivery {
                case .element(.data(let value), _): sink(.element(value))
                case .element: break
                case .end(let error): sink(.end(error))
                }
            }
            return begin(remote, .subscribe(characteristic, stream: stream, push: true), id: id, completion: completion) { _ in () }
        }
        beginSubscription(to: characteristic, sink: { delivery in
            switch delivery {
            case .element(.data(let value)): sink(.element(value))
            case .element(.advertisement): break
            case .end(let error): sink(.end(error))
            }
        }, id: id ?? bus.newOperationID(), completion: { completion($0.map { _ in }) })
    }

    /// Enables notifications (or indications) and completes with the stream of values, as
    /// ``subscribe(to:)`` (a central on a local bus).
    package func subscribe(to characteristic: RemoteCharacteristic, id: OperationID? = nil,
                           completion: @escaping Completion<AsyncThrowingStream<Data, any Error>>) {
        beginSubscription(to: characteristic, sink: nil, id: id ?? bus.newOperationID()) { [bus] result in
            completion(result.map { bus.dataStream($0) })
        }
    }

    package func unsubscribe(from characteristic: RemoteCharacteristic, id: OperationID? = nil, completion: @escaping Completion<Void>) {
        if let remote { return begin(remote, .unsubscribe(characteristic), id: id, completion: completion) { _ in () } }
        bus.begin(id ?? bus.newOperationID(), { engine, id throws(BleuError) in
            let link = try engine.requireLink(central: key, generation: generation, peripheral: characteristic.peripheral)
            guard engine.links[link]?.subscriptions[characteristic.valueHandle] != nil else {
                engine.succeed(id)
                return
            }
            try enqueue(.configure(characteristic: characteristic, bits: 0), on: link, id: id, in: &engine)
        }, completion: { completion($0.map { _ in }) })
    }

    package func attMTUNow(for peripheral: UUID) throws -> Int {
        if let remote { return try now(remote, .attMTU(peripheral)).expect(\.int, for: .exchangeMTU) }
        return try bus.withEngine { engine throws(BleuError) in
            let link = try engine.requireLink(central: key, generation: generation, peripheral: peripheral)
            return engine.links[link]?.mtu ?? EmulatorConfiguration.minimumMTU
        }
    }

    package func maximumWriteValueLengthNow(for peripheral: UUID, type: WriteType) throws -> Int {
        let mtu = try attMTUNow(for: peripheral)
        return type == .withoutResponse ? mtu - 3 : AttributeAccess.maximumValueLength
    }

    package func readRSSINow(of peripheral: UUID) throws -> Int {
        if let remote { return try now(remote, .readRSSI(peripheral)).expect(\.int, for: .readRSSI) }
        return try bus.withEngine { engine throws(BleuError) in
            let link = try engine.requireLink(central: key, generation: generation, peripheral: peripheral)
            guard let node = engine.links[link]?.peripheral else { throw .notConnected(peripheral) }
            return engine.rssi(ofPeripheral: node)
        }
    }

    /// The link's security level now; `nil` without a link.
    package func securityLevelNow(of peripheral: UUID) -> SecurityLevel? {
        if let remote { return (try? now(remote, .securityLevel(peripheral)).security) ?? nil }
        return bus.withEngine { engine in
            // No link: no level (the documented `nil`).
            (try? engine.requireLink(central: key, generation: generation, peripheral: peripheral)).flatMap { engine.links[$0]?.security }
        }
    }

    package func pair(_ peripheral: UUID, minimum: SecurityLevel, id: OperationID? = nil, completion: @escaping Completion<Void>) {
        if let remote { return begin(remote, .pair(peripheral, minimum: minimum), id: id, completion: completion) { _ in () } }
        bus.begin(id ?? bus.newOperationID(), { engine, id throws(BleuError) in
            let link = try engine.requireLink(central: key, generation: generation, peripheral: peripheral)
            engine.raiseSecurity(on: link, to: minimum, operation: id)
        }, completion: { completion($0.map { _ in }) })
    }

    /// The process behind this central went away (a hub's client): its radio leaves the air
    /// and its peers see its links time out. A central on a local bus only.
    package func vanish() {
        bus.withEngine { $0.vanishCentral(key, generation: generation) }
    }

    package func openL2CAPChannel(psm: UInt16, on peripheral: UUID, id: OperationID? = nil,
                                  completion: @escaping Completion<any L2CAPChannel>) {
        if let remote {
            return begin(remote, .openL2CAPChannel(psm: psm, on: peripheral), id: id, completion: completion) { value in
                remote.client.channel(try value.expect(\.channel, for: .openChannel(psm: psm)))
            }
        }
        bus.begin(id ?? bus.newOperationID(), { engine, id throws(BleuError) in
            let link = try engine.requireLink(central: key, generation: generation, peripheral: peripheral)
            engine.openChannel(psm: psm, on: link, operation: id)
        }, completion: { [bus] result in
            completion(result.flatMap { outcome in
                guard case .channel(let channel, let input) = outcome else {
                    return .failure(BleuError.invalidState(.unexpectedOutcome(.openChannel(psm: psm))))
                }
                return .success(EmulatedL2CAPChannel(bus: bus, channel: channel, side: ChannelSide.central, psm: psm,
                                                     peer: peripheral, input: input))
            })
        })
    }

    // MARK: Helpers

    /// A call to this central's counterpart at the hub.
    private func call(_ remote: RemoteManager, _ call: CentralCall) async throws -> HubValue {
        try await remote.client.call(.central(manager: remote.number, call))
    }

    /// A call that blocks until the hub answers (the synchronous calls' path).
    private func now(_ remote: RemoteManager, _ call: CentralCall) throws -> HubValue {
        try remote.client.now(.central(manager: remote.number, call))
    }

    /// Begins a call under the operation number `id`; `extract` takes the reply apart.
    private func begin<T>(_ remote: RemoteManager, _ call: CentralCall, id: OperationID?, completion: @escaping Completion<T>,
                          _ extract: @escaping @Sendable (HubValue) throws -> T) {
        remote.begin(.central(manager: remote.number, call), id: id) { result in
            completion(result.flatMap { value in Result { try extract(value) } })
        }
    }

    /// Subscribes: a second subscription to an enabled characteristic adds a stream at once;
    /// the first writes the configuration descriptor. Completes with the new stream.
    private func beginSubscription(to characteristic: RemoteCharacteristic, sink: StreamSink?, id: OperationID,
                                   completion: @escaping Completion<StreamID>) {
        let bits: UInt16
        if characteristic.properties.contains(.notify) {
            bits = 0x0001
        } else if characteristic.properties.contains(.indicate) {
            bits = 0x0002
        } else {
            completion(.failure(BleuError.notSupported(.characteristicProperties(characteristic.uuid, characteristic.properties, .subscribe))))
            return
        }
        bus.begin(id, { engine, id throws(BleuError) in
            let link = try engine.requireLink(central: key, generation: generation, peripheral: characteristic.peripheral)
            if engine.links[link]?.subscriptions[characteristic.valueHandle] != nil {
                engine.succeed(id, .stream(engine.addValueStream(handle: characteristic.valueHandle, on: link, sink: sink)))
                return
            }
            try enqueue(.configure(characteristic: characteristic, bits: bits, sink: sink), on: link, id: id, in: &engine)
        }, completion: { result in
            completion(result.flatMap { outcome in
                guard case .stream(let stream) = outcome else {
                    return .failure(BleuError.invalidState(.unexpectedOutcome(.subscribe)))
                }
                return .success(stream)
            })
        })
    }

    /// Begins an ATT operation on the link to `peripheral`; `extract` takes its result apart.
    private func run<T>(_ kind: ClientOperationKind, on peripheral: UUID, id: OperationID?,
                        completion: @escaping Completion<T>, _ extract: @escaping @Sendable (OperationResult) -> T) {
        bus.begin(id ?? bus.newOperationID(), { engine, id throws(BleuError) in
            let link = try engine.requireLink(central: key, generation: generation, peripheral: peripheral)
            try enqueue(kind, on: link, id: id, in: &engine)
        }, completion: { completion($0.map(extract)) })
    }

    /// Queues an ATT operation on a link, unless too many wait already.
    private func enqueue(_ kind: ClientOperationKind, on link: LinkID, id: OperationID, in engine: inout Engine) throws(BleuError) {
        guard (engine.links[link]?.client.operations.count ?? 0) <= engine.configuration.maximumQueuedOperations else {
            throw .limitReached(.queuedOperations(engine.configuration.maximumQueuedOperations))
        }
        engine.enqueue(ClientOperation(id: id, kind: kind), on: link)
    }
}

/// Keeps a pushed event subscription alive; releasing it ends the subscription.
package final class EventSubscription: Sendable {
    private let end: @Sendable () -> Void

    init(_ end: @escaping @Sendable () -> Void) {
        self.end = end
    }

    deinit {
        end()
    }
}

extension Engine {
    /// The link to a connected peripheral, or the error an operation on it throws.
    func requireLink(central key: CentralKey, generation: Int, peripheral: UUID) throws(BleuError) -> LinkID {
        let node = try poweredCentral(key, generation: generation)
        guard let known = node.known[peripheral], let link = node.links[known], let state = links[link], state.isUp else {
            throw .notConnected(peripheral)
        }
        return link
    }

    /// The identifiers among `identifiers` the central knows: seen, connected, or bonded
    /// (a bonded peripheral becomes known, so it can be connected without a scan).
    mutating func retrievePeripherals(central key: CentralKey, _ identifiers: [UUID]) -> [KnownPeripheral] {
        guard let node = centrals[key] else { return [] }
        var result: [KnownPeripheral] = []
        for id in identifiers {
            var peripheral = node.known[id]
            if peripheral == nil {
                peripheral = peripherals.values.first { bonds[BondKey(central: node.address, peripheral: $0.address)] != nil
                    && identifier(of: $0.address, seenBy: node.address) == id }?.key
            }
            guard let peripheral else { continue }
            centrals[key]?.known[id] = peripheral
            result.append(KnownPeripheral(id: id, name: node.names[peripheral],
                                          isConnected: node.links[peripheral].flatMap { links[$0]?.isUp } ?? false))
        }
        return result
    }

    func retrieveConnectedPeripherals(central key: CentralKey, _ services: [BluetoothUUID]) -> [KnownPeripheral] {
        guard let node = centrals[key] else { return [] }
        return node.links.sorted { $0.value < $1.value }.compactMap { peripheral, linkID in
            guard let link = links[linkID], link.isUp else { return nil }
            let hosted = peripherals[peripheral]?.database.services.map(\.published.uuid) ?? []
            guard services.isEmpty || !Set(services).isDisjoint(with: hosted) else { return nil }
            return KnownPeripheral(id: link.peripheralID, name: node.names[peripheral], isConnected: true)
        }
    }
}
