import BleuATT
import BleuCore
import Foundation
import Synchronization

/// A Bluetooth LE medium in memory: the air that emulated centrals and peripherals share.
///
/// Create as many as you like; each is fully isolated (its own devices, identifiers, bonds,
/// clock and random source). Everything that happens on a bus is serialized through one
/// owner, so both sides see events in the order they happened on the link.
///
/// ```swift
/// let bus = EmulatorBus(configuration: .instant)
/// let peripheral = EmulatedPeripheralManager(bus: bus)
/// let central = EmulatedCentralManager(bus: bus)
/// ```
///
/// Besides hosting managers, the bus is the test's handle on the world: change a radio's
/// state, move a peripheral out of range, lose a link, read the trace.
public final class EmulatorBus: Sendable {
    /// The configuration, with every knob clamped into its range.
    public var configuration: EmulatorConfiguration {
        engine.withLock { $0.configuration }
    }

    /// The seed of every random choice on the bus; give it to ``EmulatorConfiguration/seed``
    /// to replay a run.
    public var seed: UInt64 {
        engine.withLock { $0.seed }
    }

    /// The medium, on a bus of this process. On a bus connected to a hub it holds only the
    /// hub's configuration and seed: the medium is the hub's, and every call goes to `remote`.
    let engine: Locked<Engine>
    /// The connection to the hub that owns the medium, on a bus made by connecting to one.
    let remote: HubClient?
    /// Closes that connection when the bus goes (after its managers, which hold it).
    private let closeConnection = Locked<(@Sendable () -> Void)?>(nil)

    /// A number that moves on whenever a manager or a timer works on the medium. A test that
    /// drives a ``/BleuCore/ManualClock`` moves the clock on only while it stays put.
    package var activity: UInt64 {
        engine.withLock { $0.activity }
    }
    private let clock: ElapsedClock
    /// The sink of ``traceEvents(_:)``, kept here so that a reset's new engine gets it too.
    private let traceSink = Locked<(@Sendable (LinkTraceEvent) -> Void)?>(nil)
    private let operationCounter = Atomic<UInt64>(1)

    /// A bus shared by everything in the process that does not bring its own, with the
    /// `.default` configuration: what managers created without a bus use (the
    /// CoreBluetooth-shaped ones, say). A convenience — ``configure(_:)`` and ``reset()`` start
    /// it afresh; tests that run in parallel should each create their own bus instead.
    public static let shared = EmulatorBus(configuration: .default)

    /// Creates a bus. With ``EmulatorConfiguration/Timing/realistic`` timing, PDUs are
    /// delivered at connection events on `clock` (pass a ``/BleuCore/ManualClock`` to run in virtual
    /// time); with ``EmulatorConfiguration/Timing/instant`` timing the clock only arms timeouts.
    public init(configuration: EmulatorConfiguration = .instant, clock: any Clock<Duration> = ContinuousClock()) {
        let busClock = ElapsedClock(clock)
        self.clock = busClock
        self.engine = Locked(Engine(configuration: configuration.normalized(), clock: busClock))
        self.remote = nil
        self.engine.withLock { installHooks(in: &$0) }
    }

    /// A bus whose medium is a hub's, reached through `client` (see `EmulatorBus(connectingTo:)`
    /// in BleuEmulatorHub): its managers are this module's, and each of their calls goes to the hub.
    package init(hub client: HubClient) {
        var configuration = client.configuration
        configuration.seed = client.seed
        clock = ElapsedClock(ContinuousClock())
        engine = Locked(Engine(configuration: configuration.normalized(), clock: clock))
        remote = client
    }

    deinit {
        engine.withLock { $0.timers.stop() }
        closeConnection.withLock { $0 }?()
    }

    /// What closes the connection to the hub when this bus goes.
    package func closesConnection(with close: @escaping @Sendable () -> Void) {
        closeConnection.withLock { $0 = close }
    }

    /// Closes the connection to the hub at once, without a word to it first: as when this
    /// process dies. Its managers are cut off; at the hub they leave the air.
    package func dropHubConnection() {
        closeConnection.withLock { $0 }?()
    }

