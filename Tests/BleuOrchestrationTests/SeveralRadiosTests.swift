import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuOrchestration

/// One fleet on several radios: the choice of a device's radio, and radios that go away.
@Suite("Several radios", .timeLimit(.minutes(1)))
struct SeveralRadiosTests {
    // MARK: The choice, as a pure policy

    static func option(_ radio: Int, rssi: Int?, assigned: Int = 0, slots: Int = 10, attempts: Int = 0,
                       failures: Double = 0) -> RadioChoicePolicy.Option {
        RadioChoicePolicy.Option(radio: radio, rssi: rssi, assigned: assigned, slots: slots, attempts: attempts, failures: failures)
    }

    @Test("the radio that hears the device best is chosen; a radio that only knows it scores as unheard")
    func bestSignal() {
        let policy = RadioChoicePolicy()
        #expect(policy.choose([Self.option(0, rssi: -80), Self.option(1, rssi: -60), Self.option(2, rssi: -70)]) == 1)
        #expect(policy.choose([Self.option(0, rssi: nil), Self.option(1, rssi: -95)]) == 1)
        #expect(policy.choose([Self.option(0, rssi: -70), Self.option(1, rssi: -70)]) == 0, "a tie goes to the radio listed first")
        #expect(policy.choose([]) == nil)
    }

    @Test("a full radio loses to one with room, and is tried when every radio is full; occupancy and attempts under way weigh in dB")
    func slotsAndAttempts() {
        let policy = RadioChoicePolicy()
        // 20 dB better, but no free slot.
        #expect(policy.choose([Self.option(0, rssi: -50, assigned: 4, slots: 4), Self.option(1, rssi: -70, assigned: 3, slots: 4)]) == 1)
        #expect(policy.choose([Self.option(0, rssi: -50, assigned: 4, slots: 4), Self.option(1, rssi: -70, assigned: 4, slots: 4)]) == 0)
        // Heard alike: the emptier radio (occupancy 10 dB at full use).
        #expect(policy.choose([Self.option(0, rssi: -60, assigned: 6), Self.option(1, rssi: -60, assigned: 2)]) == 1)
        // 5 dB better, but two attempts under way (6 dB each).
        #expect(policy.choose([Self.option(0, rssi: -55, attempts: 2), Self.option(1, rssi: -60)]) == 1)
        #expect(policy.score(Self.option(0, rssi: -60, assigned: 5, slots: 10, attempts: 1, failures: 1)) == -60 - 5 - 6 - 12)
    }

    @Test("a device's failures on a radio send it elsewhere, and are forgiven by half every half-life")
    func failuresDecay() {
        let policy = RadioChoicePolicy(failureHalfLife: .seconds(60))
        #expect(policy.choose([Self.option(0, rssi: -60, failures: 1), Self.option(1, rssi: -65)]) == 1)
        #expect(policy.decayedFailures(2, age: .zero) == 2)
        #expect(policy.decayedFailures(2, age: .seconds(60)) == 1)
        #expect(policy.decayedFailures(2, age: .seconds(120)) == 0.5)
        #expect(policy.decayedFailures(0, age: .seconds(5)) == 0)
        let forgiven = policy.decayedFailures(1, age: .seconds(240))  // 1/16: under 1 dB
        #expect(policy.choose([Self.option(0, rssi: -60, failures: forgiven), Self.option(1, rssi: -65)]) == 0)
    }

    // MARK: On the emulator

    /// The world's peripherals under fleet identifiers of their own (from their advertised
    /// names), reached through the world's central ("A") and `extra` more radios on its bus.
    struct Radios {
        let world: FleetWorld
        let fleet: FleetOrchestrator
        let centrals: [String: EmulatedCentralManager]
        let ids: [UUID]

