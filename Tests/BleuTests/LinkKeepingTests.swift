@testable import Bleu
import BleuCore
import BleuEmulator
import BleuOrchestration
import BleuTesting
import Distributed
import Foundation
import MetricsTestKit
import Testing

/// Counts how often each of its methods began; `block` runs until its task is cancelled.
distributed actor OutageActor: PeripheralActor {
    typealias ActorSystem = BLEActorSystem
    let latch: Latch
    private(set) var blockCalls = 0
    private(set) var quickCalls = 0

    init(actorSystem: BLEActorSystem, latch: Latch) {
        self.actorSystem = actorSystem
        self.latch = latch
    }

    distributed func block() async -> Int {
        blockCalls += 1
        latch.enter()
        let (never, _) = AsyncStream.makeStream(of: Int.self)
        for await _ in never {}
        return -1
    }

    distributed func quick() -> Int {
        quickCalls += 1
        return quickCalls
    }

    func counts() -> (block: Int, quick: Int) { (blockCalls, quickCalls) }
}

@Suite("Links kept by the engine: outages, call policies, connectivity")
struct LinkKeepingTests {
    /// Iterates `connectivity` until `matches` holds; the state that matched.
    @discardableResult
    static func await(_ connectivity: inout AsyncStream<ActorConnectivity>.Iterator,
                      _ matches: (ActorConnectivity) -> Bool) async -> ActorConnectivity? {
        while let state = await connectivity.next() {
            if matches(state) { return state }
        }
        return nil
    }

    static let outOfRange = 1000.0
    static let near = 1.0

    /// A connected counter whose peripheral has just gone out of range: the central saw its
    /// link go. Returns the pair, the remote counter and the rest of its connectivity.
    static func outage(_ configuration: BLEActorSystem.Configuration = .fast) async throws
        -> (ConnectedPair, CounterActor, AsyncStream<ActorConnectivity>.Iterator) {
        let pair = ConnectedPair(configuration: configuration)
        let counter = try await pair.host(CounterActor.self) { CounterActor(actorSystem: $0) }
        var states = pair.central.connectivity(of: counter.id).makeAsyncIterator()
        await Self.await(&states) { $0 == .ready }
        pair.bus.setDistance(outOfRange, of: pair.peripheralManager)
        await Self.await(&states) { $0 != .ready }
        return (pair, counter, states)
    }

    @Test("waitForConnection: a call made while the link is down waits, and runs once the link is back")
    func waitsForTheLink() async throws {
        let (pair, counter, _) = try await Self.outage()
        #expect(pair.central.currentConnectivity(of: counter.id) != .ready)
        async let result = counter.increment()
        pair.bus.setDistance(Self.near, of: pair.peripheralManager)
        #expect(try await result == 1)
        #expect(pair.central.currentConnectivity(of: counter.id) == .ready)
    }

    @Test("failFast: a call made while the link is down fails at once with BleuError.disconnected; calls work again once it is back")
    func failsFast() async throws {
        var configuration = BLEActorSystem.Configuration.fast
        configuration.links.callPolicy = .failFast
        let (pair, counter, rest) = try await Self.outage(configuration)
        var states = rest
        do {
            _ = try await counter.increment()
            Issue.record("the call succeeded while the peripheral was out of range")
        } catch BleuError.disconnected(_, let reason) {
            #expect(reason == .supervisionTimeout)
        }
        pair.bus.setDistance(Self.near, of: pair.peripheralManager)
        await Self.await(&states) { $0 == .ready }
        #expect(try await counter.increment() == 1)
    }

    @Test("waitForConnection: a call whose link does not come back in time fails with BleuError.timeout after the call's timeout")
    func waitsNoLongerThanTheCallTimeout() async throws {
        let (pair, counter, _) = try await Self.outage()
        do {
            _ = try await BLEActorSystem.withCallTimeout(.milliseconds(200)) { try await counter.increment() }
            Issue.record("the call succeeded while the peripheral was out of range")
        } catch BleuError.timeout(.remoteCall(let method), let after) {
            #expect(method.contains("increment"))
            #expect(after == .milliseconds(200))
        }
        // The peripheral never ran it.
        pair.bus.setDistance(Self.near, of: pair.peripheralManager)
        #expect(try await counter.current() == 0)
    }

