import BleuCore
import Foundation
import Logging

/// The central's side of the actor system: where each known actor lives, the links to the
/// peripherals hosting them (set up once per connection, shared by concurrent callers), and
/// the manager's events (disconnections, flow control).
final class CentralClient: Sendable {
    let manager: any CentralManager
    let configuration: BLEActorSystem.Configuration
    private let state = Locked(State())
    private let events = Locked<Task<Void, Never>?>(nil)

    struct Location: Sendable, Hashable {
        var peripheral: UUID
        var service: BluetoothUUID
    }

    private enum LinkEntry {
        case connecting(Task<ConnectedPeripheral, any Error>)
        case connected(ConnectedPeripheral)
    }

    private struct State {
        /// Where each discovered actor lives.
        var directory: [UUID: Location] = [:]
        /// Actors resolved by a saved id but not located yet: the service to look for.
        var wanted: [UUID: BluetoothUUID] = [:]
        var links: [UUID: LinkEntry] = [:]
    }

    init(manager: any CentralManager, configuration: BLEActorSystem.Configuration) {
        self.manager = manager
        self.configuration = configuration
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
        events.withLock { $0?.cancel() }
    }

    private func handle(_ event: CentralEvent) async {
        switch event {
        case .disconnected(let peripheral, let reason):
            // A late event of an earlier link must not close the link that replaced it.
            guard await !manager.isConnected(peripheral) else { return }
            dropLink(peripheral, BleuError.disconnected(peripheral, reason), cancellingAttempt: false)
        case .readyToSendWriteWithoutResponse(let peripheral):
            if case .connected(let link)? = state.withLock({ $0.links[peripheral] }) { link.ready.signal() }
        case .servicesChanged(let peripheral):
            await refresh(peripheral)
        default:
            break
        }
    }

    /// Forgets the link to a peripheral and fails its calls. An attempt in progress is a newer
    /// link than the one an event reports, so it is left alone unless `cancellingAttempt`.
    private func dropLink(_ peripheral: UUID, _ error: any Error, cancellingAttempt: Bool = true) {
        let entry: LinkEntry? = state.withLock { state in
            if case .connecting? = state.links[peripheral], !cancellingAttempt { return nil }
            return state.links.removeValue(forKey: peripheral)
        }
        switch entry {
        case .connected(let link)?: link.close(error)
        case .connecting(let task)?: task.cancel()
        case nil: break
        }
    }

    // MARK: Directory

    /// Remembers that `id`, not located yet, should be looked for under `service` (the type it
    /// was last resolved or connected as) when first called.
    func expect(_ id: UUID, service: BluetoothUUID) {
        state.withLock { state in
            if state.directory[id] == nil { state.wanted[id] = service }
        }
    }

    func location(of id: UUID) -> Location? {
        state.withLock { $0.directory[id] }
    }

    /// The channel to an actor, connecting (and locating a saved id) first if needed.
    func channel(for id: UUID) async throws -> ClientChannel {
        let (location, wanted) = state.withLock { ($0.directory[id], $0.wanted[id]) }
        if let location {
            // Setting up a link sends no call, so a failed attempt is safe to repeat.
            let link = try await linkRetrying(location.peripheral)
            if let channel = link.channels[id] { return channel }
            throw BLEActorSystemError.actorNotFound(id)
        }
        guard let wanted else { throw BLEActorSystemError.actorNotFound(id) }
        // Every peripheral the search connects to has all its actor services read, so the id is
        // found under whichever service hosts it there (its concrete type, another protocol),
        // not only under the one searched for.
        _ = try await search(service: wanted, timeout: configuration.connectionTimeout, until: { [weak self] _ in
            self?.location(of: id) != nil
        })
        guard let location = self.location(of: id), let channel = try await link(to: location.peripheral).channels[id] else {
            throw BLEActorSystemError.actorNotFound(id)
        }
        return channel
    }

    // MARK: Links