        /// - Parameter louder: per radio name, how many dB louder its scans hear every device.
        static func make(devices: Int, radios: Int, slots: Int, louder: [String: Int] = [:],
                         choice: RadioChoicePolicy = RadioChoicePolicy()) async throws -> Radios {
            let world = try await FleetWorld.make(count: devices)
            var centrals = ["A": world.central]
            var list = [FleetRadio(name: "A", central: world.central, connectionSlots: slots)]
            for index in 1..<radios {
                let name = String(UnicodeScalar(UInt8(65 + index)))
                let central = EmulatedCentralManager(bus: world.bus)
                centrals[name] = central
                let heard: any CentralManager = louder[name].map { RecordingCentral(central, rssiOffset: $0) } ?? central
                list.append(FleetRadio(name: name, central: heard, connectionSlots: slots))
            }
            let ids = (0..<devices).map { UUID(uuidString: String(format: "F1EE7000-0000-0000-0000-%012d", $0))! }
            let byName = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ("F\($0.offset)", $0.element) })
            let configuration = FleetConfiguration(profile: FleetUUID.profile, pool: PoolPolicy(maximumConcurrency: 64),
                                                   connectTimeout: .seconds(5), backoff: BackoffPolicy(discoveryTimeout: .seconds(60)),
                                                   radioChoice: choice)
            let fleet = FleetOrchestrator(radios: list, identify: { $0.localName.flatMap { byName[$0] } },
                                          configuration: configuration, clock: world.clock, seed: 31, store: InMemoryPinnedDeviceStore())
            return Radios(world: world, fleet: fleet, centrals: centrals, ids: ids)
        }

        /// A fleet of `devices` pinned and started, every device ready.
        static func ready(devices: Int, radios: Int, slots: Int, louder: [String: Int] = [:],
                          choice: RadioChoicePolicy = RadioChoicePolicy()) async throws -> Radios {
            let setup = try await make(devices: devices, radios: radios, slots: slots, louder: louder, choice: choice)
            for id in setup.ids { await setup.fleet.pin(id) }
            await setup.fleet.start()
            #expect(await settle(setup.fleet, setup.world, until: allReady(setup.ids)))
            return setup
        }

        /// Whether the device's link is up on the radio it is assigned to.
        func connectedOnItsRadio(_ id: UUID) async throws -> Bool {
            let link = try fleet.radios.link(of: id)
            return await link.central.isConnected(link.peripheral) && fleet.radio(of: id) == link.radio
        }
    }

    @Test("devices heard alike spread over the radios by free slots; messages go through each device's own radio")
    func spread() async throws {
        let setup = try await Radios.ready(devices: 6, radios: 2, slots: 3)
        let (world, fleet) = (setup.world, setup.fleet)
        defer { world.end() }
        #expect(fleet.radioOccupancy == ["A": 3, "B": 3])
        for id in setup.ids { #expect(try await setup.connectedOnItsRadio(id)) }
        for (index, id) in setup.ids.enumerated() { try fleet.send(Data("m\(index)".utf8), to: id) }
        #expect(await settle(fleet, world) { _ in setup.ids.allSatisfy { fleet.writeCounts(of: $0).messages == 1 } })
        for index in setup.ids.indices { #expect(!world.record(index).writes.isEmpty, "device \(index) got its message") }
        await fleet.shutdown()
    }

    @Test("a radio that powers off hands its devices to the other; they come back ready there")
    func radioPowersOff() async throws {
        let setup = try await Radios.ready(devices: 4, radios: 2, slots: 4)
        let (world, fleet) = (setup.world, setup.fleet)
        defer { world.end() }
        // Heard alike (the emulator's RSSI noise is at most 6 dB between radios), a radio holding
        // three of its four slots loses by 7.5 dB: each takes at least one device.
        #expect(fleet.radioOccupancy["A"]! > 0 && fleet.radioOccupancy["B"]! > 0, "spread while both have room")
        world.bus.setState(.poweredOff, of: setup.centrals["B"]!)
        #expect(await settle(fleet, world) { states in
            setup.ids.allSatisfy { states[$0] == .ready && fleet.radio(of: $0) == "A" }
        })
        #expect(fleet.radioOccupancy == ["A": 4, "B": 0])
        for id in setup.ids { #expect(try await setup.connectedOnItsRadio(id)) }
        await fleet.shutdown()
    }

    @Test("a removed radio's links are cancelled and its devices connect through the others")
    func radioRemoved() async throws {
        let setup = try await Radios.ready(devices: 4, radios: 3, slots: 4)
        let (world, fleet) = (setup.world, setup.fleet)
        defer { world.end() }
        let onB = try setup.ids.filter { fleet.radio(of: $0) == "B" }.map { try fleet.radios.link(of: $0).peripheral }
        #expect(!onB.isEmpty, "B took some of the devices")
        #expect(await fleet.removeRadio(named: "B"))
        #expect(await !fleet.removeRadio(named: "B"), "already gone")
        #expect(await settle(fleet, world) { states in
            setup.ids.allSatisfy { states[$0] == .ready && fleet.radio(of: $0) != "B" }
        })
        for peripheral in onB { #expect(await !setup.centrals["B"]!.isConnected(peripheral), "B's link was cancelled") }
        #expect(fleet.radioOccupancy["B"] == nil)
        for id in setup.ids { #expect(try await setup.connectedOnItsRadio(id)) }
        await fleet.shutdown()
    }

    @Test("a device whose link was lost on one radio reconnects through the other (its failure weighs there)")
    func failureMovesDevice() async throws {
        let setup = try await Radios.ready(devices: 1, radios: 2, slots: 4)
        let (world, fleet) = (setup.world, setup.fleet)
        defer { world.end() }
        let id = setup.ids[0]
        // The failure's 12 dB outweigh the emulator's RSSI noise (at most 6 dB between radios).
        let first = try #require(fleet.radio(of: id))
        let link = try fleet.radios.link(of: id)
        world.bus.loseLink(between: setup.centrals[first]!, and: link.peripheral)
        #expect(await settle(fleet, world) { states in states[id] == .ready && fleet.radio(of: id) != first })
        #expect(try await setup.connectedOnItsRadio(id))
        await fleet.shutdown()
    }

    @Test("a link the engine gives up itself (reconnect) is not held against its radio: the device comes back on it")
    func reconnectDoesNotBlame() async throws {
        let setup = try await Radios.ready(devices: 1, radios: 2, slots: 4)
        let (world, fleet) = (setup.world, setup.fleet)
        defer { world.end() }
        let id = setup.ids[0]
        let first = try #require(fleet.radio(of: id))
        let old = try fleet.radios.link(of: id)
        await fleet.reconnect(id)
        #expect(await settle(fleet, world) { states in states[id] == .ready })
        #expect(fleet.radio(of: id) == first)
        #expect(try fleet.radios.link(of: id).radio == old.radio)
        await fleet.shutdown()
    }

    @Test("the radio that hears the devices best takes them, until it is short of slots")
    func hearsBest() async throws {
        // B hears every device 20 dB louder than A, and has room for two.
        let setup = try await Radios.ready(devices: 3, radios: 2, slots: 2, louder: ["B": 20])
        let (world, fleet) = (setup.world, setup.fleet)
        defer { world.end() }
        #expect(fleet.radioOccupancy == ["A": 1, "B": 2], "B first; the third device goes to A when B is full")
        for id in setup.ids { #expect(try await setup.connectedOnItsRadio(id)) }
        await fleet.shutdown()
    }

    @Test("a radio added at run time takes the devices when the others are off; a second radio of that name is refused")
    func radioAdded() async throws {
        let setup = try await Radios.make(devices: 3, radios: 1, slots: 4)
        let (world, fleet) = (setup.world, setup.fleet)
        defer { world.end() }
        world.bus.setState(.poweredOff, of: world.central)
        for id in setup.ids { await fleet.pin(id) }
        await fleet.start()
        #expect(await settle(fleet, world) { states in setup.ids.allSatisfy { states[$0] == .suspended(.radioUnavailable(.poweredOff)) } })
        let central = EmulatedCentralManager(bus: world.bus)
        #expect(await fleet.addRadio(FleetRadio(name: "B", central: central, connectionSlots: 4)))
        #expect(await !fleet.addRadio(FleetRadio(name: "B", central: central, connectionSlots: 4)), "names are unique")
        #expect(await settle(fleet, world) { states in setup.ids.allSatisfy { states[$0] == .ready && fleet.radio(of: $0) == "B" } })
        for id in setup.ids { #expect(try await setup.connectedOnItsRadio(id)) }
        await fleet.shutdown()
    }

    /// A central whose first `state` read is held, once read, until the test lets it go: what
    /// it returns may be stale by then.
    final class HeldStateCentral: ForwardingCentralManager {
        let base: any CentralManager
        private let reads = AsyncStream.makeStream(of: Void.self)
        private let held = Locked((taken: false, release: CheckedContinuation<Void, Never>?.none))

        init(_ base: any CentralManager) { self.base = base }

        var state: ManagerState {
            get async {
                let state = await base.state
                guard held.withLock({ held in defer { held.taken = true }; return !held.taken }) else { return state }
                await withCheckedContinuation { continuation in
                    held.withLock { $0.release = continuation }
                    reads.continuation.yield()
                }
                return state
            }
        }

        /// Returns once the first read has taken the state and is held.
        func firstRead() async {
            var iterator = reads.stream.makeAsyncIterator()
            _ = await iterator.next()
        }

        func letGo() {
            held.withLock { held in defer { held.release = nil }; return held.release }?.resume()
        }
    }

    @Test("a radio's state read as it is added does not overwrite a newer one its events brought meanwhile")
    func addedRadioStateNotOverwritten() async throws {
        let setup = try await Radios.make(devices: 2, radios: 1, slots: 4)
        let (world, fleet) = (setup.world, setup.fleet)
        defer { world.end() }
        world.bus.setState(.poweredOff, of: world.central)
        for id in setup.ids { await fleet.pin(id) }
        await fleet.start()
        let ids = setup.ids
        let unavailable = { @Sendable (states: [UUID: DeviceState]) in
            ids.allSatisfy { states[$0] == .suspended(.radioUnavailable(.poweredOff)) }
        }
        #expect(await settle(fleet, world, until: unavailable))
        let central = EmulatedCentralManager(bus: world.bus)
        let held = HeldStateCentral(central)
        async let added = fleet.addRadio(FleetRadio(name: "B", central: held, connectionSlots: 4))
        await held.firstRead()  // the fleet read B powered on…
        world.bus.setState(.poweredOff, of: central)  // …and B powers off before the read is recorded
        held.letGo()
        #expect(await added)
        #expect(await settle(fleet, world, until: unavailable), "no device is sent to a radio that is off")
        #expect(fleet.radios.aggregateState == .poweredOff)
        await fleet.shutdown()
    }

    @Test("a device that failed on the only radio that hears it is not held for a whole scan on the others")
    func failoverListensBriefly() async throws {
        let world = try await FleetWorld.make(count: 1)
        defer { world.end() }
        let deaf = EmulatedCentralManager(bus: EmulatorBus(configuration: .instant, clock: world.clock))
        let id = world.ids[0]
        let configuration = FleetConfiguration(profile: FleetUUID.profile, pool: PoolPolicy(maximumConcurrency: 8),
                                               scanTimeout: .seconds(10), radioChoice: RadioChoicePolicy(listenWindow: .milliseconds(300)))
        let fleet = FleetOrchestrator(radios: [FleetRadio(name: "A", central: world.central, connectionSlots: 4),
                                               FleetRadio(name: "deaf", central: deaf, connectionSlots: 4)],
                                      identify: { $0.localName == "F0" ? id : nil }, configuration: configuration,
                                      clock: world.clock, seed: 9, store: InMemoryPinnedDeviceStore())
        await fleet.pin(id)
        await fleet.start()
        #expect(await settle(fleet, world, until: allReady(world.ids)))
        // Counts the device's ready events: the second is its return after the loss.
        let readies = Locked(0)
        let events = fleet.events()
        let counter = Task {
            for await event in events {
                if case .ready(id, _) = event { readies.withLock { $0 += 1 } }
            }
        }
        defer { counter.cancel() }
        let lost = world.clock.now
        world.bus.loseLink(between: world.central, and: try fleet.radios.link(of: id).peripheral)
        #expect(await settle(fleet, world) { states in states[id] == .ready && readies.withLock { $0 } == 1 })
        #expect(fleet.radio(of: id) == "A")
        let back = lost.duration(to: world.clock.now)
        #expect(back < .seconds(2), "back after \(back): the deaf radio listened for the window, not the 10 s scan")
        await fleet.shutdown()
    }

    @Test("a sighting lifetime of zero still connects: a listen's own sightings count after its window")
    func zeroLifetime() async throws {
        let world = try await FleetWorld.make(count: 2)
        defer { world.end() }
        // A radio that hears nothing (on a bus of its own) keeps the listen window open: virtual
        // time passes between the sighting and the choice.
        let deaf = EmulatedCentralManager(bus: EmulatorBus(configuration: .instant, clock: world.clock))
        let names = Dictionary(uniqueKeysWithValues: world.ids.enumerated().map { ("F\($0.offset)", $0.element) })
        let configuration = FleetConfiguration(profile: FleetUUID.profile, pool: PoolPolicy(maximumConcurrency: 8),
                                               radioChoice: RadioChoicePolicy(sightingLifetime: .zero, listenWindow: .milliseconds(300)))
        let fleet = FleetOrchestrator(radios: [FleetRadio(name: "A", central: world.central, connectionSlots: 4),
                                               FleetRadio(name: "deaf", central: deaf, connectionSlots: 4)],
                                      identify: { $0.localName.flatMap { names[$0] } }, configuration: configuration,
                                      clock: world.clock, seed: 5, store: InMemoryPinnedDeviceStore())
        let start = world.clock.now
        for id in world.ids { await fleet.pin(id) }
        await fleet.start()
        #expect(await settle(fleet, world, until: allReady(world.ids)))
        #expect(start.duration(to: world.clock.now) >= .milliseconds(300), "the window ran")
        for id in world.ids { #expect(fleet.radio(of: id) == "A") }
        await fleet.shutdown()
    }

    @Test("a fleet made on one central takes no second radio: its identifiers are that central's")
    func oneCentralTakesNoOther() async throws {
        let world = try await FleetWorld.make(count: 1)
        defer { world.end() }
        let fleet = FleetOrchestrator(central: world.central, configuration: FleetConfiguration(profile: FleetUUID.profile),
                                      clock: world.clock, seed: 1, store: InMemoryPinnedDeviceStore())
        let other = EmulatedCentralManager(bus: world.bus)
        #expect(await !fleet.addRadio(FleetRadio(name: "B", central: other, connectionSlots: 4)))
        #expect(fleet.radioOccupancy.keys.sorted() == ["central"])
    }
}
