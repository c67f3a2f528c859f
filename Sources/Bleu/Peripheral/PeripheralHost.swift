import BleuCore
import BleuWire
import Foundation
import Logging

/// The peripheral's side of the actor system: publishes a service per hosted actor (and per
/// protocol it is discoverable as), advertises them, reassembles requests from each central,
/// runs them through the distributed runtime and sends replies as notifications, within the
/// configured bounds.
final class PeripheralHost: Sendable {
    let manager: any PeripheralManager
    let configuration: BLEActorSystem.Configuration
    let ready = ReadySignal()
    let clock: ElapsedClock
    let state: Locked<State>
    private let events = Locked<Task<Void, Never>?>(nil)

    struct Hosted: Sendable {
        var actor: any PeripheralActor
        var service: PublishedService
        var reply: PublishedCharacteristic
    }

    /// One central's conversation with one hosted service over one link. A reconnected
    /// central is a new conversation: what still runs for the old link (a late reply, a stream's
    /// source) cannot reach the new one, whose call and stream ids start afresh.
    struct SessionKey: Sendable, Hashable {
        var central: UUID
        var call: UInt16
        /// Which of the central's links (numbered by the host).
        var link: UInt64

        /// The central's 16 bytes as two words: `UUID`'s own hashing feeds them to the hasher as
        /// a byte buffer, several times the cost, and a session is looked up several times per
        /// request and reply.
        func hash(into hasher: inout Hasher) {
            let words = withUnsafeBytes(of: central.uuid) { ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(call)
            hasher.combine(link)
        }
    }

    struct Session: Sendable {
        var methods: [UInt32: MethodDefinition] = [:]
        var running: [UInt32: RunningCall] = [:]
        var fragmenter: Fragmenter
        /// The longest notification the central takes.
        var notificationLength = RefreshedLength()
        let gate = SerialGate()
        var streams: [UInt32: OutboundStream] = [:]
        var nextStream: UInt32 = 0
        /// Set while replies to this central are given up on (it stopped taking notifications
        /// while hosting was being stopped): senders stop waiting for room.
        var abandoned = false
    }

    /// A call being executed: its task, and the flag its result handler and the host share so
    /// the call is answered once.
    struct RunningCall: Sendable {
        var task: Task<Void, Never>
        var replied: Locked<Bool>
    }

    /// Who executes a call: the actor system (through the distributed runtime).
    typealias Runner = @Sendable (Hosted, MethodDefinition, [[UInt8]], UInt32, SessionKey, Locked<Bool>) async -> Void

    /// A stream this peripheral produces for a central: the credits the central granted, the
    /// producer waiting for one, and the task pulling the source.
    struct OutboundStream: Sendable {
        var credits = 0
        var waiter: CheckedContinuation<Bool, Never>?
        var task: Task<Void, Never>?
    }

    struct State: Sendable {
        /// By the value handle of the call characteristic.
        var hosted: [UInt16: Hosted] = [:]
        var advertisedServices: [BluetoothUUID] = []
        var sessions: [SessionKey: Session] = [:]
        var reassembler: Reassembler<SessionKey, ElapsedInstant>
        /// Per session and compact slot, the call id of the message begun there (read from its
        /// first fragment), so a message refused part-way still gets an answer.
        var callsInSlots: [SessionKey: [UInt8: UInt32]] = [:]
        /// Call characteristics whose hosting is being stopped: new calls and streams are refused.
        var closing: Set<UInt16> = []
        /// The current link of each central that sent requests, and the next link number.
        var links: [UUID: UInt64] = [:]
        var nextLink: UInt64 = 0
        var runner: Runner?
        /// Every hosted actor with the service UUIDs it is published under, in hosting order:
        /// what is published again after the radio lost the database.
        var published: [(actor: any PeripheralActor, services: [ActorService])] = []
        /// Whether the actors are advertised (between hosting and ``PeripheralHost/stopHosting()``).
        var advertising = false
        /// The radio left `poweredOn` since the actors were published: it cleared the services.
        var databaseLost = false
    }

    init(manager: any PeripheralManager, configuration: BLEActorSystem.Configuration) {
        self.manager = manager
        self.configuration = configuration
        self.clock = ElapsedClock(configuration.clock)
        let limits = ReassemblyLimits(maximumMessageSize: configuration.maximumMessageSize,
                                      maximumBufferedBytes: 2 * configuration.maximumMessageSize + 64)
        state = Locked(State(reassembler: Reassembler(format: configuration.wireFormat, limits: limits)))
        let stream = manager.events()
        let task = Task { [weak self] in
            for await event in stream {
                guard let self else { return }
                await self.handle(event)
            }
        }
        events.withLock { $0 = task }
    }

