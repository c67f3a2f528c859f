import BleuCore
import Foundation
import Logging
import CoreMetrics

/// Keeps a fleet of peripherals connected and served: the public face and the policy.
///
/// It decides which devices should be connected (every pinned one, then the best of the pool
/// up to ``PoolPolicy/maximumConcurrency``) and tells each device's actor; the device actors
/// run their state machines; one owner per radio alone scans, connects and cancels on it, under
/// a cap of simultaneous attempts. Time comes from the injected clock, randomness from the seed.
///
/// With several radios (``init(radios:identify:configuration:clock:seed:logger:metrics:store:setUp:)``)
/// each attempt goes through the radio that hears the device best, less penalties for a radio
/// short of slots, busy or where the device failed lately (``RadioChoicePolicy``); a radio that
/// powers off or is removed hands its devices to the others.
///
/// ```swift
/// let fleet = FleetOrchestrator(central: central, configuration: FleetConfiguration(profile: profile),
///                               store: try JSONFilePinnedDeviceStore.applicationSupport(named: "MyApp"))
/// await fleet.pin(sensorID)
/// await fleet.start()
/// for await event in fleet.events() { ... }
/// ```
public actor FleetOrchestrator {
    /// The seed of every random choice (jitter); give it back to replay a run.
    public nonisolated let seed: UInt64
    /// Identifies this run in logs and metrics.
    public nonisolated let sessionID: String
    /// The configuration given at creation (the pool policy may change later; see ``setPool(_:)``).
    public nonisolated let configuration: FleetConfiguration

    nonisolated let radios: FleetRadios
    private let clock: ElapsedClock
    private let logger: Logger
    private let metricsFactory: any MetricsFactory
    private let store: any PinnedDeviceStore
    private let restorationTimeout: Duration
    private let setUp: LinkSetUp?
    private var restorationTimer: Task<Void, Never>?
    private let broadcaster = EventBroadcaster<FleetEvent>()
    private let registry = Locked([UUID: DeviceState]())
    private let outboxes = Locked([UUID: Outbox]())
    private let incoming = IncomingPipeline()

    private var devices: [UUID: DeviceActor] = [:]
    private var deviceCount: UInt64 = 0
    private var pinned: Set<UUID> = []
    private var candidates: [UUID: PoolPolicy.Candidate] = [:]
    private var eligible: Set<UUID> = []
    private var pool: PoolPolicy
    private var running = false
    private var radioState: ManagerState = .unknown
    private var restoring = false

    /// Creates an orchestrator on `central`.
    /// - Parameters:
    ///   - central: the radio the devices are reached through (any backend's central).
    ///   - configuration: the devices' profile, the pool, the backoff and the queues.
    ///   - clock: the clock of timers and backoff (a test passes a manual clock).
    ///   - seed: the seed of the jitter; `nil` draws one (read ``seed`` to replay).
    ///   - logger: where structured logs go; each carries the session and device identifiers.
    ///   - metrics: where metrics go; `nil` uses the process's `MetricsSystem`.
    ///   - store: where pinned identifiers persist; ``start()`` pins what it holds, and every
    ///     pin and unpin saves. The usual choice is a JSON file,
    ///     ``JSONFilePinnedDeviceStore/applicationSupport(named:)`` (or a file of your own with
    ///     ``JSONFilePinnedDeviceStore/init(url:)``); ``InMemoryPinnedDeviceStore`` keeps them
    ///     for the process's lifetime only (tests). There is no default, so pinned devices never
    ///     land in a file the app did not choose.
    ///   - restorationTimeout: with a central that has a restore identifier, how long
    ///     ``start()`` waits for its restoration before connecting anew.
    ///   - setUp: what to do on each new link instead of discovering the profile (the
    ///     profile's service is then only what a scan for an unknown device looks for); see
    ///     ``LinkSetUp``.
    public init<C: Clock>(central: any CentralManager, configuration: FleetConfiguration, clock: C,
                          seed: UInt64? = nil, logger: Logger = Logger(label: "bleu.fleet"),
                          metrics: (any MetricsFactory)? = nil, store: any PinnedDeviceStore,
                          restorationTimeout: Duration = .seconds(1), setUp: LinkSetUp? = nil) where C.Duration == Duration {
        self.init(radios: [FleetRadio(name: "central", central: central, connectionSlots: Int(Int32.max))], identify: nil,
                  configuration: configuration, clock: ElapsedClock(clock), seed: seed, logger: logger, metrics: metrics,
                  store: store, restorationTimeout: restorationTimeout, setUp: setUp)
    }

    /// Creates an orchestrator on several radios.
    ///
    /// The same device has a different identifier on each central, so the fleet's identifiers
    /// are the app's: `identify` maps an advertisement heard on any radio to the identifier the
    /// app pins, offers and sends to (from a serial number in its manufacturer data, say), or
    /// `nil` for a device that is not the fleet's. Each attempt scans on every radio for the
    /// profile's service unless a radio heard the device within
    /// ``RadioChoicePolicy/sightingLifetime``, and connects through the best one.
    ///
    /// A ``LinkSetUp`` must use the central and identifier it is given
    /// (``LinkSetUp/init(prepareLink:linkEnded:)``). State restoration is for one radio and is
    /// not done here.
    /// - Parameters:
    ///   - radios: the radios, with unique names; more can be added with ``addRadio(_:)``.
    ///   - identify: the fleet's identifier of the device an advertisement comes from.
    ///   - configuration: the devices' profile, the pool, the backoff, the queues and the
    ///     choice of radio (``FleetConfiguration/radioChoice``).
    ///   - clock: the clock of timers, backoff and the choice's windows.
    ///   - seed: the seed of the jitter; `nil` draws one (read ``seed`` to replay).
    ///   - logger: where structured logs go.
    ///   - metrics: where metrics go; `nil` uses the process's `MetricsSystem`.
    ///   - store: where pinned identifiers (the fleet's) persist.
    ///   - setUp: what to do on each new link instead of discovering the profile; use
    ///     ``LinkSetUp/init(prepareLink:linkEnded:)``.
    public init<C: Clock>(radios: [FleetRadio], identify: @escaping @Sendable (Advertisement) -> UUID?,
                          configuration: FleetConfiguration, clock: C, seed: UInt64? = nil,
                          logger: Logger = Logger(label: "bleu.fleet"), metrics: (any MetricsFactory)? = nil,
                          store: any PinnedDeviceStore, setUp: LinkSetUp? = nil) where C.Duration == Duration {
        self.init(radios: radios, identify: identify, configuration: configuration, clock: ElapsedClock(clock), seed: seed,
                  logger: logger, metrics: metrics, store: store, restorationTimeout: .zero, setUp: setUp)
    }

    /// What both public initialisers do; `identify` is `nil` for one central whose identifiers are the fleet's.
    private init(radios: [FleetRadio], identify: (@Sendable (Advertisement) -> UUID?)?, configuration: FleetConfiguration,
                 clock: ElapsedClock, seed: UInt64?, logger: Logger, metrics: (any MetricsFactory)?, store: any PinnedDeviceStore,
                 restorationTimeout: Duration, setUp: LinkSetUp?) {
        let seed = seed ?? UInt64.random(in: .min ... .max)
        self.seed = seed
        self.sessionID = String(seed, radix: 36)
        self.configuration = configuration
        self.pool = configuration.pool
        self.clock = clock
        var logger = logger
        logger[metadataKey: "session"] = "\(String(seed, radix: 36))"
        self.logger = logger
        self.metricsFactory = metrics ?? MetricsSystem.factory
        self.store = store
        self.restorationTimeout = restorationTimeout
        self.setUp = setUp
        self.radios = FleetRadios(radios: radios, identify: identify, configuration: configuration, clock: clock)
    }

    /// Creates an orchestrator timed by the continuous clock; see
    /// ``init(central:configuration:clock:seed:logger:metrics:store:restorationTimeout:setUp:)``.
    public init(central: any CentralManager, configuration: FleetConfiguration, seed: UInt64? = nil,
                logger: Logger = Logger(label: "bleu.fleet"), store: any PinnedDeviceStore) {
        self.init(central: central, configuration: configuration, clock: ContinuousClock(), seed: seed, logger: logger,
                  store: store)
    }

    deinit {
        broadcaster.finish()
    }

    // MARK: Observing

    /// A new stream of lifecycle events from now on (bounded; the oldest are dropped for a
    /// consumer that falls far behind).
    public nonisolated func events() -> AsyncStream<FleetEvent> {
        broadcaster.subscribe()
    }

    /// The state of every managed device now.
    public nonisolated var states: [UUID: DeviceState] {
        registry.withLock { $0 }
    }

    /// The state of one device, or `nil` when it is not managed.
    public nonisolated func state(of device: UUID) -> DeviceState? {
        registry.withLock { $0[device] }
    }

    /// The devices policy wants connected now.
    public var eligibleDevices: Set<UUID> { eligible }

    /// The pinned devices.
    public var pinnedDevices: Set<UUID> { pinned }

    /// Radio statistics: attempts made (on every radio), the most at once (on one radio), and
    /// attempts that overlapped another to the same device (always 0 unless the engine is broken).
    public var radioStatistics: (attempts: Int, peak: Int, overlapping: Int) {
        get async { await radios.statistics() }
    }

    /// The name of the radio a device is assigned to (the one its link, attempt or last link
    /// went through), or `nil` before its first.
    public nonisolated func radio(of device: UUID) -> String? {
        radios.radioName(of: device)
    }

    /// How many devices each radio holds now (linked, connecting or setting up), by name. A
    /// link restored at start-up counts once its device resolves again.
    public nonisolated var radioOccupancy: [String: Int] {
        radios.occupancy
    }

    /// Adds a radio; devices resolving from now on may go through it. Returns `false` (and adds
    /// nothing) when a radio of the fleet has its name, or on an orchestrator made on one
    /// central, whose identifiers are that central's.
    @discardableResult
    public func addRadio(_ radio: FleetRadio) async -> Bool {
        guard let index = radios.add(radio) else { return false }
        if running { await startEvents(of: index) }
        await updateRadioState()
        return true
    }

    /// Removes a radio: its links are cancelled and its devices connect again through the
    /// others. Returns whether a radio of that name was in the fleet.
    @discardableResult
    public func removeRadio(named name: String) async -> Bool {
        guard let (index, assigned) = radios.remove(named: name) else { return false }
        logger.notice("radio removed", metadata: ["radio": "\(name)", "devices": "\(assigned.count)"])
        let owner = radios.owner(index)
        await owner.retire()
        await handOver(assigned, from: owner)
        await updateRadioState()
        return true
    }

    /// How many devices have a timer armed now (each device's events so far handled in full).
    func armedTimers() async -> Int {
        var count = 0
        for device in devices.values where await device.hasArmedTimer { count += 1 }
        return count
    }

    /// How many devices hold a radio operation's task now (each device's events so far handled in full).
    func heldOperations() async -> Int {
        var count = 0
        for device in devices.values where await device.holdsOperation { count += 1 }
        return count
    }

    // MARK: Sending

    /// Queues a message for a device in a QoS class; it is framed with BleuWire and sent when
    /// the device is ready, resent whole after a link loss until confirmed.
    /// - Throws: ``FleetError/queueFull(device:qos:limit:)`` when the class's queue is at its
    ///   bound; ``FleetError/unknownDevice(_:)``; ``FleetError/notWritable(_:)``;
    ///   ``FleetError/messageTooLarge(size:maximum:)``.
    public nonisolated func send(_ message: Data, to device: UUID, qos: QoSClass = .interactive) throws(FleetError) {
        guard configuration.profile.writeCharacteristic != nil else { throw .notWritable(device) }
        guard let outbox = outboxes.withLock({ $0[device] }) else { throw .unknownDevice(device) }
        try outbox.enqueue(message, qos: qos)
    }

    /// Messages waiting or in flight for a device in a class.
    public nonisolated func queueDepth(of device: UUID, qos: QoSClass) -> Int {
        outboxes.withLock { $0[device] }?.depth(of: qos) ?? 0
    }

    /// The deepest a device's queue of a class has been.
    public nonisolated func peakQueueDepth(of device: UUID, qos: QoSClass) -> Int {
        outboxes.withLock { $0[device] }?.peakDepth(of: qos) ?? 0
    }

    /// Writes sent to a device so far, by type, and whole messages confirmed.
    public nonisolated func writeCounts(of device: UUID) -> (withoutResponse: Int, withResponse: Int, messages: Int) {
        let counters = outboxes.withLock { $0[device] }?.counters ?? Outbox.Counters()
        return (counters.withoutResponse, counters.withResponse, counters.messages)
    }

    // MARK: Running

    /// Starts managing devices: follows the central's state and connects what policy wants.
    public func start() async {
        guard !running else { return }
        running = true
        do {
            let saved = try store.load()
            for id in saved.subtracting(pinned) {
                pinned.insert(id)
                _ = await actor(for: id)
            }
        } catch {
            logger.error("could not load the pinned devices; starting without them", metadata: ["error": "\(error)"])
        }
        await applyPolicy()
        logger.info("fleet starting", metadata: ["pinned": "\(pinned.count)", "pooled": "\(candidates.count)"])
        if radios.restorableCentral?.restoreIdentifier != nil && !restoring {
            restoring = true
            for device in devices.values { await device.handle(.restorationBegan) }
            let clock = clock
            let deadline = clock.now() + restorationTimeout
            restorationTimer = Task { [weak self] in
                do { try await clock.sleep(until: deadline) } catch { return }
                await self?.endRestoration(connected: [])
            }
        }
        for index in radios.present { await startEvents(of: index) }
        radioState = radios.aggregateState
        for device in devices.values {
            await device.handle(.centralStateChanged(radioState))
            await device.handle(.start)
        }
    }

    /// Stops: gives up every link and attempts nothing until started again.
    public func stop() async {
        guard running else { return }
        running = false
        logger.info("fleet stopping")
        for device in devices.values { await device.handle(.stop) }
    }

    /// Stops and ends every task; the orchestrator cannot be used afterwards.
    public func shutdown() async {
        await stop()
        await endTasks()
    }

    /// Ends every task without stopping first, so links stay as they are — what an app that
    /// goes away leaves behind for state restoration (tests use it to stand for that).
    func endTasks() async {
        restorationTimer?.cancel()
        for owner in radios.owners { await owner.stopEvents() }
        for device in devices.values { await device.shutdown() }
        broadcaster.finish()
    }

    // MARK: Policy

    /// Pins a device: it is kept connected whatever the pool does.
    public func pin(_ device: UUID) async {
        guard pinned.insert(device).inserted else { return }
        save()
        _ = await actor(for: device)
        await applyPolicy()
    }

    /// Unpins a device; it stays managed as a pool candidate if it was offered.
    public func unpin(_ device: UUID) async {
        guard pinned.remove(device) != nil else { return }
        save()
        await applyPolicy()
    }

    /// Offers a device to the pool (or refreshes what the pool knows of it): its signal
    /// strength, now as its last sighting, and the app's priority (0…1).
    public func offer(_ device: UUID, rssi: Int, priority: Double = 0) async {
        candidates[device] = PoolPolicy.Candidate(rssi: rssi, lastSeen: clock.now(), priority: priority)
        _ = await actor(for: device)
        await applyPolicy()
    }

    /// Withdraws a device from the pool.
    public func withdraw(_ device: UUID) async {
        guard candidates.removeValue(forKey: device) != nil else { return }
        await applyPolicy()
    }

    /// Stops managing a device: unpins and withdraws it, gives up its link and forgets its
    /// state, queues and timers, so a fleet that meets many devices over time stays bounded.
    /// Offering or pinning it again starts afresh.
    public func forget(_ device: UUID) async {
        if pinned.remove(device) != nil { save() }
        candidates.removeValue(forKey: device)
        await applyPolicy()
        guard let actor = devices.removeValue(forKey: device) else { return }
        await actor.handle(.stop)
        // The link is gone before the device could be managed again.
        await actor.operationsDone()
        await actor.shutdown()
        outboxes.withLock { $0[device] = nil }
        registry.withLock { $0[device] = nil }
        radios.forget(device)
    }

    /// Gives up a device's link as if it had been lost: the engine connects and sets it up again
    /// after its fast retry (for a user who found the link's set-up stale, say the peer's
    /// database changed under it). Does nothing to a device without a link.
    public func reconnect(_ device: UUID) async {
        guard let actor = devices[device], await actor.state.holdsLink else { return }
        // The link to give up, read before the device may resolve again (to another radio).
        let link = try? radios.link(of: device)
        await actor.handle(.disconnected(.transientLinkLoss), blamingRadio: false)
        if let link { await radios.cancel(link) }
    }

    /// Changes the pool policy at run time; devices connect and disconnect accordingly.
    public func setPool(_ policy: PoolPolicy) async {
        pool = policy
        await applyPolicy()
    }

    /// The pool policy in force.
    public var poolPolicy: PoolPolicy { pool }

    private func save() {
        do {
            try store.save(pinned)
        } catch {
            logger.error("could not save the pinned devices", metadata: ["error": "\(error)"])
        }
    }

    /// Restoration is over: devices whose links were restored take them over (discovering and
    /// subscribing again, without a new connection); the others connect anew.
    private func endRestoration(connected: Set<UUID>) async {
        guard restoring else { return }
        restoring = false
        restorationTimer?.cancel()
        restorationTimer = nil
        logger.info("restoration ended", metadata: ["restored": "\(connected.count)"])
        for id in connected where devices[id] == nil {
            // A restored link to a device nobody manages: cancel it (restoration is one radio's).
            await radios.owner(0).cancel(id)
        }
        for (id, device) in devices { await device.handle(.restorationEnded(connected: connected.contains(id))) }
    }

    private func applyPolicy() async {
        let incumbents = eligible.subtracting(pinned)
        let chosen = pool.eligible(pinned: pinned, candidates: candidates, incumbents: incumbents, now: clock.now())
        let changed = chosen.symmetricDifference(eligible)
        eligible = chosen
        for id in changed.sorted(by: { $0.uuidString < $1.uuidString }) {
            if let device = devices[id] { await device.handle(.policyUpdated(eligible: chosen.contains(id))) }
        }
    }

    // MARK: Devices

    private func actor(for id: UUID) async -> DeviceActor {
        if let device = devices[id] { return device }
        deviceCount += 1
        let machine = DeviceMachine(policy: configuration.backoff, seed: seed &+ deviceCount &* 0x9E37_79B9_7F4A_7C15)
        let metrics = DeviceMetrics(device: id, session: sessionID, factory: metricsFactory)
        let device = DeviceActor(id: id, machine: machine, radios: radios, profile: configuration.profile, setUp: setUp, clock: clock,
                                 hooks: hooks(), metrics: metrics, logger: logger)
        devices[id] = device
        let outboxes = outboxes
        let outbox = Outbox(device: id, limits: configuration.scheduler, metrics: metrics,
                            report: { [weak device] event in await device?.handle(event) },
                            reportPressure: { [weak device] in
                                await device?.refreshBackPressure { outboxes.withLock { $0[id] }?.isBackPressured ?? false }
                            })
        outboxes.withLock { $0[id] = outbox }
        registry.withLock { $0[id] = .idle }
        await device.handle(.policyUpdated(eligible: eligible.contains(id)))
        await device.handle(.centralStateChanged(radioState))
        if restoring { await device.handle(.restorationBegan) }
        if running { await device.handle(.start) }
        return device
    }

    private nonisolated func hooks() -> DeviceHooks {
        let registry = registry
        let broadcaster = broadcaster
        let outboxes = outboxes
        let incoming = incoming
        let clock = clock
        let writeCharacteristic = configuration.profile.writeCharacteristic
        let linkEnded = setUp?.linkEnded
        return DeviceHooks(
            stateChanged: { id, from, to, at in
                registry.withLock { $0[id] = to }
                broadcaster.yield(.stateChanged(device: id, from: from, to: to, at: at))
            },
            ready: { id, latency in broadcaster.yield(.ready(device: id, latency: latency)) },
            value: { id, characteristic, value in
                switch incoming.receive(value, from: id, now: clock.now()) {
                case .message(let message): broadcaster.yield(.message(device: id, characteristic: characteristic, message))
                case .rejected(let reason): broadcaster.yield(.rejected(device: id, reason: reason))
                case .pending: break
                }
            },
            linkUp: { id, characteristics, central in
                outboxes.withLock { $0[id] }?.linkUp(writeCharacteristic.flatMap { characteristics[$0] }, on: central)
            },
            linkLost: { id in
                incoming.reset(id)
                outboxes.withLock { $0[id] }?.linkLost()
                linkEnded?(id)
            },
            flush: { id in outboxes.withLock { $0[id] }?.flush() }
        )
    }

    // MARK: Routing the radio's events (no decisions here)

    /// Devices whose radio went away: their links there are cancelled, and each connects again
    /// through another radio after its fast retry (not held against the radio it leaves).
    private func handOver(_ assigned: [(device: UUID, peripheral: UUID)], from owner: RadioOwner) async {
        for (device, peripheral) in assigned {
            await owner.cancel(peripheral)
            await devices[device]?.handle(.disconnected(.transientLinkLoss), blamingRadio: false)
        }
    }

    /// Records the radio's state, then routes its events. In this order because the event stream
    /// starts with the state as it is when the stream opens, so it only brings the record
    /// forward; a state read after the stream opened could be older than an event routed while
    /// the read was under way, and would overwrite it.
    private func startEvents(of index: Int) async {
        let owner = radios.owner(index)
        _ = radios.setState(await owner.central.state, of: index)
        await owner.startEvents { [weak self] event in await self?.route(event, radio: index) }
    }

    /// Tells the devices the radio state they see (powered on while any radio is) when it changed.
    private func updateRadioState() async {
        let state = radios.aggregateState
        guard state != radioState else { return }
        radioState = state
        for device in devices.values { await device.handle(.centralStateChanged(state)) }
    }

    private func route(_ event: CentralEvent, radio index: Int) async {
        switch event {
        case .stateChanged(let state):
            // A radio that became unusable while another is usable hands its devices over:
            // their links are gone, and the next attempt chooses among the others.
            let stranded = radios.setState(state, of: index)
            if !stranded.isEmpty {
                logger.notice("radio unusable; its devices go to the others", metadata: ["state": "\(state)", "devices": "\(stranded.count)"])
                // Cancelled too: a radio resetting or unauthorized may still hold its links.
                await handOver(stranded, from: radios.owner(index))
            }
            await updateRadioState()
        case .disconnected(let peripheral, let reason):
            // This engine's own cancel was handled when it was made. Anything else — a lost
            // link, or one cancelled by someone else on the central (a local termination too) —
            // must not leave a device ready on a dead link.
            if await radios.owner(index).takeOwnDisconnect(peripheral) { return }
            guard let id = radios.device(on: index, peripheral: peripheral) else { return }
            var failure = FailureClass.classify(reason)
            // A radio powered off: another radio may carry the device.
            if failure == .radioUnavailable && radios.anotherUsable(than: index) { failure = .transientLinkLoss }
            await devices[id]?.handle(.disconnected(failure))
        case .readyToSendWriteWithoutResponse(let peripheral):
            guard let id = radios.device(on: index, peripheral: peripheral) else { return }
            await devices[id]?.handle(.readyToSend)
        case .willRestoreState(let restoration):
            guard radios.restorableCentral != nil else { return }
            await endRestoration(connected: Set(restoration.peripherals))
        case .connected, .mtuChanged, .servicesChanged:
            break
        }
    }
}