    /// Starts the medium afresh with `configuration`, as ``reset()`` does.
    ///
    /// On a bus connected to a hub it does nothing: the hub owns the medium.
    public func configure(_ configuration: EmulatorConfiguration) async {
        guard remote == nil else { return }
        replaceEngine(configuration: configuration.normalized())
    }

    /// Starts the medium afresh with the same configuration (and seed, when it fixes one): no
    /// devices, links, bonds or trace. Managers created before it are cut off — their radios
    /// report ``/BleuCore/ManagerState/unknown``, their streams end, their calls fail — so create
    /// new ones after it, as a test's set-up does.
    ///
    /// On a bus connected to a hub it does nothing: the hub owns the medium, and other
    /// processes share it.
    public func reset() async {
        guard remote == nil else { return }
        replaceEngine(configuration: configuration)
    }

    private func replaceEngine(configuration: EmulatorConfiguration) {
        engine.withLock { engine in
            engine.shutDown()
            // Keys keep counting, so a cut-off manager never names a new one's device.
            engine = Engine(configuration: configuration, clock: clock, continuing: engine)
            installHooks(in: &engine)
        }
    }

    /// Connects the engine to this shell: its scheduler, receipts, passkey requests and channels.
    private func installHooks(in engine: inout Engine) {
        let busClock = clock
        engine.hooks.startScheduler = { [weak self, busClock] generation in
            // The task holds the bus only while it runs timers, not while it sleeps, so a
            // bus nobody uses any more goes away (and its deinit stops the task).
            Task { [weak self] in
                while let target = self?.schedulerTarget(generation) {
                    do {
                        try await busClock.sleep(until: target)
                    } catch {
                        return
                    }
                    guard self?.runDueTimers(generation) == true else { return }
                }
            }
        }
        engine.hooks.onReceipts = { [weak self] links in
            self?.whenUnlocked { engine in
                for link in links { engine.writeSlotFreed(on: link) }
            }
        }
        engine.hooks.requestPasskey = { [weak self] handler, request, link, procedure in
            Task {
                let entered = await handler(request)
                self?.withEngine { $0.passkeyEntered(entered, on: link, procedure: procedure) }
            }
        }
        engine.hooks.traceSink = traceSink.withLock { $0 }
        engine.hooks.makeChannel = { [weak self] channel, side, psm, peer, input in
            guard let self else { return nil }
            return EmulatedL2CAPChannel(bus: self, channel: channel, side: side, psm: psm, peer: peer, input: input)
        }
    }

    // MARK: The test's controls

    /// Changes a central's radio state, as when the user turns Bluetooth off or revokes the
    /// permission. Leaving `poweredOn` ends its connections, fails connection attempts and
    /// ends its scan with the state's error. The connections end with reasons that say why:
    /// - `poweredOff` (and `resetting`, `unsupported`, `unknown`): the radio is gone; the
    ///   central reports ``/BleuCore/DisconnectReason/poweredOff``, the peripheral HCI 0x15
    ///   (Remote Device Terminated Connection due to Power Off).
    /// - `unauthorized`: the radio stays on and the system disconnects the application; the
    ///   central reports ``/BleuCore/DisconnectReason/localHostTerminated``, the peripheral
    ///   ``/BleuCore/DisconnectReason/remoteUserTerminated``.
    public func setState(_ state: ManagerState, of central: EmulatedCentralManager) {
        if let remote = central.remote { return control(.setCentralState(manager: remote.number, state)) }
        withEngine { $0.setState(state, ofCentral: central.key) }
    }

    /// Changes a peripheral's radio state. Leaving `poweredOn` stops advertising, ends its
    /// connections and clears its services and PSMs, as CoreBluetooth does. The reasons are
    /// those of a central's state change with the roles swapped: powered off (or another
    /// state without a radio), the peripheral reports ``/BleuCore/DisconnectReason/poweredOff`` and the central
    /// HCI 0x15; unauthorized, ``/BleuCore/DisconnectReason/localHostTerminated`` and
    /// ``/BleuCore/DisconnectReason/remoteUserTerminated``.
    public func setState(_ state: ManagerState, of peripheral: EmulatedPeripheralManager) {
        if let remote = peripheral.remote { return control(.setPeripheralState(manager: remote.number, state)) }
        withEngine { $0.setState(state, ofPeripheral: peripheral.key) }
    }