    deinit {
        events.withLock { $0 }?.cancel()
    }

    /// Who executes calls (the actor system, set once it exists).
    func setRunner(_ runner: @escaping Runner) {
        state.withLock { $0.runner = runner }
    }

    // MARK: Hosting

    func host(_ actors: [any PeripheralActor]) async throws {
        let services = try actors.map { actor throws(BLEActorSystemError) in try ActorServiceLayout.services(of: type(of: actor)) }
        for (actor, services) in zip(actors, services) {
            try await publish(actor, as: services)
            state.withLock { $0.published.append((actor, services)) }
        }
        try await advertise()
    }

    /// Adds the services of one actor.
    private func publish(_ actor: any PeripheralActor, as services: [ActorService]) async throws {
        for service in services {
            let published = try await manager.add(service.definition(actorID: actor.id))
            guard let call = published.characteristic(service.call.uuid), let reply = published.characteristic(service.reply.uuid) else {
                throw BleuError.invalidState(.unexpectedOutcome(.addService))
            }
            state.withLock { state in
                state.hosted[call.valueHandle] = Hosted(actor: actor, service: published, reply: reply)
                state.advertisedServices.append(service.uuid)
            }
        }
    }

    private func advertise() async throws {
        let (services, actors) = state.withLock { state in
            state.advertising = true
            return (state.advertisedServices, state.published.map { $0.actor.id })
        }
        let (main, response) = ActorServiceLayout.advertisement(for: services, actors: actors, localName: configuration.localName)
        try await manager.startAdvertising(main, scanResponse: response)
    }

    /// The radio is on again after it lost the database (CoreBluetooth clears a peripheral
    /// manager's services when Bluetooth goes off): publishes every hosted actor again and
    /// advertises as before, without the application doing anything.
    private func republish() async {
        let (actors, advertising) = state.withLock { state in
            state.hosted = [:]
            state.advertisedServices = []
            return (state.published, state.advertising)
        }
        do {
            for (actor, services) in actors { try await publish(actor, as: services) }
            if advertising { try await advertise() }
            state.withLock { $0.databaseLost = false }
            configuration.logger.info("the radio is back: \(actors.count) actors published and advertised again")
        } catch {
            // The radio went off again meanwhile, or refused: the next power-on tries again.
            configuration.logger.warning("publishing the actors again after the radio came back failed: \(error)")
        }
    }

    /// Stops advertising and hosting: every running call gets a
    /// ``BLEActorSystemError/hostingStopped(_:)`` reply and is cancelled, every stream ends with
    /// that error, and once the replies went out (or ``BLEActorSystem/Configuration/callTimeout``
    /// passed) the services are removed.
    func stopHosting() async {
        await manager.stopAdvertising()
        let handles = state.withLock { state in
            state.advertising = false
            state.published = []
            state.closing.formUnion(state.hosted.keys)
            return Set(state.hosted.keys)
        }
        await end(where: { handle, _ in handles.contains(handle) },
                  streams: { hosted in .failure(BLEActorSystemError.hostingStopped(hosted.actor.id)) },
                  calls: { hosted in BLEActorSystemError.hostingStopped(hosted.actor.id) })
        let (services, tasks) = state.withLock { state -> ([PublishedService], [Task<Void, Never>]) in
            var services: [PublishedService] = []
            var tasks: [Task<Void, Never>] = []
            for handle in handles {
                if let hosted = state.hosted.removeValue(forKey: handle) { services.append(hosted.service) }
                for key in state.sessions.keys where key.call == handle {
                    let session = state.sessions.removeValue(forKey: key)
                    tasks += session?.running.values.map(\.task) ?? []
                    state.reassembler.removePeer(key)
                    state.callsInSlots[key] = nil
                }
            }
            state.closing.subtract(handles)
            for service in services {
                if let index = state.advertisedServices.firstIndex(of: service.uuid) { state.advertisedServices.remove(at: index) }
            }
            return (services, tasks)
        }
        for task in tasks { task.cancel() }
        for service in services {
            do {
                try await manager.remove(service)
            } catch {
                // The service stays published: a central may still find it and write to it.
                configuration.logger.warning("could not remove the service \(service.uuid) of an ended actor: \(error)")
            }
        }
    }

    // MARK: Events

