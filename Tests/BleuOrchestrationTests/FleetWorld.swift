import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuOrchestration

enum FleetUUID {
    static let service = BluetoothUUID(string: "8E7F0001-5B4C-4E2A-9C1D-0A1B2C3D4E5F")!
    static let stream = BluetoothUUID(string: "8E7F0002-5B4C-4E2A-9C1D-0A1B2C3D4E5F")!
    static let inbox = BluetoothUUID(string: "8E7F0003-5B4C-4E2A-9C1D-0A1B2C3D4E5F")!

    static let profile = DeviceProfile(service: service, subscriptions: [stream], writeCharacteristic: inbox)
}

/// A bus with `count` peripherals hosting the fleet service, and a central that heard them
/// all. Every peripheral's application records the writes and subscriptions it sees.
struct FleetWorld: Sendable {
    struct Record: Sendable {
        var writes: [Data] = []
        var subscriptions = 0
    }

    /// How the peripherals' applications answer writes that need a response.
    struct Responses: Sendable {
        /// Answer this many more with an ATT error (a protocol error at the central).
        var failNext = 0
        /// Hold every answer back until ``FleetWorld/releaseResponses()``.
        var hold = false
        var held: [(EmulatedPeripheralManager, WriteRequests)] = []
    }

    let bus: EmulatorBus
    let clock: ManualClock
    let central: EmulatedCentralManager
    let peripherals: [EmulatedPeripheralManager]
    let characteristics: [PublishedCharacteristic]
    /// The identifiers as the central knows the peripherals, in peripheral order.
    let ids: [UUID]
    let records: Locked<[Int: Record]>
    let responses: Locked<Responses>
    let apps: [Task<Void, Never>]

    /// - Parameter deviceIdentifier: the central's device (see `EmulatedCentralManager.Options`):
    ///   another central with the same one knows the peripherals by the same identifiers.
    static func make(count: Int, configuration: EmulatorConfiguration = .instant,
                     withoutResponse: @Sendable (Int) -> Bool = { _ in true },
                     restoreIdentifier: String? = nil, deviceIdentifier: String? = nil) async throws -> FleetWorld {
        let clock = ManualClock()
        var configuration = configuration
        configuration.maximumConnectionsPerCentral = max(configuration.maximumConnectionsPerCentral, count + 4)
        let bus = EmulatorBus(configuration: configuration, clock: clock)
        let records = Locked([Int: Record]())
        let responses = Locked(Responses())
        var peripherals: [EmulatedPeripheralManager] = []
        var characteristics: [PublishedCharacteristic] = []
        var apps: [Task<Void, Never>] = []
        for index in 0..<count {
            let peripheral = EmulatedPeripheralManager(bus: bus)
            let events = peripheral.events()
            apps.append(Task { [weak peripheral] in
                for await event in events {
                    guard let peripheral else { return }
                    switch event {
                    case .writeRequests(let requests):
                        records.withLock { $0[index, default: Record()].writes += requests.requests.map(\.value) }
                        guard requests.needsResponse else { break }
                        let answer = responses.withLock { policy -> Result<Void, ATTError>? in
                            if policy.hold {
                                policy.held.append((peripheral, requests))
                                return nil
                            }
                            guard policy.failNext > 0 else { return .success(()) }
                            policy.failNext -= 1
                            return .failure(.unlikelyError)
                        }
                        if let answer { await peripheral.respond(to: requests, with: answer) }
                    case .subscribed:
                        records.withLock { $0[index, default: Record()].subscriptions += 1 }
                    default:
                        break
                    }
                }
            })
            var writeProperties: CharacteristicProperties = [.write]
            if withoutResponse(index) { writeProperties.insert(.writeWithoutResponse) }
            let service = try await peripheral.add(ServiceDefinition(uuid: FleetUUID.service, characteristics: [
                CharacteristicDefinition(uuid: FleetUUID.stream, properties: [.notify], permissions: .readable),
                CharacteristicDefinition(uuid: FleetUUID.inbox, properties: writeProperties, permissions: .writeable),
            ]))
            try await peripheral.startAdvertising(AdvertisingData(localName: "F\(index)", serviceUUIDs: [FleetUUID.service]))
            peripherals.append(peripheral)
            characteristics.append(service.characteristic(FleetUUID.stream)!)
        }
        let central = EmulatedCentralManager(bus: bus, restoreIdentifier: restoreIdentifier,
                                             options: .init(deviceIdentifier: deviceIdentifier))
        var found: [String: UUID] = [:]
        let scan = try await central.scan(ScanOptions(services: [FleetUUID.service]))
        // On the realistic link advertisements come at advertising intervals of the manual clock.
        let ticker = configuration.timing == .instant ? nil : Task {
            while !Task.isCancelled {
                clock.advance(by: configuration.advertisingInterval)
                await Task.yield()
            }
        }
        for try await advertisement in scan {
            if let name = advertisement.localName { found[name] = advertisement.peripheral }
            if found.count == count { break }
        }
        ticker?.cancel()
        await central.stopScan()
        let ids = (0..<count).map { found["F\($0)"]! }
        return FleetWorld(bus: bus, clock: clock, central: central, peripherals: peripherals, characteristics: characteristics,
                          ids: ids, records: records, responses: responses, apps: apps)
    }

    /// Answers every write held back, and stops holding.
    func releaseResponses() async {
        let held = responses.withLock { policy in
            policy.hold = false
            defer { policy.held.removeAll() }
            return policy.held
        }
        for (peripheral, requests) in held { await peripheral.respond(to: requests, with: .success(())) }
    }