    /// Places a peripheral `meters` from every central. RSSI follows
    /// ``EmulatorConfiguration/rssi``; past its range the peripheral is not heard and its links
    /// are lost (both sides report ``/BleuCore/DisconnectReason/supervisionTimeout``).
    public func setDistance(_ meters: Double, of peripheral: EmulatedPeripheralManager) {
        if let remote = peripheral.remote { return control(.setDistance(manager: remote.number, meters)) }
        withEngine { $0.setDistance(meters, ofPeripheral: peripheral.key) }
    }

    /// Loses the link between a central and a peripheral (`peripheral` as the central knows
    /// it): nothing gets through any more, and after the supervision timeout (at once with
    /// instant timing) both sides report ``/BleuCore/DisconnectReason/supervisionTimeout``.
    public func loseLink(between central: EmulatedCentralManager, and peripheral: UUID) {
        if let remote = central.remote { return control(.loseLink(manager: remote.number, peripheral: peripheral)) }
        withEngine { engine in
            guard let key = engine.centrals[central.key]?.known[peripheral],
                  let link = engine.centrals[central.key]?.links[key] else { return }
            engine.loseLink(link)
        }
    }

    /// Forgets every bond: the next access to a protected attribute pairs again.
    public func removeAllBonds() {
        if remote != nil { return control(.removeAllBonds) }
        withEngine { $0.bonds.removeAll() }
    }

    /// How many device pairs are bonded on the bus.
    public var bondCount: Int {
        if let remote { return (try? remote.now(.bus(.bondCount)).int) ?? 0 }
        return withEngine { $0.bonds.count }
    }

    // MARK: Trace

    /// The link events recorded so far (the newest ``EmulatorConfiguration/traceCapacity``).
    public var trace: [LinkTraceEvent] {
        if let remote { return (try? remote.now(.bus(.trace)).trace) ?? [] }
        return withEngine { Array($0.trace.events) }
    }

    /// The trace as text, one event a line.
    public func traceText() -> String {
        trace.map(\.description).joined(separator: "\n")
    }

    /// Hands every link event to `sink` as it is recorded, with the PDU's bytes where the bus
    /// has them (``LinkTraceEvent/pdu``), beside the bounded ``trace``: for writing a trace to a
    /// file as it happens (`bleu hub --trace`). The sink runs inside the bus's lock, so it must
    /// only hand the event on (to a queue that writes it, say); `nil` stops it. The sink stays
    /// across ``reset()``.
    ///
    /// Throws ``/BleuCore/BleuError/invalidState(_:)`` on a bus joined to a hub: the hub's process
    /// owns the medium, so trace it there.
    public func traceEvents(_ sink: (@Sendable (LinkTraceEvent) -> Void)?) throws(BleuError) {
        guard remote == nil else {
            throw .invalidState(.invalidConfiguration(setting: "trace sink", requirement: "set it on the hub's own bus, not on a client's"))
        }
        traceSink.withLock { $0 = sink }
        withEngine { $0.hooks.traceSink = sink }
    }

    /// Forgets the recorded events.
    public func clearTrace() {
        if remote != nil { return control(.clearTrace) }
        withEngine { $0.trace.removeAll() }
    }

    /// Sends a control to the hub without waiting: it takes effect there after every call this
    /// bus's managers made before it, and before every later one. (Waiting would block the
    /// calling thread, which async code must not do.) A hub that is gone has no medium left
    /// to change, so nothing is reported.
    private func control(_ call: BusCall) {
        remote?.begin(.bus(call)) { _ in }
    }

    // MARK: Plumbing for the managers

