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

@Suite("The peripheral side recovers by itself")
struct PeripheralRecoveryTests {
    @Test("the peripheral's radio goes off and on: its streams end typed at the central, its actors are published and advertised again, and old references call them", .timeLimit(.minutes(1)))
    func radioCycle() async throws {
        let pair = ConnectedPair()
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
}
