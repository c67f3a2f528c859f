import BleuCore
import Foundation

/// The typed GATT server of a peripheral: hosts services with typed handlers and answers
/// every request to them, on any backend (it talks only to a ``/BleuCore/PeripheralManager``).
///
/// ```swift
/// let server = GATTServer(peripheral: peripheral)
/// let heartRate = try await server.host(HeartRateService.self) { handlers in
///     handlers.onRead(HeartRateService.bodySensorLocation) { _ in .chest }
/// }
/// try await heartRate.notify(HeartRateService.measurement, HeartRateMeasurement(heartRate: 72))
/// ```
///
/// Values are decoded and validated before a handler sees them: a malformed or out-of-range
/// write is answered with its codec's ATT error (0x0D invalid length, 0x13 value not allowed,
/// or a service's application error) and never passed on; a handler that throws an
/// ``/BleuCore/ATTError`` answers with it. A write without response that does not decode is
/// dropped (there is no one to answer) and counted in ``droppedCommands``. A read of a
/// characteristic without a read handler gets the last value written, notified or set (and
/// ``/BleuCore/ATTError/unlikelyError`` before there is one); a write to one without a write
/// handler is answered ``/BleuCore/ATTError/writeNotPermitted`` — register
/// ``GATTServiceHandlers/acceptWrites(_:)`` to accept valid values as they are.
///
/// The server answers only requests to the services it hosts, so other components may serve
/// other services of the same peripheral. The prepared writes one Execute Write commits are
/// applied as the specification asks, atomically (Core Spec Vol 3 Part F §3.4.6.3): every
/// value or none. A batch that also writes characteristics this server does not host (a
/// reliable write spanning another component's service) cannot be applied atomically, so the
/// server writes none of it and answers ``/BleuCore/ATTError/requestNotSupported`` (0x06) —
/// write such characteristics in separate procedures. The server serves while it exists: keep
/// a reference, or call ``stop()``.
public final class GATTServer: Sendable {
    /// The radio the server uses.
    public let peripheral: any PeripheralManager

    struct Entry: Sendable {
        var name: String
        var read: GATTServiceHandlers.ReadHandler?
        var write: GATTServiceHandlers.WriteHandler?
        /// What reads get without a read handler: the last value written, notified or set.
        var value: Data?
    }

    struct State: Sendable {
        var entries: [UInt16: Entry] = [:]
        /// Services being added: a request for an unknown handle waits for them.
        var pendingHosts = 0
        /// The value a central is reading in parts (long read), by central and handle; one
        /// per pair, dropped when the central disconnects.
        var longReads: [Key: Data] = [:]
        var subscribers: [UInt16: Set<UUID>] = [:]
        var droppedCommands = 0

        struct Key: Hashable, Sendable {
            var central: UUID
            var handle: UInt16
        }
    }

    let state = Locked(State())
    /// Advances on every ready-to-update event of the radio's notification queue.
    let ready = ReadySignal()
    /// Advances when a service finished being added.
    let hosted = ReadySignal()
    private let tasks: Locked<[Task<Void, Never>]>

    /// A server on `peripheral`. It listens from now on; host services with ``host(_:handlers:)-(Service.Type,_)``.
    public init(peripheral: any PeripheralManager) {
        self.peripheral = peripheral
        let requests = peripheral.events()
        let flow = peripheral.events()
        tasks = Locked([])
        let state = state, ready = ready, hosted = hosted
        let requestLoop = Task {
            for await event in requests {
                await Self.handle(event, peripheral: peripheral, state: state, hosted: hosted)
            }
        }
        let flowLoop = Task {
            for await event in flow {
                Self.observe(event, state: state, ready: ready)
            }
            ready.close(BleuError.cancelled)
        }
        tasks.withLock { $0 = [requestLoop, flowLoop] }
    }

    deinit {
        stop()
    }

