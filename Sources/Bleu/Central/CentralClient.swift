import BleuCore
import BleuOrchestration
import Foundation
import Logging
import CoreMetrics

/// The central's side of the actor system: where each known actor lives, and the links to the
/// peripherals hosting them. The links are the fleet engine's: it connects, backs off, breaks
/// the circuit and follows the radio; this client sets each new link up (reads the actor
/// services, subscribes to their replies) and hands it to the calls waiting for it.
final class CentralClient: Sendable {
    let manager: any CentralManager
    let configuration: BLEActorSystem.Configuration
    let fleet: FleetOrchestrator
    let clock: ElapsedClock
    let waiters: LinkWaiters
    let observer: LinkObserver
    let state = Locked(State())
    private let events = Locked<Task<Void, Never>?>(nil)
    private let starting = Locked<Task<Void, Never>?>(nil)

    struct Location: Sendable, Hashable {
        var peripheral: UUID
        var service: BluetoothUUID
    }

    struct State {
        /// Where each discovered actor lives.
        var directory: [UUID: Location] = [:]
        /// Actors resolved by a saved id but not located yet: the service to look for.
        var wanted: [UUID: BluetoothUUID] = [:]
        /// The set-up links, by peripheral.
        var links: [UUID: ConnectedPeripheral] = [:]
        /// Moves on each time a peripheral's link ends, so a set-up that began on an earlier
        /// link cannot install itself on a later one.
        var epochs: [UUID: UInt64] = [:]
        /// Peripherals the engine keeps connected because the application holds actors there.
        var held: Set<UUID> = []
        /// Why each peripheral's last link ended, as the radio said.
        var lastLoss: [UUID: DisconnectReason] = [:]
        /// The signal strength each peripheral was last heard with (for the pooled policy).
        var rssi: [UUID: Int] = [:]
        /// Peripherals a link was set up to before (the next one is a reconnection).
        var linkedBefore: Set<UUID> = []
        /// The layouts of the actor types this system was asked about, by service UUID (types
        /// with ``ServiceMetadata`` of their own; others use the default layout).
        var layouts: [BluetoothUUID: ActorService] = [:]
        /// The search under way for each actor that may have moved.
        var relocations: [UUID: Task<Void, Never>] = [:]

        /// Every actor on a set-up link lives there now, under one of the services it is hosted
        /// under (the one it was known by, when still among them).
        mutating func locate(actorsOn link: ConnectedPeripheral) {
            for (id, services) in link.services {
                wanted[id] = nil
                if let current = directory[id], current.peripheral == link.id, services.contains(current.service) { continue }
                directory[id] = Location(peripheral: link.id, service: services.min { $0.description < $1.description }!)
            }
        }
    }

    init(manager: any CentralManager, configuration: BLEActorSystem.Configuration) {
        self.manager = manager
        self.configuration = configuration
        let clock = ElapsedClock(configuration.clock)
        self.clock = clock
        self.waiters = LinkWaiters(clock: clock)
        let links = configuration.links
        let profile = DeviceProfile(service: ActorServiceLayout.hostService, subscriptions: [], writeCharacteristic: nil)
        var backoff = links.backoff
        backoff.discoveryTimeout = configuration.connectionTimeout
        let fleetConfiguration = FleetConfiguration(
            profile: profile, pool: links.pool, maximumConnectionAttempts: links.maximumSimultaneousAttempts,
            connectTimeout: configuration.connectionTimeout, scanTimeout: configuration.connectionTimeout, backoff: backoff)
        let box = WeakBox<CentralClient>()
        self.fleet = FleetOrchestrator(
            central: manager, configuration: fleetConfiguration, clock: configuration.clock, seed: links.seed,
            logger: configuration.logger, metrics: configuration.metrics, store: InMemoryPinnedDeviceStore(),
            setUp: LinkSetUp(prepare: { peripheral in
                guard let client = box.value else { throw BleuError.cancelled }
                try await client.prepare(peripheral)
            }, linkEnded: { peripheral in
                box.value?.linkEnded(peripheral)
            }))
        observer = LinkObserver(factory: configuration.metrics ?? MetricsSystem.factory)
        box.value = self
        let state = state
        observer.follow(fleet.events(), lastLoss: { peripheral in state.withLock { $0.lastLoss[peripheral] } })
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
        let fleet = fleet
        Task { await fleet.shutdown() }
    }

    /// Starts the fleet engine on first use (it follows the radio's state from then on).
    func start() async {
        let task = starting.withLock { task in
            if let task { return task }
            let fleet = fleet
            let started = Task { await fleet.start() }
            task = started
            return started
        }
        await task.value
    }

    private func handle(_ event: CentralEvent) async {
        switch event {
        case .disconnected(let peripheral, let reason):
            state.withLock { $0.lastLoss[peripheral] = reason }
        case .readyToSendWriteWithoutResponse(let peripheral):
            state.withLock { $0.links[peripheral] }?.ready.signal()
        case .servicesChanged(let peripheral):
            await refresh(peripheral)
        default:
            break
        }
    }

    // MARK: The engine's hooks

