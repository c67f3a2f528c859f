import BleuCore
import Foundation
import Testing
@testable import BleuEmulator

/// Faults reproducible from a seed.
@Suite("Faults by seed")
struct FaultTests {
    /// The seed for this run: `BLEU_EMULATOR_SEED` from the environment to replay one, else fixed.
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["BLEU_EMULATOR_SEED"].flatMap(UInt64.init) ?? 0xB1E0_5EED
    }

    static func configuration(seed: UInt64) -> EmulatorConfiguration {
        var configuration = EmulatorConfiguration.instant
        configuration.faults = FaultRates(connectionFailure: 0.3, attError: 0.2, injectedError: .unlikelyError, linkLoss: 0.02)
        configuration.seed = seed
        return configuration
    }

    /// A fixed script of connections and reads; returns what happened to each step.
    static func script(seed: UInt64, configuration: EmulatorConfiguration? = nil, rounds: Int = 30) async throws
        -> (outcomes: [String], faults: [String]) {
        let bus = EmulatorBus(configuration: configuration ?? Self.configuration(seed: seed))
        return try await script(on: bus, rounds: rounds)
    }

    static func script(on bus: EmulatorBus, rounds: Int) async throws -> (outcomes: [String], faults: [String]) {
        let peripheral = EmulatedPeripheralManager(bus: bus)
        let store = ValueStore()
        let app = Fixture.serveRequests(of: peripheral, from: store)
        defer { app.cancel() }
        _ = try await peripheral.add(.test)
        try await peripheral.startAdvertising(AdvertisingData(localName: "F"))
        let central = EmulatedCentralManager(bus: bus)
        let id = try await central.discover(name: "F")
        var outcomes: [String] = []
        var characteristic: RemoteCharacteristic?
        for _ in 0..<rounds {
            do {
                try await central.connect(id)
                outcomes.append("connected")
            } catch {
                outcomes.append("connect: \(error)")
                continue
            }
            do {
                if characteristic == nil { characteristic = try await central.discoverTestService(on: id)[TestUUID.value] }
                for _ in 0..<5 {
                    _ = try await central.read(characteristic!)
                    outcomes.append("read")
                }
            } catch {
                outcomes.append("failed: \(error)")
            }
            await central.cancelConnection(id)
        }
        let faults = bus.trace.filter { $0.kind == .fault }.map(\.detail)
        return (outcomes, faults)
    }

    /// Link losses injected and the draws they came from in a trace: the link loss fault is drawn
    /// once per PDU sent on a live link, so every PDU delivered was a draw, and so was every loss.
    static func linkLosses(in trace: [LinkTraceEvent]) -> (losses: Int, draws: Int) {
        let losses = trace.filter { $0.kind == .fault && $0.detail.hasPrefix("link loss injected") }.count
        let linkKinds: Set<LinkTraceEvent.Kind> = [.att, .smp, .l2capSignaling, .l2capData, .linkControl]
        return (losses, trace.filter { linkKinds.contains($0.kind) }.count + losses)
    }

    /// Whether `losses` of `draws` is a plausible outcome of the rate `p`: within four standard
    /// deviations of the binomial mean (a true rate fails this for about one seed in 15,000).
    static func plausible(losses: Int, draws: Int, rate p: Double) -> Bool {
        let n = Double(draws)
        return abs(Double(losses) - n * p) <= 4 * (n * p * (1 - p)).squareRoot()
    }

    @Test("the same seed gives the same faults in the same order")
    func replay() async throws {
        let seed = Self.seed
        print("FaultTests seed: \(seed) (rerun with BLEU_EMULATOR_SEED=\(seed))")
        let bus = EmulatorBus(configuration: Self.configuration(seed: seed))
        let first = try await Self.script(on: bus, rounds: 60)
        let second = try await Self.script(seed: seed, rounds: 60)
        #expect(first.outcomes == second.outcomes)
        #expect(first.faults == second.faults)
        #expect(first.faults.contains { $0.contains("failed to be established") })
        #expect(first.faults.contains { $0.contains("ATT error") })
        #expect(first.outcomes.contains { $0.contains("Unlikely Error") })
        // The link loss fault fired, at about its configured rate per PDU.
        let rate = bus.configuration.faults.linkLoss
        let (losses, draws) = Self.linkLosses(in: bus.trace)
        print("FaultTests.replay: \(losses) link losses in \(draws) PDUs, rate \(rate)")
        #expect(losses >= 1, "no link loss fired in \(draws) PDUs at rate \(rate)")
        #expect(first.outcomes.contains { $0.contains("supervision timeout") }, "a lost link fails the operation in progress")
        #expect(Self.plausible(losses: losses, draws: draws, rate: rate), "\(losses) losses in \(draws) PDUs at rate \(rate)")
        let other = try await Self.script(seed: seed &+ 1, rounds: 60)
        #expect(other.faults != first.faults, "another seed, other faults")
    }

    @Test("an injected link loss is drawn per PDU at the configured rate")
    func linkLossRate() async throws {
        let seed = Self.seed
        print("FaultTests seed: \(seed) (rerun with BLEU_EMULATOR_SEED=\(seed))")
        var configuration = EmulatorConfiguration.instant
        configuration.seed = seed
        configuration.faults = FaultRates(linkLoss: 0.1)
        configuration.traceCapacity = 100_000
        let fixture = try await Fixture.make(configuration: configuration, connect: false)
        var characteristic: RemoteCharacteristic?
        var attempts = 0
        while Self.linkLosses(in: fixture.bus.trace).losses < 300, attempts < 5_000 {
            attempts += 1
            do {
                try await fixture.central.connect(fixture.peripheralID)
                if characteristic == nil { characteristic = try await fixture.central.discoverTestService(on: fixture.peripheralID)[TestUUID.fixed] }
                while true { _ = try await fixture.central.read(characteristic!) }
            } catch {
                await fixture.central.cancelConnection(fixture.peripheralID)
            }
        }
        let (losses, draws) = Self.linkLosses(in: fixture.bus.trace)
        print("FaultTests.linkLossRate: \(losses) link losses in \(draws) PDUs (\(Double(losses) / Double(draws)), configured 0.1)")
        #expect(losses >= 300)
        #expect(Self.plausible(losses: losses, draws: draws, rate: 0.1), "\(losses) losses in \(draws) PDUs")
    }

    @Test("the .unreliable preset replays too, on the realistic link in virtual time")
    func unreliableReplay() async throws {
        let seed = Self.seed
        print("FaultTests seed: \(seed) (rerun with BLEU_EMULATOR_SEED=\(seed))")
        func run() async throws -> (outcomes: [String], faults: [String]) {
            var configuration = EmulatorConfiguration.unreliable
            configuration.seed = seed
            configuration.faults.linkLoss = 0.01
            let clock = ManualClock()
            let bus = EmulatorBus(configuration: configuration, clock: clock)
            return try await drive(clock) { try await Self.script(on: bus, rounds: 8) }
        }
        let first = try await run()
        let second = try await run()
        #expect(first.faults == second.faults)
        #expect(first.outcomes == second.outcomes)
        #expect(!first.faults.isEmpty)
    }

    @Test("injected faults reach the caller as a real stack reports them")
    func faultKinds() async throws {
        print("FaultTests seed: 1")
        var configuration = EmulatorConfiguration.instant
        configuration.seed = 1
        configuration.faults = FaultRates(connectionFailure: 1)
        let bus = EmulatorBus(configuration: configuration)
        let peripheral = EmulatedPeripheralManager(bus: bus)
        try await peripheral.startAdvertising(AdvertisingData(localName: "X"))
        let central = EmulatedCentralManager(bus: bus)
        let id = try await central.discover(name: "X")
        #expect(await throwsError(.connectionFailed(id, reason: .link(.failedToEstablish))) {
            try await central.connect(id)
        })

        var errors = EmulatorConfiguration.instant
        errors.seed = 1
        errors.faults = FaultRates(attError: 1, injectedError: .insufficientResources)
        let fixture = try await Fixture.make(configuration: errors)
        #expect(await throwsError(.att(.insufficientResources)) { try await fixture.central.read(fixture[TestUUID.value]) })
        #expect(await throwsError(.att(.insufficientResources)) {
            try await fixture.central.write(Data([1]), to: fixture[TestUUID.value], type: .withResponse)
        })
        #expect(fixture.store.batches == 0, "the application never saw the failed requests")
    }

    @Test("an injected link loss is reported to both sides as a supervision timeout")
    func injectedLinkLoss() async throws {
        print("FaultTests seed: 2")
        var configuration = EmulatorConfiguration.instant
        configuration.seed = 2
        let fixture = try await Fixture.make(configuration: configuration)
        var centralEvents = fixture.central.events()
        var peripheralEvents = fixture.peripheral.events()
        fixture.bus.withEngine { engine in
            for link in engine.links.keys { engine.loseLink(link) }
        }
        #expect(await ConnectionTests.centralReason(&centralEvents) == .supervisionTimeout)
        #expect(await ConnectionTests.peripheralReason(&peripheralEvents) == .supervisionTimeout)
    }
}