    @Test("at most once: a call written before the link drops fails with disconnected and is never re-sent; a call queued behind it runs once on the next link")
    func atMostOnce() async throws {
        var configuration = BLEActorSystem.Configuration.fast
        configuration.maximumConcurrentCallsPerCentral = 1
        let pair = ConnectedPair(configuration: configuration)
        let latch = Latch()
        let local = OutageActor(actorSystem: pair.peripheral, latch: latch)
        try await pair.peripheral.startAdvertising(local)
        let remote = try await pair.central.connect(to: local.id, as: OutageActor.self)
        var entered = latch.entered.makeAsyncIterator()
        let written = Task { try await remote.block() }
        await entered.next()
        // Waits for a slot behind the blocked call: not written yet.
        let queued = Task { try await remote.quick() }
        while pair.central.admittedCalls(to: remote.id) < 2 { await Task.yield() }
        pair.bus.setDistance(Self.outOfRange, of: pair.peripheralManager)
        await #expect(throws: BleuError.self) { _ = try await written.value }
        do {
            _ = try await written.value
        } catch let error as BleuError {
            guard case .disconnected = error else { Issue.record("the written call failed with \(error)"); return }
        }
        pair.bus.setDistance(Self.near, of: pair.peripheralManager)
        #expect(try await queued.value == 1)
        let counts = try #require(await local.whenLocal { $0.counts() })
        #expect(counts.block == 1)
        #expect(counts.quick == 1)
    }

    @Test("connectivity goes ready → not ready → ready across an outage; the reconnection is counted per actor")
    func connectivityAndMetrics() async throws {
        let metrics = TestMetrics()
        var configuration = BLEActorSystem.Configuration.fast
        configuration.metrics = metrics
        let pair = ConnectedPair(configuration: configuration)
        let counter = try await pair.host(CounterActor.self) { CounterActor(actorSystem: $0) }
        var states = pair.central.connectivity(of: counter.id).makeAsyncIterator()
        await Self.await(&states) { $0 == .ready }
        pair.bus.setDistance(Self.outOfRange, of: pair.peripheralManager)
        let down = await Self.await(&states) { $0 != .ready }
        switch down {
        case .backingOff?, .connecting?: break
        default: Issue.record("after the loss the actor is \(String(describing: down))")
        }
        pair.bus.setDistance(Self.near, of: pair.peripheralManager)
        #expect(await Self.await(&states) { $0 == .ready } == .ready)
        #expect(try await counter.increment() == 1)
        #expect(try metrics.expectCounter("bleu_actor_reconnects", [("actor", counter.id.uuidString)]).totalValue == 1)
        // Disconnecting on purpose: the system stops keeping the link.
        await pair.central.disconnect(from: counter)
        #expect(await Self.await(&states) { if case .disconnected = $0 { true } else { false } } == .disconnected(.localHostTerminated))
    }

    @Test("a call that times out waiting for its link is counted as a failed call of its actor")
    func failedCallsAreCounted() async throws {
        let metrics = TestMetrics()
        var configuration = BLEActorSystem.Configuration.fast
        configuration.metrics = metrics
        configuration.links.callPolicy = .failFast
        let (_, counter, _) = try await Self.outage(configuration)
        await #expect(throws: BleuError.self) { _ = try await counter.increment() }
        #expect(try metrics.expectCounter("bleu_actor_call_failures", [("actor", counter.id.uuidString), ("reason", "disconnected")])
            .totalValue == 1)
    }
}

/// The host's radio, counting the services it publishes; with `drained`, its events reach the
/// host through the protocol's default (a task draining ``PeripheralManager/events()``, as on
/// a backend with no receiver of its own), else as the emulator produces each.
/// It can also hold the events back, as a backend whose events lag the radio.
final class RecordingPeripheral: ForwardingPeripheralManager {
    let base: any PeripheralManager
    let drained: Bool
    private let added = Locked(0)
    private let addedEvents = AsyncStream.makeStream(of: Void.self)
    /// The events held back, or `nil` while they go through.
    private let held = Locked<[PeripheralEvent]?>(nil)
    private let heldEvents = AsyncStream.makeStream(of: PeripheralEvent.self)
    private let receiver = Locked<(@Sendable (PeripheralEvent) -> Void)?>(nil)

    /// Services published so far.
    var servicesAdded: Int { added.withLock { $0 } }
    /// An element per service published.
    var additions: AsyncStream<Void> { addedEvents.stream }
    /// Each event as it is held back.
    var heldBack: AsyncStream<PeripheralEvent> { heldEvents.stream }

    init(_ base: any PeripheralManager, drained: Bool) {
        self.base = base
        self.drained = drained
    }