    /// Stops answering requests. Published services stay published; remove them with
    /// ``HostedService/remove()`` first if they should go.
    public func stop() {
        for task in tasks.withLock({ $0 }) { task.cancel() }
        ready.close(BleuError.cancelled)
    }

    /// Writes without response that were not applied: their value did not decode, no handler
    /// takes them, or the handler threw. (A write with response gets its error as the answer.)
    public var droppedCommands: Int { state.withLock { $0.droppedCommands } }

    // MARK: Hosting

    /// Hosts a service type with every characteristic it declares, and these handlers.
    /// Throws ``/BleuCore/BleuError/invalidState(_:)`` for a handler of a characteristic the
    /// service does not declare or whose properties do not allow it, or what the radio throws.
    public func host<Service: GATTService>(_ service: Service.Type,
                                           handlers configure: (inout GATTServiceHandlers) -> Void = { _ in })
        async throws -> HostedService
    {
        try await host(Service.declaration, name: Service.uuid.name ?? String(describing: Service.self), handlers: configure)
    }

    /// Hosts a declared service (a subset of a type's characteristics, some with static
    /// values, or a service of your own) with these handlers.
    public func host(_ declaration: ServiceDeclaration, name: String? = nil,
                     handlers configure: (inout GATTServiceHandlers) -> Void = { _ in }) async throws -> HostedService {
        var handlers = GATTServiceHandlers()
        configure(&handlers)
        let name = name ?? declaration.uuid.name ?? declaration.uuid.uuidString
        try handlers.validate(against: declaration)
        let definition = try declaration.definition()
        state.withLock { $0.pendingHosts += 1 }
        defer {
            state.withLock { $0.pendingHosts -= 1 }
            hosted.signal()
        }
        let published = try await peripheral.add(definition)
        let sameOrder = published.characteristics.map(\.uuid) == declaration.characteristics.map(\.uuid)
        state.withLock { state in
            for (index, characteristic) in published.characteristics.enumerated() {
                let declared = sameOrder ? declaration.characteristics[index] : declaration.characteristic(characteristic.uuid)
                guard declared?.value == nil else { continue }
                state.entries[characteristic.valueHandle] = Entry(
                    name: declared?.name ?? characteristic.uuid.description,
                    read: handlers.readers[characteristic.uuid],
                    write: handlers.writers[characteristic.uuid])
            }
        }
        return HostedService(server: self, published: published, name: name)
    }

    func unregister(_ service: PublishedService) {
        state.withLock { state in
            for characteristic in service.characteristics {
                state.entries.removeValue(forKey: characteristic.valueHandle)
                state.subscribers.removeValue(forKey: characteristic.valueHandle)
                state.longReads = state.longReads.filter { $0.key.handle != characteristic.valueHandle }
            }
        }
    }

    // MARK: Values

    func setValue(_ value: Data, handle: UInt16) {
        state.withLock { $0.entries[handle]?.value = value }
    }

    func subscribers(of handle: UInt16) -> Set<UUID> {
        state.withLock { $0.subscribers[handle] ?? [] }
    }

    /// Sends bytes to subscribers, waiting for the queue's ready event while it is full.
    func send(_ data: Data, for characteristic: PublishedCharacteristic, to centrals: [UUID]?) async throws {
        try await peripheral.updateValue(data, for: characteristic, onSubscribedCentrals: centrals, ready: ready)
    }

    // MARK: Events

    /// Queue and subscription bookkeeping, on its own event stream so that a handler that
    /// notifies never waits for a ready event stuck behind its own request.
    private static func observe(_ event: PeripheralEvent, state: Locked<State>, ready: ReadySignal) {
        switch event {
        case .readyToUpdateSubscribers:
            ready.signal()
        case .stateChanged(let managerState):
            if let error = managerState.unavailableError { ready.failWaiters(error) }
        case .subscribed(let central, let characteristic):
            state.withLock { _ = $0.subscribers[characteristic.valueHandle, default: []].insert(central) }
        case .unsubscribed(let central, let characteristic):
            state.withLock { _ = $0.subscribers[characteristic.valueHandle]?.remove(central) }
        case .centralDisconnected(let central, _):
            state.withLock { state in
                for handle in state.subscribers.keys { state.subscribers[handle]?.remove(central) }
                state.longReads = state.longReads.filter { $0.key.central != central }
            }
        default:
            break
        }
    }

