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
    let key: Int
    private let generation: Int
    private let hub: EventHub<CentralEvent>

    /// Creates a central on `bus`. With a `restoreIdentifier` that a central on this bus used
    /// before, the new manager takes over that central's state — its connections (usable at
    /// once), scan and subscriptions — and its event streams start with
    /// ``/BleuCore/CentralEvent/willRestoreState(_:)``; a predecessor still alive stops working.
    public init(bus: EmulatorBus, restoreIdentifier: String? = nil, options: Options = Options()) {
        self.bus = bus
        self.restoreIdentifier = restoreIdentifier
        (key, generation, hub) = bus.withEngine { engine in
            let attached = engine.attachCentral(restoreIdentifier: restoreIdentifier, device: options.deviceIdentifier,
                                                mtu: options.attMTU)
            if let handler = options.passkeyHandler { engine.centrals[attached.key]?.passkeyHandler = handler }
            return attached
        }
    }

    deinit {
        bus.withEngine { $0.detachCentral(key, generation: generation) }
    }

    /// Sets (or clears) the handler that enters passkeys during pairing.
    public func setPasskeyHandler(_ handler: PasskeyHandler?) {
        bus.withEngine { $0.centrals[key]?.passkeyHandler = handler }
    }

    public var state: ManagerState {
        get async { bus.withEngine { $0.centrals[key]?.state ?? .unknown } }
    }

    public func events() -> AsyncStream<CentralEvent> {
        hub.subscribe()
    }

    // MARK: Scanning

    public func scan(_ options: ScanOptions) async throws -> AsyncThrowingStream<Advertisement, any Error> {
        let stream = try bus.withEngine { engine throws(BleuError) in
            _ = try engine.poweredCentral(key, generation: generation)
            return engine.startScan(central: key, options: options)
        }
        return bus.advertisementStream(stream)
    }

    public func stopScan() async {
        bus.withEngine { engine in
            guard (try? engine.central(key, generation: generation)) != nil else { return }
            engine.stopScan(central: key)
        }
    }

    // MARK: Connections

    public func connect(_ peripheral: UUID, timeout: Duration?) async throws {
        _ = try await bus.perform { engine, id throws(BleuError) in
            _ = try engine.central(key, generation: generation)
            try engine.connect(central: key, to: peripheral, timeout: timeout, operation: id)
        }
    }

    public func cancelConnection(_ peripheral: UUID) async {
        _ = try? await bus.perform { engine, id throws(BleuError) in
            _ = try engine.central(key, generation: generation)
            engine.cancelConnection(central: key, peripheralID: peripheral, operation: id)
        }
    }

    public func isConnected(_ peripheral: UUID) async -> Bool {
        bus.withEngine { engine in
            guard let node = engine.centrals[key], let known = node.known[peripheral], let link = node.links[known] else { return false }
            return engine.links[link]?.isUp == true
        }
    }

    public func retrievePeripherals(withIdentifiers identifiers: [UUID]) async -> [KnownPeripheral] {
        bus.withEngine { engine in engine.retrievePeripherals(central: key, identifiers) }
    }

    public func retrieveConnectedPeripherals(withServices services: [BluetoothUUID]) async -> [KnownPeripheral] {
        bus.withEngine { engine in engine.retrieveConnectedPeripherals(central: key, services) }
    }

    // MARK: Discovery

    public func discoverServices(_ uuids: [BluetoothUUID]?, on peripheral: UUID) async throws -> [RemoteService] {
        guard case .services(let services) = try await run(.discoverServices(filter: uuids), on: peripheral) else { return [] }
        return services
    }

    public func discoverIncludedServices(_ uuids: [BluetoothUUID]?, for service: RemoteService) async throws -> [RemoteService] {
        guard case .services(let services) = try await run(.discoverIncluded(service: service, filter: uuids),
                                                          on: service.peripheral) else { return [] }
        return services
    }

    public func discoverCharacteristics(_ uuids: [BluetoothUUID]?, for service: RemoteService) async throws -> [RemoteCharacteristic] {
        guard case .characteristics(let found) = try await run(.discoverCharacteristics(service: service, filter: uuids),
                                                              on: service.peripheral) else { return [] }
        return found
    }

    public func discoverDescriptors(for characteristic: RemoteCharacteristic) async throws -> [RemoteDescriptor] {
        guard case .descriptors(let found) = try await run(.discoverDescriptors(characteristic: characteristic),
                                                          on: characteristic.peripheral) else { return [] }
        return found
    }

    // MARK: Reading and writing

    public func read(_ characteristic: RemoteCharacteristic) async throws -> Data {
        guard case .data(let value) = try await run(.read(handle: characteristic.valueHandle),
                                                    on: characteristic.peripheral) else { return Data() }
        return value
    }

    public func write(_ value: Data, to characteristic: RemoteCharacteristic, type: WriteType) async throws {
        switch type {
        case .withoutResponse:
            guard characteristic.properties.contains(.writeWithoutResponse) else {
                throw BleuError.notSupported("characteristic \(characteristic.uuid) does not allow writes without response (its properties are \(characteristic.properties))")
            }
            try bus.withEngine { engine throws(BleuError) in
                let link = try engine.requireLink(central: key, generation: generation, peripheral: characteristic.peripheral)
                let maximum = (engine.links[link]?.mtu ?? EmulatorConfiguration.minimumMTU) - 3
                guard value.count <= maximum else { throw .valueTooLong(length: value.count, maximum: maximum) }
                try engine.writeWithoutResponse(value, handle: characteristic.valueHandle, on: link)
            }
        case .withResponse:
            guard characteristic.properties.contains(.write) else {
                throw BleuError.notSupported("characteristic \(characteristic.uuid) does not allow writes with response (its properties are \(characteristic.properties))")
            }
            _ = try await run(.write(handle: characteristic.valueHandle, value: value), on: characteristic.peripheral)
        }
    }

    public func canSendWriteWithoutResponse(to peripheral: UUID) async -> Bool {
        bus.withEngine { engine in
            guard let link = try? engine.requireLink(central: key, generation: generation, peripheral: peripheral) else { return false }
            return engine.canSendWriteWithoutResponse(on: link)
        }
    }

    public func read(_ descriptor: RemoteDescriptor) async throws -> Data {
        guard case .data(let value) = try await run(.read(handle: descriptor.handle),
                                                    on: descriptor.peripheral) else { return Data() }
        return value
    }

    public func write(_ value: Data, to descriptor: RemoteDescriptor) async throws {
        _ = try await run(.write(handle: descriptor.handle, value: value), on: descriptor.peripheral)
    }

    // MARK: Notifications

    public func subscribe(to characteristic: RemoteCharacteristic) async throws -> AsyncThrowingStream<Data, any Error> {
        let bits: UInt16
        if characteristic.properties.contains(.notify) {
            bits = 0x0001
        } else if characteristic.properties.contains(.indicate) {
            bits = 0x0002
        } else {
            throw BleuError.notSupported("characteristic \(characteristic.uuid) neither notifies nor indicates")
        }
        let existing: Int? = try bus.withEngine { engine throws(BleuError) in
            let link = try engine.requireLink(central: key, generation: generation, peripheral: characteristic.peripheral)
            guard engine.links[link]?.subscriptions[characteristic.valueHandle] != nil else { return nil }
            return engine.addValueStream(handle: characteristic.valueHandle, on: link)
        }
        if let existing { return bus.dataStream(existing) }
        guard case .stream(let stream) = try await run(.configure(characteristic: characteristic, bits: bits),
                                                       on: characteristic.peripheral) else {
            throw BleuError.invalidState("the subscription ended before it started")
        }
        return bus.dataStream(stream)
    }

    public func unsubscribe(from characteristic: RemoteCharacteristic) async throws {
        let enabled = try bus.withEngine { engine throws(BleuError) in
            let link = try engine.requireLink(central: key, generation: generation, peripheral: characteristic.peripheral)
            return engine.links[link]?.subscriptions[characteristic.valueHandle] != nil
        }
        guard enabled else { return }
        _ = try await run(.configure(characteristic: characteristic, bits: 0), on: characteristic.peripheral)
    }

    // MARK: Link properties

    public func attMTU(for peripheral: UUID) async throws -> Int {
        try bus.withEngine { engine throws(BleuError) in
            let link = try engine.requireLink(central: key, generation: generation, peripheral: peripheral)
            return engine.links[link]?.mtu ?? EmulatorConfiguration.minimumMTU
        }
    }

    public func maximumWriteValueLength(for peripheral: UUID, type: WriteType) async throws -> Int {
        let mtu = try await attMTU(for: peripheral)
        return type == .withoutResponse ? mtu - 3 : AttributeAccess.maximumValueLength
    }

    public func readRSSI(of peripheral: UUID) async throws -> Int {
        try bus.withEngine { engine throws(BleuError) in
            let link = try engine.requireLink(central: key, generation: generation, peripheral: peripheral)
            return engine.rssi(ofPeripheral: engine.links[link]?.peripheral ?? 0)
        }
    }

    // MARK: L2CAP

    public func openL2CAPChannel(psm: UInt16, on peripheral: UUID) async throws -> any L2CAPChannel {
        guard case .channel(let channel) = try await bus.perform({ engine, id throws(BleuError) in
            let link = try engine.requireLink(central: key, generation: generation, peripheral: peripheral)
            engine.openChannel(psm: psm, on: link, operation: id)
        }) else { throw BleuError.invalidState("the L2CAP channel did not open") }
        let input = bus.withEngine { $0.channels[channel]?.ends[BusChannel.central].input } ?? -1
        return EmulatedL2CAPChannel(bus: bus, channel: channel, side: BusChannel.central, psm: psm, peer: peripheral, input: input)
    }

    // MARK: Helpers

    /// Queues an ATT operation on the link to `peripheral` and waits for its result.
    private func run(_ kind: ClientOperationKind, on peripheral: UUID) async throws -> OperationResult {
        try await bus.perform { engine, id throws(BleuError) in
            let link = try engine.requireLink(central: key, generation: generation, peripheral: peripheral)
            guard (engine.links[link]?.client.operations.count ?? 0) <= engine.configuration.maximumQueuedOperations else {
                throw .limitReached("\(engine.configuration.maximumQueuedOperations) operations are queued on the link to \(peripheral)")
            }
            engine.enqueue(ClientOperation(id: id, kind: kind), on: link)
        }
    }
}

