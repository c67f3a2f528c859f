import BleuCore
import Foundation
import Logging

/// One device: owns its ``DeviceMachine``, feeds it events one at a time and executes the
/// effects it returns, in order. Radio operations of one device run in one chain, in the order
/// the machine asked for them; a cancelled operation's late result is dropped, so it cannot be
/// mistaken for the result of a newer one.
actor DeviceActor {
    nonisolated let id: UUID
    private var machine: DeviceMachine
    private let radios: FleetRadios
    private let profile: DeviceProfile
    private let setUp: LinkSetUp?
    private let clock: ElapsedClock
    private let hooks: DeviceHooks
    private let metrics: DeviceMetrics
    private var logger: Logger
    private var stateSince: Duration = .zero

    /// The radio operation under way, or the last one while it finishes: dropped once done, since
    /// a finished task kept by its handle keeps its task memory (the slabs its frames used —
    /// a link's set-up, the deepest, is a few KiB a device).
    private var operation: Task<Void, Never>?
    /// Numbers the operations, so that one finishing knows whether it is still ``operation``.
    private var operationNumber: UInt64 = 0
    private var generation: UInt64 = 0
    private var timer: Task<Void, Never>?
    /// The token of the timer armed now (it has not fired and was not cancelled).
    private var armedToken: UInt64?
    private var readers: [Task<Void, Never>] = []
    private var attemptStarted: Duration?
    private(set) var characteristics: [BluetoothUUID: RemoteCharacteristic] = [:]

    init(id: UUID, machine: DeviceMachine, radios: FleetRadios, profile: DeviceProfile, setUp: LinkSetUp?, clock: ElapsedClock,
         hooks: DeviceHooks, metrics: DeviceMetrics, logger: Logger) {
        self.id = id
        self.machine = machine
        self.radios = radios
        self.profile = profile
        self.setUp = setUp
        self.clock = clock
        self.hooks = hooks
        self.metrics = metrics
        self.stateSince = clock.now()
        self.logger = logger
        self.logger[metadataKey: "device"] = "\(id)"
    }

    var state: DeviceState { machine.state }
    var snapshot: DeviceMachine { machine }
    /// Whether a timer of the machine is armed: without one (and without an operation under
    /// way) the device does nothing until an event comes.
    var hasArmedTimer: Bool { armedToken != nil }

    /// Feeds one event to the machine and executes the effects.
    /// - Parameter blamingRadio: whether a failure the event reports counts against the
    ///   device's radio at its next choice (not when the engine gave the link up itself).
    func handle(_ event: DeviceEvent, blamingRadio: Bool = true) {
        let now = clock.now()
        let before = machine.state
        let effects = machine.apply(event, now: now)
        let after = machine.state
        if let failure = event.failure { metrics.failure(failure) }
        if blamingRadio, before.holdsLink, after != before {
            switch event {
            case .connectFailed, .discoveryFailed, .disconnected: radios.failed(id)  // weighed at the next choice of radio
            default: break
            }
        }
        if after != before {
            log(before, after, event)
            metrics.transition(from: before, to: after, stayed: now - stateSince, now: now)
            stateSince = now
            if !before.holdsLink && before != .resolving && after == .resolving { attemptStarted = now }
            hooks.stateChanged(id, before, after, now)
            if !after.holdsLink && after != .resolving { radios.released(id) }  // the radio slot is free
            if before.holdsLink && !after.holdsLink {
                // Whatever ran on the old link (a discovery, say) is moot: stop it, so the next
                // attempt's operations do not wait behind it, and drop its late result.
                operation?.cancel()
                generation &+= 1
                stopReaders()
                characteristics = [:]
                hooks.linkLost(id)
            }
            if after == .ready, before == .discovering {
                hooks.ready(id, now - (attemptStarted ?? now))
                metrics.ready(after: now - (attemptStarted ?? now))
                attemptStarted = nil
            }
        }
        for effect in effects { execute(effect) }
    }

    private func log(_ before: DeviceState, _ after: DeviceState, _ event: DeviceEvent) {
        let metadata: Logger.Metadata = ["from": "\(before)", "to": "\(after)", "event": "\(event)"]
        switch after {
        case .ready: logger.info("device ready", metadata: metadata)
        case .backingOff: logger.notice("device backing off", metadata: metadata)
        case .suspended, .degraded: logger.warning("device \(after.name)", metadata: metadata)
        default: logger.debug("device \(after.name)", metadata: metadata)
        }
    }

    /// Feeds the machine the back-pressure as `read` says it is now (read on this actor, so the
    /// last report always carries the latest value).
    func refreshBackPressure(_ read: @Sendable () -> Bool) {
        handle(.backPressure(read()))
    }

    /// Waits until the radio operations asked for so far are done (a cancellation included).
    func operationsDone() async {
        await operation?.value
    }

    /// Whether the device holds an operation's task (for tests: none once every operation finished).
    var holdsOperation: Bool { operation != nil }

    /// An operation finished: its task is let go unless a later one replaced it.
    private func operationFinished(_ number: UInt64) {
        if number == operationNumber { operation = nil }
    }

    /// Stops every task of the device (when the orchestrator goes away).
    func shutdown() {
        timer?.cancel()
        operation?.cancel()
        for reader in readers { reader.cancel() }
        readers = []
    }

    // MARK: Effects

    private func execute(_ effect: DeviceEffect) {
        switch effect {
        case .resolve:
            chain { radios, id in
                do {
                    try await radios.resolve(id)
                    return .resolved
                } catch {
                    return .resolveFailed(FailureClass.classify(error))
                }
            }
        case .connect:
            chain { radios, id in
                do {
                    try await radios.connect(id)
                    return .connected
                } catch {
                    return .connectFailed(FailureClass.classify(error))
                }
            }
        case .discover:
            let profile = profile
            stopReaders()
            if let setUp {
                chain { radios, id in
                    do {
                        try await setUp.prepareLink(radios.link(of: id))
                        return .discovered
                    } catch {
                        return .discoveryFailed(FailureClass.classify(error))
                    }
                }
                return
            }
            chain { radios, id in
                do {
                    let found = try await Self.discover(profile, on: radios.link(of: id))
                    await self.subscribed(found)
                    return .discovered
                } catch {
                    return .discoveryFailed(FailureClass.classify(error))
                }
            }
        case .cancelConnection:
            stopReaders()
            characteristics = [:]
            generation &+= 1
            let previous = operation
            previous?.cancel()
            let radios = radios
            let id = id
            operationNumber &+= 1
            let number = operationNumber
            operation = Task { [weak self] in
                await previous?.value
                await radios.cancel(id)
                await self?.operationFinished(number)
            }
        case .startTimer(let kind, let deadline, let token):
            timer?.cancel()
            let clock = clock
            armedToken = token
            timer = Task { [weak self] in
                do {
                    try await clock.sleep(until: deadline)
                } catch {
                    return
                }
                await self?.fire(kind, token: token)
            }
        case .cancelTimers:
            timer?.cancel()
            timer = nil
            armedToken = nil
        case .flushOutgoing:
            hooks.flush(id)
        }
    }

    private func fire(_ kind: DeviceTimer, token: UInt64) {
        if armedToken == token {
            armedToken = nil
            timer = nil
        }
        handle(.timerFired(kind, token: token))
    }

    /// Runs a radio operation after the ones before it; its result is an event, dropped if a
    /// cancellation came in between.
    private func chain(_ body: @escaping @Sendable (FleetRadios, UUID) async -> DeviceEvent) {
        let previous = operation
        let generation = generation
        let radios = radios
        let id = id
        operationNumber &+= 1
        let number = operationNumber
        operation = Task { [weak self] in
            await previous?.value
            guard !Task.isCancelled else {
                await self?.operationFinished(number)
                return
            }
            let event = await body(radios, id)
            await self?.deliver(event, generation: generation, operation: number)
        }
    }

    private func deliver(_ event: DeviceEvent, generation: UInt64, operation number: UInt64) {
        // Before handling: the event may start the next operation, which then is the current one.
        operationFinished(number)
        guard generation == self.generation else {
            // A resolve that finished after the device gave up may have taken a radio slot.
            if !machine.state.holdsLink && machine.state != .resolving { radios.released(id) }
            return
        }
        handle(event)
    }

    // MARK: Discovery and subscriptions

    private struct Discovered: Sendable {
        var characteristics: [BluetoothUUID: RemoteCharacteristic]
        var central: any CentralManager
        var streams: [(BluetoothUUID, AsyncThrowingStream<Data, any Error>)]
    }

    private static func discover(_ profile: DeviceProfile, on link: FleetLink) async throws -> Discovered {
        let found = try await link.central.discover(ServiceRequirement(
            service: profile.service, required: profile.writeCharacteristic.map { [$0] } ?? [],
            subscriptions: profile.subscriptions), on: link.peripheral)
        return Discovered(characteristics: found.characteristics, central: link.central,
                          streams: found.subscriptions.map { ($0.uuid, $0.values) })
    }

    private func subscribed(_ found: Discovered) {
        characteristics = found.characteristics
        hooks.linkUp(id, found.characteristics, found.central)
        for (uuid, stream) in found.streams {
            let hooks = hooks
            let id = id
            readers.append(Task { [weak self] in
                do {
                    for try await value in stream {
                        hooks.value(id, uuid, value)
                        await self?.handle(.valueReceived)
                    }
                } catch {
                    // The link ended; the disconnection event drives the machine.
                }
            })
        }
    }

    private func stopReaders() {
        for reader in readers { reader.cancel() }
        readers = []
    }
}

/// How a device actor reports to the orchestrator (synchronous, non-blocking calls).
struct DeviceHooks: Sendable {
    var stateChanged: @Sendable (UUID, DeviceState, DeviceState, Duration) -> Void
    var ready: @Sendable (UUID, Duration) -> Void
    var value: @Sendable (UUID, BluetoothUUID, Data) -> Void
    var linkUp: @Sendable (UUID, [BluetoothUUID: RemoteCharacteristic], any CentralManager) -> Void
    var linkLost: @Sendable (UUID) -> Void
    var flush: @Sendable (UUID) -> Void
}