    func events(receive: @escaping @Sendable (PeripheralEvent) -> Void) -> ValueSubscription {
        receiver.withLock { $0 = receive }
        let deliver: @Sendable (PeripheralEvent) -> Void = { [held, heldEvents] event in
            let kept = held.withLock { held in
                guard held != nil else { return false }
                held!.append(event)
                return true
            }
            if kept { heldEvents.continuation.yield(event) } else { receive(event) }
        }
        return drained ? drainEvents(into: deliver) : base.events(receive: deliver)
    }

    /// Holds the events back from now on.
    func hold() { held.withLock { $0 = [] } }

    /// Hands the host the events held back up to the first power-on, in order, and holds the rest.
    func releaseThroughPowerOn() {
        let events = held.withLock { held in
            let all = held ?? []
            let end = all.firstIndex { if case .stateChanged(.poweredOn) = $0 { true } else { false } }.map { $0 + 1 } ?? all.count
            held?.removeFirst(end)
            return Array(all.prefix(end))
        }
        let receive = receiver.withLock { $0 }
        for event in events { receive?(event) }
    }

    /// Hands the host the events held back, in order, and lets later ones through.
    func release() {
        let events = held.withLock { held in
            defer { held = nil }
            return held ?? []
        }
        let receive = receiver.withLock { $0 }
        for event in events { receive?(event) }
    }

    func add(_ service: ServiceDefinition) async throws -> PublishedService {
        let published = try await base.add(service)
        added.withLock { $0 += 1 }
        addedEvents.continuation.yield()
        return published
    }

    /// Runs once, after the next advertising started and before the host hears it did.
    let afterAdvertising = Locked<(@Sendable () -> Void)?>(nil)

    func startAdvertising(_ advertisement: AdvertisingData, scanResponse: AdvertisingData?) async throws {
        try await base.startAdvertising(advertisement, scanResponse: scanResponse)
        afterAdvertising.withLock { hook in
            defer { hook = nil }
            return hook
        }?()
    }
}

/// How the host takes its radio's events.
enum EventDelivery: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// Inside the emulator, as it produces each.
    case received
    /// From a task draining a stream.
    case drained

    var testDescription: String { rawValue }

    /// A pair whose peripheral takes its events this way, and its radio.
    func pair() -> (ConnectedPair, RecordingPeripheral) {
        let radio = Locked<RecordingPeripheral?>(nil)
        let pair = ConnectedPair(peripheralRadio: { manager in
            let recording = RecordingPeripheral(manager, drained: self == .drained)
            radio.withLock { $0 = recording }
            return recording
        })
        return (pair, radio.withLock { $0! })
    }
}

@Suite("The peripheral side recovers by itself")
struct PeripheralRecoveryTests {
    @Test("the peripheral's radio goes off and on: its streams end typed at the central, its actors are published and advertised again, and old references call them",
          .timeLimit(.minutes(1)), arguments: EventDelivery.allCases)
    func radioCycle(delivery: EventDelivery) async throws {
        let (pair, _) = delivery.pair()
        let sensor = try await pair.host(StreamingSensorActor.self) { StreamingSensorActor(actorSystem: $0) }
        var elements = try await sensor.endless().makeAsyncIterator()
        #expect(try await elements.next() != nil)
        var states = pair.central.connectivity(of: sensor.id).makeAsyncIterator()
        await LinkKeepingTests.await(&states) { $0 == .ready }

        pair.bus.setState(.poweredOff, of: pair.peripheralManager)
        do {
            while try await elements.next() != nil {}
            Issue.record("the stream ended without an error")
        } catch let error as BleuError {
            guard case .disconnected(_, .poweredOff) = error else { Issue.record("the stream ended with \(error)"); return }
        }
        await LinkKeepingTests.await(&states) { $0 != .ready }
        // The application does nothing: the system publishes its actors again once the radio is back.
        pair.bus.setState(.poweredOn, of: pair.peripheralManager)
        await LinkKeepingTests.await(&states) { $0 == .ready }
        #expect(try await sensor.produced() > 0)
        // A central that never saw it finds it by scanning: it is advertised again.
        let found = try await pair.makeCentral().discover(StreamingSensorActor.self, timeout: .seconds(5), count: 1)
        #expect(found.map(\.id) == [sensor.id])
        // Its source on the peripheral was stopped when the link went.
        #expect(try await sensor.endedSources() >= 1)
    }