    private func handle(_ event: PeripheralEvent) async {
        switch event {
        case .writeRequests(let batch):
            await handle(batch)
        case .centralConnected(let central):
            // A new link: requests from now on belong to a new conversation.
            _ = state.withLock { $0.links.removeValue(forKey: central) }
        case .centralDisconnected(let central, _):
            endSessions { $0 == central }
        case .stateChanged(let radio):
            let lost = state.withLock { state in
                if radio != .poweredOn, !state.published.isEmpty { state.databaseLost = true }
                return state.databaseLost
            }
            if radio != .poweredOn {
                // Every link is gone with the radio, whether or not the backend reports each.
                endSessions { _ in true }
            } else if lost {
                await republish()
            }
        case .readyToUpdateSubscribers:
            ready.signal()
        default:
            break
        }
    }

    /// The links of the centrals `matching` ended: their calls are cancelled and their streams'
    /// sources stopped (their callers see the link end).
    private func endSessions(of matching: (UUID) -> Bool) {
        let (running, waiters) = state.withLock { state in
            var tasks: [Task<Void, Never>] = []
            var waiters: [CheckedContinuation<Bool, Never>] = []
            for central in state.links.keys where matching(central) { state.links[central] = nil }
            for key in state.callsInSlots.keys where matching(key.central) { state.callsInSlots[key] = nil }
            for key in state.sessions.keys where matching(key.central) {
                guard let session = state.sessions.removeValue(forKey: key) else { continue }
                tasks += session.running.values.map(\.task)
                tasks += session.streams.values.compactMap(\.task)
                waiters += session.streams.values.compactMap(\.waiter)
                state.reassembler.removePeer(key)
            }
            return (tasks, waiters)
        }
        for task in running { task.cancel() }
        for waiter in waiters { waiter.resume(returning: false) }
        ready.signal()
    }

    private func handle(_ batch: WriteRequests) async {
        var ours = false
        let link = state.withLock { state -> UInt64 in
            if let link = state.links[batch.central] { return link }
            state.nextLink &+= 1
            state.links[batch.central] = state.nextLink
            return state.nextLink
        }
        for request in batch.requests {
            let key = SessionKey(central: batch.central, call: request.characteristic.valueHandle, link: link)
            guard state.withLock({ $0.hosted[key.call] != nil }) else { continue }
            ours = true
            guard request.offset == 0 else {
                configuration.logger.warning("refused a write at offset \(request.offset) from \(batch.central): requests are framed messages")
                continue
            }
            receive(request.value, key: key)
        }
        if ours, batch.needsResponse { await manager.respond(to: batch, with: .success(())) }
    }

    private func receive(_ fragment: Data, key: SessionKey) {
        let bytes = [UInt8](fragment)
        let header = configuration.wireFormat == .compact ? bytes.first.map(CompactHeader.init) : nil
        let slot = header?.slot
        if let header, header.isFirst {
            // A request starts with its kind, then its call id: remember the id by slot, so a
            // request the reassembler refuses later can still be answered. A fragment too short
            // to hold them is the reassembler's to refuse.
            var reader = EnvelopeReader(Array(bytes.dropFirst(CompactHeader.length).prefix(6)))
            if (try? reader.byte("message kind")) != nil, let id = try? reader.varint("call id") {
                state.withLock { $0.callsInSlots[key, default: [:]][header.slot] = id }
            }
        }
        let message: [UInt8]?
        do {
            message = try state.withLock { state throws(WireError) -> [UInt8]? in
                let now = clock.instant
                for expired in state.reassembler.expire(now: now) {
                    configuration.logger.warning("a request from \(expired.peer.central) timed out after \(expired.receivedBytes) bytes")
                }
                guard case .message(let bytes) = try state.reassembler.receive(bytes, from: key, now: now) else { return nil }
                return bytes
            }
        } catch {
            configuration.logger.warning("refused a request fragment from \(key.central): \(error)")
            let refusal: BLEActorSystemError
            switch error {
            case .messageTooLarge(let size, let maximum): refusal = .messageTooLarge(size: size, maximum: maximum)
            case .bufferLimitExceeded(let bytes, let limit): refusal = .messageTooLarge(size: bytes, maximum: limit)
            case .tooManyMessagesInFlight(let limit): refusal = .malformedRequest(.tooManyMessagesInFlight(limit: limit))
            case .tooManyPeers(let limit): refusal = .malformedRequest(.tooManyPeers(limit: limit))
            case .fragmentLengthTooSmall, .malformedFragment, .checksumMismatch: refusal = .malformedRequest(.corruptFragment)
            }
            if let slot, let id = state.withLock({ $0.callsInSlots[key]?[slot] }) {
                refuse(id, refusal, key: key)
            }
            return
        }
        guard let message else { return }
        handle(message, key: key)
    }
}