extension Engine {
    /// The link to a connected peripheral, or the error an operation on it throws.
    func requireLink(central key: Int, generation: Int, peripheral: UUID) throws(BleuError) -> Int {
        let node = try poweredCentral(key, generation: generation)
        guard let known = node.known[peripheral], let link = node.links[known], let state = links[link], state.isUp else {
            throw .notConnected(peripheral)
        }
        return link
    }

    /// The identifiers among `identifiers` the central knows: seen, connected, or bonded
    /// (a bonded peripheral becomes known, so it can be connected without a scan).
    mutating func retrievePeripherals(central key: Int, _ identifiers: [UUID]) -> [KnownPeripheral] {
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

    func retrieveConnectedPeripherals(central key: Int, _ services: [BluetoothUUID]) -> [KnownPeripheral] {
        guard let node = centrals[key] else { return [] }
        return node.links.sorted { $0.value < $1.value }.compactMap { peripheral, linkID in
            guard let link = links[linkID], link.isUp else { return nil }
            let hosted = peripherals[peripheral]?.database.services.map(\.published.uuid) ?? []
            guard services.isEmpty || !Set(services).isDisjoint(with: hosted) else { return nil }
            return KnownPeripheral(id: link.peripheralID, name: node.names[peripheral], isConnected: true)
        }
    }
}