    @Test("two power cycles in a row, each reported before the first republishing finished: the actor is published once, advertised, and callable",
          .timeLimit(.minutes(1)), arguments: EventDelivery.allCases)
    func quickCycles(delivery: EventDelivery) async throws {
        let (pair, radio, sensor) = try await Self.hostedSensor(delivery)
        let hosted = radio.servicesAdded
        for state in [ManagerState.poweredOff, .poweredOn, .poweredOff, .poweredOn] {
            pair.bus.setState(state, of: pair.peripheralManager)
        }
        try await Self.expectFoundAndCalled(sensor, from: pair)
        #expect(try await Self.sensorServicesPublished(on: pair.bus) == 1)
        if delivery == .received {
            // Both power cycles were taken before the first republishing began, which restored
            // the database: the second has nothing to do.
            #expect(radio.servicesAdded == 2 * hosted)
        }
    }

    @Test("the radio goes off and on again as a republishing finishes: the actors are published again after it",
          .timeLimit(.minutes(1)), arguments: EventDelivery.allCases)
    func cycleDuringRepublishing(delivery: EventDelivery) async throws {
        let (pair, radio, sensor) = try await Self.hostedSensor(delivery)
        let (bus, manager) = (pair.bus, pair.peripheralManager)
        // Once the first republishing advertised, and before it counts the database restored,
        // the radio cycles again: what it published is gone.
        radio.afterAdvertising.withLock { hook in
            hook = {
                bus.setState(.poweredOff, of: manager)
                bus.setState(.poweredOn, of: manager)
            }
        }
        bus.setState(.poweredOff, of: manager)
        bus.setState(.poweredOn, of: manager)
        try await Self.expectFoundAndCalled(sensor, from: pair)
    }

    @Test("a power cycle reported after the radio was back and republished to: what was published is replaced, not doubled",
          .timeLimit(.minutes(1)), arguments: EventDelivery.allCases)
    func lateCycle(delivery: EventDelivery) async throws {
        let (pair, radio, sensor) = try await Self.hostedSensor(delivery)
        var additions = radio.additions.makeAsyncIterator()
        // The radio goes off and on twice; the host hears of the first cycle only, and
        // republishes onto the radio that is already back from the second.
        radio.hold()
        for state in [ManagerState.poweredOff, .poweredOn, .poweredOff, .poweredOn] {
            pair.bus.setState(state, of: pair.peripheralManager)
        }
        var powerOns = 0
        for await event in radio.heldBack {
            if case .stateChanged(.poweredOn) = event { powerOns += 1 }
            if powerOns == 2 { break }
        }
        // The first cycle's events: a republishing begins, and publishes.
        let published = radio.servicesAdded
        radio.releaseThroughPowerOn()
        while radio.servicesAdded == published { _ = await additions.next() }
        // Now the second cycle: by the radio's account nothing was lost since that publishing.
        radio.release()
        try await Self.expectFoundAndCalled(sensor, from: pair)
        #expect(try await Self.sensorServicesPublished(on: pair.bus) == 1)
    }

    /// A pair taking its events by `delivery`, hosting a sensor the central has called.
    static func hostedSensor(_ delivery: EventDelivery) async throws -> (ConnectedPair, RecordingPeripheral, StreamingSensorActor) {
        let (pair, radio) = delivery.pair()
        let sensor = try await pair.host(StreamingSensorActor.self) { StreamingSensorActor(actorSystem: $0) }
        _ = try await sensor.produced()
        return (pair, radio, sensor)
    }

    /// A new central finds the sensor by scanning (it is advertised) and calls it.
    static func expectFoundAndCalled(_ sensor: StreamingSensorActor, from pair: ConnectedPair) async throws {
        let found = try await pair.makeCentral().discover(StreamingSensorActor.self, timeout: .seconds(5), count: 1)
        #expect(found.map(\.id) == [sensor.id])
        #expect(try await found.first?.produced() ?? -1 >= 0)
    }

    /// How many times the peripheral advertising the sensor's service publishes that service,
    /// as a raw central discovers them.
    static func sensorServicesPublished(on bus: EmulatorBus) async throws -> Int {
        let uuid = ActorServiceLayout.serviceUUID(for: StreamingSensorActor.self)
        let raw = EmulatedCentralManager(bus: bus)
        var scan = try await raw.scan(ScanOptions(services: [uuid])).makeAsyncIterator()
        let advertiser = try #require(try await scan.next()).peripheral
        raw.stopScanning()
        try await raw.connect(advertiser)
        return try await raw.discoverServices(nil, on: advertiser).filter { $0.uuid == uuid }.count
    }
}
