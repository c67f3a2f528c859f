import BleuCore
import BleuEmulator
import Foundation
import Logging
import MetricsTestKit
import Testing
@testable import BleuOrchestration

/// Pinned devices persist and return to ready after a restart with
/// restoration; metrics, structured logs and the lifecycle stream.
@Suite("Restoration and observability", .timeLimit(.minutes(1)))
struct RestorationAndObservabilityTests {
    @Test("the JSON store round-trips pinned identifiers and starts empty")
    func jsonStore() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bleu-fleet-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        let store = JSONFilePinnedDeviceStore(url: url)
        #expect(try store.load().isEmpty)
        let ids: Set = [UUID(), UUID(), UUID()]
        try store.save(ids)
        #expect(try JSONFilePinnedDeviceStore(url: url).load() == ids)
        try Data("not json".utf8).write(to: url)
        #expect(throws: DecodingError.self) { try store.load() }
    }

    @Test("the usual JSON store lives in the user's Application Support directory, one folder per name")
    func applicationSupportStore() throws {
        let store = try JSONFilePinnedDeviceStore.applicationSupport(named: "BleuTestFleet")
        #expect(store.url.lastPathComponent == "pinned-devices.json")
        #expect(store.url.deletingLastPathComponent().lastPathComponent == "BleuTestFleet")
        let base = try FileManager.default.url(for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: false)
        #expect(store.url.path.hasPrefix(base.path))
    }

    @Test("with a restore identifier and no restoration, start waits the restoration timeout, then connects anew")
    func restorationTimeout() async throws {
        // A restore identifier this bus never saw: the central restores nothing.
        let world = try await FleetWorld.make(count: 2, restoreIdentifier: "new-app")
        defer { world.end() }
        let configuration = FleetConfiguration(profile: FleetUUID.profile, pool: PoolPolicy(maximumConcurrency: 4),
                                               backoff: BackoffPolicy(discoveryTimeout: .seconds(60)))
        let fleet = FleetOrchestrator(central: world.central, configuration: configuration, clock: world.clock, seed: 12,
                                      store: InMemoryPinnedDeviceStore(), restorationTimeout: .seconds(5))
        let events = fleet.events()
        for id in world.ids { await fleet.pin(id) }
        await fleet.start()
        #expect(world.ids.allSatisfy { fleet.state(of: $0) == .suspended(.restoring) }, "nothing is attempted while restoring")
        #expect(await settle(fleet, world, until: allReady(world.ids)))
        var resumed: [UUID: Duration] = [:]
        for await event in events {
            if case .stateChanged(let id, .suspended(.restoring), .resolving, let at) = event { resumed[id] = at }
            if resumed.count == world.ids.count { break }
        }
        #expect(resumed.values.allSatisfy { $0 == .seconds(5) }, "attempts began at the restoration timeout: \(resumed)")
        #expect(await fleet.radioStatistics.attempts == world.ids.count)
        await fleet.shutdown()
    }

    @Test("after a restart with restoration, pinned devices return to ready without user action or new connections")
    func restart() async throws {
        let world = try await FleetWorld.make(count: 4, restoreIdentifier: "fleet-app")
        defer { world.end() }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bleu-fleet-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        let configuration = FleetConfiguration(profile: FleetUUID.profile, pool: PoolPolicy(maximumConcurrency: 8),
                                               backoff: BackoffPolicy(discoveryTimeout: .seconds(60)))
        let first = FleetOrchestrator(central: world.central, configuration: configuration, clock: world.clock, seed: 5,
                                      store: JSONFilePinnedDeviceStore(url: url))
        for id in world.ids { await first.pin(id) }
        await first.start()
        #expect(await settle(first, world, until: allReady(world.ids)))
        // The app goes away (no stop: nothing runs when the system ends an app); the system keeps
        // the links for the restore identifier.
        await first.endTasks()

        let central = EmulatedCentralManager(bus: world.bus, restoreIdentifier: "fleet-app")
        let second = FleetOrchestrator(central: central, configuration: configuration, clock: world.clock, seed: 6,
                                       store: JSONFilePinnedDeviceStore(url: url))
        await second.start()  // no pin: the store brings them back
        #expect(await second.pinnedDevices == Set(world.ids))
        #expect(await settle(second, world, until: allReady(world.ids)))
        #expect(await second.radioStatistics.attempts == 0, "the restored links are taken over, not reconnected")
        for index in world.ids.indices { #expect(await world.record(index, afterSubscriptions: 1).subscriptions >= 1) }
        for id in world.ids { #expect(await central.isConnected(id)) }
        await second.shutdown()
    }

    @Test("metrics: state, time in state, reconnects, next deadline, queue depth, writes by type, errors, connect-to-ready")
    func metrics() async throws {
        let world = try await FleetWorld.make(count: 1)
        defer { world.end() }
        let metrics = TestMetrics()
        let fleet = FleetOrchestrator(central: world.central, configuration: FleetConfiguration(profile: FleetUUID.profile),
                                      clock: world.clock, seed: 8, metrics: metrics, store: InMemoryPinnedDeviceStore())
        let id = world.ids[0]
        await fleet.pin(id)
        for index in 0..<3 { try fleet.send(Data(repeating: UInt8(index), count: 400), to: id, qos: .bulk) }
        let session = fleet.sessionID
        let dimensions = [("device", id.uuidString), ("session", session)]
        #expect(try metrics.expectGauge("bleu_fleet_queue_depth", dimensions + [("qos", "bulk")]).lastValue == 3)
        await fleet.start()
        #expect(await settle(fleet, world) { _ in fleet.writeCounts(of: id).messages == 3 })
        world.bus.loseLink(between: world.central, and: id)
        #expect(await settle(fleet, world) { $0[id]?.name == "backingOff" })
        #expect(await settle(fleet, world, until: allReady([id])))
        #expect(try metrics.expectGauge("bleu_fleet_state", dimensions).lastValue == 4)
        #expect(try metrics.expectGauge("bleu_fleet_queue_depth", dimensions + [("qos", "bulk")]).lastValue == 0)
        #expect(try metrics.expectCounter("bleu_fleet_reconnect_attempts", dimensions).totalValue == 1)
        #expect(try metrics.expectGauge("bleu_fleet_next_attempt_seconds", dimensions).values == [0.02, 0],
                "the next attempt's delay while backing off, cleared when the backoff ended")
        #expect(try metrics.expectCounter("bleu_fleet_errors", dimensions + [("class", "transientLinkLoss")]).totalValue == 1)
        #expect(try metrics.expectCounter("bleu_fleet_writes", dimensions + [("type", "with_response")]).totalValue == 3)
        #expect(try metrics.expectCounter("bleu_fleet_writes", dimensions + [("type", "without_response")]).totalValue > 0)
        #expect(try metrics.expectTimer("bleu_fleet_connect_to_ready", dimensions).values.count == 2)
        #expect(try metrics.expectTimer("bleu_fleet_time_in_state", dimensions + [("state", "backingOff")]).lastValue
                == Duration.milliseconds(20).nanoseconds)
        await fleet.shutdown()
    }

    @Test("logs carry the device and the session; the lifecycle stream reports every transition in order")
    func logsAndLifecycle() async throws {
        let world = try await FleetWorld.make(count: 1)
        defer { world.end() }
        let records = CapturedLogs()
        var logger = Logger(label: "test.fleet") { _ in CapturingLogHandler(records: records) }
        logger.logLevel = .debug
        let fleet = FleetOrchestrator(central: world.central, configuration: FleetConfiguration(profile: FleetUUID.profile),
                                      clock: world.clock, seed: 11, logger: logger, store: InMemoryPinnedDeviceStore())
        let id = world.ids[0]
        let events = fleet.events()
        await fleet.pin(id)
        await fleet.start()
        #expect(await settle(fleet, world, until: allReady([id])))
        await fleet.shutdown()
        var path: [String] = []
        for await event in events {
            if case .stateChanged(id, _, let to, _) = event { path.append(to.name) }
        }
        #expect(path == ["resolving", "connecting", "discovering", "ready", "suspended"])
        let ready = records.all.filter { $0.message == "device ready" }
        #expect(ready.count == 1)
        #expect(ready.first?.metadata["device"] == "\(id)")
        #expect(ready.first?.metadata["session"] == "\(fleet.sessionID)")
    }
}

final class CapturedLogs: Sendable {
    struct Record: Sendable {
        var message: String
        var metadata: [String: String]
    }

    private let records = Locked([Record]())
    var all: [Record] { records.withLock { $0 } }
    func append(_ record: Record) { records.withLock { $0.append(record) } }
}

struct CapturingLogHandler: LogHandler {
    let records: CapturedLogs
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        records.append(.init(message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
    }
}