    /// The set-up link to a peripheral: connects, discovers the actor services, reads each
    /// actor's id and subscribes to its replies. Concurrent callers share one attempt.
    func link(to peripheral: UUID) async throws -> ConnectedPeripheral {
        // A link the radio lost whose event is still on its way is not reused.
        if case .connected(let link)? = state.withLock({ $0.links[peripheral] }), link.isOpen,
           await !manager.isConnected(peripheral) {
            dropLink(peripheral, BleuError.notConnected(peripheral), cancellingAttempt: false)
        }
        let task: Task<ConnectedPeripheral, any Error> = state.withLock { state in
            switch state.links[peripheral] {
            case .connected(let link)? where link.isOpen:
                return Task { link }
            case .connecting(let task)?:
                return task
            default:
                let task = Task { try await self.establish(peripheral) }
                state.links[peripheral] = .connecting(task)
                return task
            }
        }
        do {
            let link = try await task.value
            return link
        } catch {
            // Only the attempt this caller waited for is forgotten: another caller may already
            // have started the next one, which every caller must share — two set-ups of one
            // link would subscribe two channels to one reply characteristic, and each would take
            // the other's replies for its own.
            state.withLock { state in
                if case .connecting(let current)? = state.links[peripheral], current == task { state.links[peripheral] = nil }
            }
            throw error
        }
    }

    private func establish(_ peripheral: UUID) async throws -> ConnectedPeripheral {
        try await manager.connect(peripheral, timeout: configuration.connectionTimeout)
        do {
            let link = try await setUp(peripheral)
            state.withLock { state in
                state.links[peripheral] = .connected(link)
                for (id, services) in link.services {
                    state.wanted[id] = nil
                    if let current = state.directory[id], current.peripheral == peripheral, services.contains(current.service) { continue }
                    state.directory[id] = Location(peripheral: peripheral, service: services.sorted { $0.description < $1.description }[0])
                }
            }
            return link
        } catch {
            await manager.cancelConnection(peripheral)
            throw error
        }
    }

    /// The peripheral's services changed (actors hosted or removed): keeps the channels of
    /// actors still there, sets up new ones, and fails calls to actors that are gone.
    private func refresh(_ peripheral: UUID) async {
        guard case .connected(let old)? = state.withLock({ $0.links[peripheral] }) else { return }
        do {
            let link = try await setUp(peripheral, reusing: old)
            state.withLock { state in
                state.links[peripheral] = .connected(link)
                for id in link.services.keys { state.directory[id] = Location(peripheral: peripheral, service: link.services[id]!.sorted { $0.description < $1.description }[0]) }
            }
            for (id, channel) in old.channels where link.channels[id] !== channel {
                channel.close(BLEActorSystemError.actorNotFound(id))
            }
        } catch {
            configuration.logger.info("refreshing the services of \(peripheral) failed: \(error)")
            dropLink(peripheral, error)
        }
    }

    private func setUp(_ peripheral: UUID, reusing old: ConnectedPeripheral? = nil) async throws -> ConnectedPeripheral {
        let ready = old?.ready ?? ReadySignal()
        var channels: [UUID: ClientChannel] = [:]
        var services: [UUID: Set<BluetoothUUID>] = [:]
        for service in try await manager.discoverServices(nil, on: peripheral) {
            // Every service is looked at; one without the three actor characteristics is not an actor's.
            let found: DiscoveredService
            do {
                found = try await manager.discover(ServiceRequirement(service: service.uuid, required: ActorServiceLayout.characteristics,
                                                                      discovering: .nothingElse), in: service)
            } catch BleuError.characteristicNotFound {
                continue
            }
            guard let idCharacteristic = found.characteristics[ActorServiceLayout.actorIDCharacteristic],
                  let call = found.characteristics[ActorServiceLayout.callCharacteristic],
                  let reply = found.characteristics[ActorServiceLayout.replyCharacteristic] else { continue }
            guard let id = UUID(bytes: try await manager.read(idCharacteristic)) else {
                configuration.logger.warning("the actor service \(service.uuid) on \(peripheral) has a malformed actor id; skipped")
                continue
            }
            services[id, default: []].insert(service.uuid)
            guard channels[id] == nil else { continue }
            if let existing = old?.channels[id], !existing.isClosed {
                channels[id] = existing
                continue
            }
            let channel = ClientChannel(actorID: id, peripheral: peripheral, call: call, manager: manager, ready: ready,
                                        configuration: configuration)
            channel.start(try await manager.subscribe(to: reply))
            channels[id] = channel
        }
        let link = ConnectedPeripheral(id: peripheral, channels: channels, services: services, ready: ready)
        return link
    }

    /// Ends the link to a peripheral; its calls fail with ``BleuError/disconnected(_:_:)``.
    func disconnect(_ peripheral: UUID) async {
        await manager.cancelConnection(peripheral)
        dropLink(peripheral, BleuError.disconnected(peripheral, .localHostTerminated))
    }
}