    /// A number that changes whenever a peripheral's application sees something.
    var progress: Int { records.withLock { $0.values.reduce(0) { $0 &+ $1.writes.count &* 31 &+ $1.subscriptions } } }

    func record(_ index: Int) -> Record { records.withLock { $0[index] ?? Record() } }

    /// Peripheral `index`'s record once its application has seen `subscriptions` subscriptions,
    /// or after 30 s of real time. The central is ready when the CCCD write is answered; the
    /// peripheral's application task takes its `.subscribed` event on its own time, which on a
    /// loaded machine can be later.
    func record(_ index: Int, afterSubscriptions subscriptions: Int) async -> Record {
        let wall = ContinuousClock()
        let deadline = wall.now.advanced(by: .seconds(30))
        while wall.now < deadline {
            let current = record(index)
            if current.subscriptions >= subscriptions { return current }
            await Task.yield()
        }
        return record(index)
    }

    func end() { for app in apps { app.cancel() } }
}

/// Lets the engine run in virtual time until `predicate` holds: the manual clock moves to the
/// next timer only when nothing has happened for a while (no lifecycle event, nothing new at the
/// peripherals), so virtual time passes only while the engine waits on it. Fails after `rounds` idle
/// rounds without the predicate holding, which catches a deadlock without waiting in real time.
/// ``settle(_:_:rounds:busyPatience:maximumStep:record:sourceLocation:until:)`` without recording an issue when
/// the predicate never holds.
func settleQuietly(_ fleet: FleetOrchestrator, _ world: FleetWorld, rounds: Int, maximumStep: Duration? = nil,
                   until predicate: @Sendable ([UUID: DeviceState]) -> Bool) async -> Bool {
    await settle(fleet, world, rounds: rounds, maximumStep: maximumStep, record: false, until: predicate)
}

@discardableResult
func settle(_ fleet: FleetOrchestrator, _ world: FleetWorld, rounds: Int = 4000, busyPatience: Int = 400,
            maximumStep: Duration? = nil, record: Bool = true, sourceLocation: SourceLocation = #_sourceLocation,
            until predicate: @Sendable ([UUID: DeviceState]) -> Bool) async -> Bool {
    var lastMark = -1
    var quiet = 0
    // Quiet is counted in rounds and in real time: on a loaded machine a task woken by the last
    // step (a link loss reported at its supervision timeout, say) may not get a thread for a
    // while, and moving the clock on before it ran would stamp its event at the wrong time.
    let wall = ContinuousClock()
    var lastChange = wall.now
    let minimumQuiet = Duration.milliseconds(2)
    for _ in 0..<rounds * 20 {
        if predicate(fleet.states) { return true }
        for _ in 0..<4 { await Task.yield() }
        let mark = world.progress &+ progress(fleet)
        if mark != lastMark {
            lastMark = mark
            quiet = 0
            lastChange = wall.now
            continue
        }
        quiet += 1
        // A device resolving, connecting or discovering normally waits on the radio, not on the
        // clock: give it much longer before deciding that only a timer can move things on.
        let busy = fleet.states.values.contains { $0 == .resolving || $0 == .connecting || $0 == .discovering }
        guard wall.now - lastChange >= (busy ? minimumQuiet * 10 : minimumQuiet) else { continue }
        // Every device waiting on a timer must have its timer asleep on the clock before time moves
        // (a timer task that has not started yet would otherwise see its deadline already passed).
        let timed = fleet.states.values.filter { state in
            switch state {
            case .backingOff, .discovering, .suspended(.circuitOpen), .suspended(.budgetExhausted): true
            default: false
            }
        }.count
        guard world.clock.sleeperCount >= timed || quiet > 2000 else { continue }
        // A backoff whose deadline has come must be handled before time moves on again — however
        // long its timer task takes to run on a loaded machine (moving on would stretch the
        // backoff by whatever the next deadline is).
        let now = world.clock.now.offset
        let overdue = fleet.states.values.contains { state in
            if case .backingOff(_, let deadline) = state { return deadline <= now }
            return false
        }
        guard !overdue else { continue }
        if quiet >= (busy ? busyPatience : 20), var next = world.clock.nextDeadline {
            // Never past a backoff deadline the machines announced: its timer task may not be
            // asleep on the clock yet, and would then wake only at whatever comes next.
            let announced = fleet.states.values.compactMap { state -> Duration? in
                if case .backingOff(_, let deadline) = state { return deadline }
                return nil
            }.min()
            if let announced, announced > now, announced < next.offset { next = ManualClock.Instant(offset: announced) }
            // With a maximum step, never further: work that has not put its next timer or packet on
            // the clock yet (an event still on its way to a device on a loaded machine, which no
            // state shows) is then late by at most that much, never by a far timeout.
            if let maximumStep, next.offset > now + maximumStep { next = ManualClock.Instant(offset: now + maximumStep) }
            world.clock.advance(to: next)
            quiet = 0
            lastChange = wall.now
        }
    }
    guard record else { return false }
    Issue.record("the fleet did not settle: \(fleet.states.map { "\($0.key.uuidString.prefix(4)): \($0.value)" }.sorted())",
                 sourceLocation: sourceLocation)
    return false
}

/// A number that changes whenever a device changes state.
private func progress(_ fleet: FleetOrchestrator) -> Int {
    fleet.states.values.map { $0.description.hashValue }.reduce(0, &+)
}

func allReady(_ ids: [UUID]) -> @Sendable ([UUID: DeviceState]) -> Bool {
    { states in ids.allSatisfy { states[$0] == .ready } }
}