    /// Sets up a link the engine just made: reads the actor services and subscribes to their
    /// replies, then hands the link to the calls waiting for it.
    private func prepare(_ peripheral: UUID) async throws {
        let epoch = state.withLock { $0.epochs[peripheral, default: 0] }
        let link: ConnectedPeripheral
        do {
            link = try await setUp(peripheral)
        } catch {
            // Retrying will not help until someone pairs (or the peer's requirements change):
            // the calls waiting for this link learn why now, rather than at their timeout.
            if Self.isSecurityFailure(error) { waiters.fail(peripheral, with: error) }
            throw error
        }
        let installed = state.withLock { state -> Bool? in
            guard state.epochs[peripheral, default: 0] == epoch else { return nil }
            state.links[peripheral] = link
            state.lastLoss[peripheral] = nil
            let again = !state.linkedBefore.insert(peripheral).inserted
            state.locate(actorsOn: link)
            return again
        }
        guard let again = installed else {
            // The engine gave this link up while it was being set up.
            link.close(BleuError.cancelled)
            throw BleuError.cancelled
        }
        if again {
            observer.reconnected(link.channels.keys)
            configuration.logger.info("link set up again", metadata: ["peripheral": "\(peripheral)",
                                                                      "actors": "\(link.channels.keys.map(\.uuidString).sorted())"])
        }
        waiters.resume(peripheral, with: link)
    }

    /// The engine lost or gave up the link: its calls and streams end.
    private func linkEnded(_ peripheral: UUID) {
        let (link, reason) = state.withLock { state in
            state.epochs[peripheral, default: 0] &+= 1
            return (state.links.removeValue(forKey: peripheral), state.lastLoss[peripheral])
        }
        link?.close(BleuError.disconnected(peripheral, reason ?? .localHostTerminated))
    }

    /// Whether `error` says the link lacks the security the peer requires.
    static func isSecurityFailure(_ error: any Error) -> Bool {
        switch error as? BleuError {
        case .pairingFailed?: true
        case .att(let code)?: [.insufficientAuthentication, .insufficientEncryption, .insufficientAuthorization, .encryptionKeySizeTooShort].contains(code)
        default: false
        }
    }

    // MARK: Directory

    /// Learns how an actor type (and the protocols it is discoverable as) is laid out.
    /// - Throws: ``BLEActorSystemError/invalidServiceMetadata(type:_:)``.
    func register(_ type: any PeripheralActor.Type) throws(BLEActorSystemError) {
        let services = try ActorServiceLayout.services(of: type)
        state.withLock { state in
            for service in services { state.layouts[service.uuid] = service }
        }
    }

    /// The layout of the service with this UUID: a registered type's, else the default.
    func layout(of service: BluetoothUUID) -> ActorService {
        state.withLock { $0.layouts[service] } ?? ActorService(standard: service)
    }

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

    /// The link to a peripheral when it is set up now.
    func currentLink(_ peripheral: UUID) -> ConnectedPeripheral? {
        state.withLock { $0.links[peripheral] }.flatMap { $0.isOpen ? $0 : nil }
    }

    // MARK: Holding

    /// Asks the engine to keep the peripheral connected (pinned, or offered to the pool).
    func hold(_ peripheral: UUID) async {
        // Every call comes here: a peripheral already held costs one lock, no suspension.
        let (added, rssi) = state.withLock { ($0.held.insert(peripheral).inserted, $0.rssi[peripheral]) }
        guard added else { return }
        await start()
        switch configuration.links.retention {
        case .pinned:
            await fleet.pin(peripheral)
        case .pooled(let priority):
            await fleet.offer(peripheral, rssi: rssi ?? -70, priority: priority)
        }
    }

    /// Stops keeping the peripheral connected; its link is given up.
    func release(_ peripheral: UUID) async {
        guard state.withLock({ $0.held.remove(peripheral) }) != nil else { return }
        await fleet.forget(peripheral)
        observer.forget(peripheral, lastLoss: state.withLock { $0.lastLoss[peripheral] })
    }

    /// A call to `actor` failed before its reply came: counted and logged.
    func callFailed(_ actor: UUID, _ error: any Error) {
        observer.callFailed(actor, error)
        configuration.logger.debug("call failed", metadata: ["actor": "\(actor)", "error": "\(error)"])
    }

    /// Remembers how strongly a peripheral was heard.
    func heard(_ advertisement: Advertisement) {
        state.withLock { $0.rssi[advertisement.peripheral] = advertisement.rssi }
    }

    // MARK: Calls

    /// Waits until the link to `peripheral` is set up (now or later), at most until `deadline`.
    func waitForLink(_ peripheral: UUID, until deadline: Duration, timeout: @escaping @Sendable () -> any Error) async throws -> ConnectedPeripheral {
        try await waiters.wait(for: peripheral, until: deadline, current: { [weak self] in self?.currentLink(peripheral) },
                               timeout: timeout)
    }

    /// Ends the link to a peripheral and stops keeping it; its calls fail with
    /// ``BleuError/disconnected(_:_:)``.
    func disconnect(_ peripheral: UUID) async {
        state.withLock { $0.lastLoss[peripheral] = .localHostTerminated }
        await release(peripheral)
        linkEnded(peripheral)
        await manager.cancelConnection(peripheral)
    }
}

/// A weak reference filled in after its owner's initialiser ran (the owner's hooks need it).
final class WeakBox<Value: AnyObject & Sendable>: Sendable {
    private let storage = Locked<Weak>(Weak())

    private struct Weak {
        weak var value: Value?
    }

    var value: Value? {
        get { storage.withLock { $0.value } }
        set { storage.withLock { $0.value = newValue } }
    }
}