    private static func handle(_ event: PeripheralEvent, peripheral: any PeripheralManager, state: Locked<State>,
                               hosted: ReadySignal) async {
        switch event {
        case .readRequest(let request):
            guard let entry = await entry(request.characteristic.valueHandle, state: state, hosted: hosted) else { return }
            let result = await read(request, entry: entry, state: state)
            await peripheral.respond(to: request, with: result)
        case .writeRequests(let batch):
            var entries: [UInt16: Entry] = [:]
            var foreign = false
            for request in batch.requests {
                let handle = request.characteristic.valueHandle
                guard entries[handle] == nil else { continue }
                if let entry = await entry(handle, state: state, hosted: hosted) { entries[handle] = entry } else { foreign = true }
            }
            guard !entries.isEmpty else { return }   // another component's service
            // Part ours, part another component's: no one can apply it atomically, so no one
            // applies any of it. Every server holding a part answers alike; the radio keeps the
            // first answer.
            let result = foreign ? .failure(.requestNotSupported) : await write(batch, entries: entries, state: state)
            if case .failure = result, !batch.needsResponse { state.withLock { $0.droppedCommands += 1 } }
            await peripheral.respond(to: batch, with: result)
        default:
            break
        }
    }

    /// The entry of a handle; waits while a service is being added, as the request may be for it.
    private static func entry(_ handle: UInt16, state: Locked<State>, hosted: ReadySignal) async -> Entry? {
        while true {
            let generation = hosted.generation
            let (entry, pending) = state.withLock { ($0.entries[handle], $0.pendingHosts) }
            if entry != nil || pending == 0 { return entry }
            do {
                try await hosted.wait(after: generation)
            } catch {
                return nil
            }
        }
    }

    private static func read(_ request: ReadRequest, entry: Entry, state: Locked<State>) async -> Result<Data, ATTError> {
        let key = State.Key(central: request.central, handle: request.characteristic.valueHandle)
        let value: Data
        if request.offset > 0, let partial = state.withLock({ $0.longReads[key] }) {
            value = partial
        } else if let read = entry.read {
            do {
                value = try await read(request.central)
            } catch {
                return .failure(error as? ATTError ?? .unlikelyError)
            }
        } else if let stored = entry.value {
            value = stored
        } else {
            return .failure(.unlikelyError)
        }
        guard request.offset <= value.count else { return .failure(.invalidOffset) }
        state.withLock { $0.longReads[key] = value }
        return .success(Data(value.dropFirst(request.offset)))
    }

    private static func write(_ batch: WriteRequests, entries: [UInt16: Entry], state: Locked<State>) async -> Result<Void, ATTError> {
        let values: [(handle: UInt16, value: Data)]
        switch WriteAssembly.values(of: batch.requests) {
        case .success(let assembled): values = assembled
        case .failure(let error): return .failure(error)
        }
        // Decode everything first: a batch with one malformed value reaches no handler.
        var calls: [(handle: UInt16, value: Data, call: @Sendable (UUID) async throws -> Void)] = []
        for (handle, value) in values {
            guard let write = entries[handle]?.write else {
                return .failure(entries[handle] == nil ? .unlikelyError : .writeNotPermitted)
            }
            switch write(value) {
            case .success(let call):
                calls.append((handle, value, call))
            case .failure(let error):
                return .failure(error.attError)
            }
        }
        for (handle, value, call) in calls {
            do {
                try await call(batch.central)
            } catch {
                return .failure(error as? ATTError ?? .unlikelyError)
            }
            state.withLock { $0.entries[handle]?.value = value }
        }
        return .success(())
    }
}