    /// Runs `body` on the engine, after bringing it up to the clock's time.
    func withEngine<T, E: Error>(_ body: (inout Engine) throws(E) -> T) throws(E) -> T {
        let result: Result<T, E> = engine.withLock { engine in
            engine.catchUp()
            do throws(E) {
                return .success(try body(&engine))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Starts an operation that completes later and waits for it. The caller's cancellation
    /// fails it with ``BleuCore/BleuError/cancelled``.
    func perform(_ start: (inout Engine, OperationID) throws(BleuError) -> Void) async throws -> OperationResult {
        try await awaiting { id, completion in begin(id, start, completion: completion) }
    }

    /// Runs a callback-style operation as an async call: `begin` starts it under the given
    /// number; the caller's cancellation completes it with ``BleuCore/BleuError/cancelled``.
    func awaiting<T: Sendable>(_ begin: (OperationID, @escaping @Sendable (Result<T, any Error>) -> Void) -> Void) async throws -> T {
        let id = newOperationID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                guard !Task.isCancelled else {
                    continuation.resume(throwing: BleuError.cancelled)
                    return
                }
                begin(id) { continuation.resume(with: $0) }
            }
        } onCancel: {
            cancel(id)
        }
    }

    /// A caller's number for an operation it is about to begin.
    func newOperationID() -> OperationID {
        if let remote { return remote.newRequestID() }
        return operationCounter.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// Begins an operation without waiting for it: `completion` runs once with its result,
    /// inside the engine and in the engine's order — so it must not block or call back into
    /// the bus synchronously. A `start` that throws completes at once with its error.
    func begin(_ id: OperationID, _ start: (inout Engine, OperationID) throws(BleuError) -> Void,
               completion: @escaping OperationCompletion) {
        engine.withLock { engine in
            engine.catchUp()
            engine.waiters.register(id, completion)
            do {
                try start(&engine, id)
            } catch {
                engine.fail(id, error)
            }
        }
    }

    /// The caller gave up on an operation: it completes with ``BleuCore/BleuError/cancelled``.
    func cancel(_ id: OperationID) {
        if let remote { return remote.post(.cancel(request: id)) }
        whenUnlocked { $0.cancel(id) }
    }

    /// Runs cleanup on the engine now if its lock is free, else soon in a task: a stream can be
    /// released (and a receipt settled) while the engine's own thread holds the lock — a
    /// channel in a dropped event, say — and the lock is not recursive.
    func whenUnlocked(_ body: @escaping @Sendable (inout Engine) -> Void) {
        let done: Bool? = engine.withLockIfAvailable { engine in
            engine.catchUp()
            body(&engine)
            return true
        }
        if done == nil {
            Task { [weak self] in self?.withEngine { body(&$0) } }
        }
    }

    /// The public face of an engine value stream.
    func dataStream(_ id: StreamID) -> AsyncThrowingStream<Data, any Error> {
        let release = Release { [weak self] in self?.whenUnlocked { $0.removeStream(id) } }
        return AsyncThrowingStream(unfolding: { [weak self] in
            withExtendedLifetime(release) {}
            guard let self, case .data(let data)? = try await self.next(id) else { return nil }
            return data
        })
    }

    func advertisementStream(_ id: StreamID) -> AsyncThrowingStream<Advertisement, any Error> {
        let release = Release { [weak self] in self?.whenUnlocked { $0.removeStream(id) } }
        return AsyncThrowingStream(unfolding: { [weak self] in
            withExtendedLifetime(release) {}
            guard let self, case .advertisement(let advertisement)? = try await self.next(id) else { return nil }
            return advertisement
        })
    }

    private func next(_ id: StreamID) async throws -> ValueStream.Element? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ValueStream.Element?, any Error>) in
                engine.withLock { engine in
                    engine.catchUp()
                    engine.nextElement(id, waiter: continuation)
                }
            }
        } onCancel: {
            whenUnlocked { $0.removeStream(id) }
        }
    }

    /// When the scheduler of this generation should wake next, or `nil` if a newer one took over.
    private func schedulerTarget(_ generation: Int) -> Duration? {
        engine.withLock { $0.timers.generation == generation ? $0.timers.scheduledWake : nil }
    }

    /// Runs the timers due by now; returns whether this scheduler has more to wait for.
    private func runDueTimers(_ generation: Int) -> Bool {
        engine.withLock { engine in
            guard engine.timers.generation == generation else { return false }
            engine.process(until: clock.now(), fromScheduler: true)
            return engine.timers.scheduledWake != nil
        }
    }
}
