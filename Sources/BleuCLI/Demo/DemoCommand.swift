import ArgumentParser
import Bleu
import BleuCore
import BleuEmulator
import BleuEmulatorHub
import BleuHCI
import Foundation
import Logging

/// `bleu demo`: a peripheral and a central talking through distributed actors — both on the
/// emulator's realistic link, or the central on a real controller (`--hci`) calling a
/// `bleu serve` elsewhere.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Distributed actors over BLE: discover, call, stream.",
        discussion: "A peripheral hosts a thermometer and a heart-rate monitor; a central discovers the thermometer by its protocol, calls it, and subscribes to the heart rate. Each step prints its time and the ATT bytes it put on air. By default both run on the emulator; with --hci the central runs on that controller and calls the actors a `bleu serve --hci …` hosts on another; with --hub it runs on a `bleu hub`'s medium and calls the actors a `bleu serve --hub …` hosts in another process. Exits with 0 only when every step did what it shows."
    )

    @Option(help: "How long to follow the heart-rate stream, in seconds.")
    var seconds: Double = 3

    @Flag(help: "Use the emulator's instant preset instead of the realistic one.")
    var instant = false

    @Option(name: .customLong("hci"), help: ArgumentHelp(
        "Run the central on this controller (tcp:HOST:PORT, serial:PATH, hci-socket:N) against a `bleu serve` peer.",
        valueName: "endpoint"))
    var endpoint: String?

    @Option(help: ArgumentHelp("Run the central on a `bleu hub`'s medium (unix:PATH or tcp:HOST:PORT) against a `bleu serve --hub` peer.",
                               valueName: "endpoint"))
    var hub: String?

    @Option(help: "The hub's token, if it has one.")
    var token: String?

    func validate() throws {
        if endpoint != nil, hub != nil { throw ValidationError("give --hci or --hub, not both") }
        if let hub, HubEndpoint(hub) == nil { throw ValidationError("'\(hub)' is not a hub endpoint; use unix:PATH or tcp:HOST:PORT") }
    }

    mutating func run() async throws {
        let quiet = Logger(label: "bleu.demo") { _ in SwiftLogNoOpLogHandler() }
        // The thermometer's error reaches the central as itself only because it is registered.
        let configuration = BLEActorSystem.Configuration(discoveryQuietPeriod: .milliseconds(300), logger: quiet,
                                                         remoteTypes: RemoteTypeRegistry(DemoError.self))
        if let endpoint {
            let traffic = ATTTrafficCounter()
            let radio = try await ControllerOptions.openRadio(endpoint, deviceName: "bleu-demo", attTraffic: traffic)
            let central = BLEActorSystem(centralManager: HCICentralManager(radio: radio), configuration: configuration)
            print("Bleu demo — central on \(endpoint) (Bleu's host stack, address \(await radio.address)); the actors are served by `bleu serve`")
            try await DemoCentral(system: central, reporter: StepReporter(meter: RadioMeter(traffic: traffic)), seconds: seconds).run()
            await radio.stop()
            return
        }
        if let hub {
            let bus = try await EmulatorBus(connectingTo: hub, token: token)
            let central = BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus), configuration: configuration)
            print("Bleu demo — central on hub \(hub) (\(bus.configuration.phy), connection interval \(bus.configuration.connectionInterval)); the actors are served by `bleu serve --hub`")
            try await DemoCentral(system: central, reporter: StepReporter(meter: BusMeter(bus: bus)), seconds: seconds).run()
            return
        }
        let bus = EmulatorBus(configuration: instant ? .instant : .default)
        let peripheral = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus), configuration: configuration)
        let central = BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus), configuration: configuration)
        let reporter = StepReporter(meter: BusMeter(bus: bus))
        print("Bleu demo — emulator preset \(instant ? "instant" : "default") (\(bus.configuration.phy), connection interval \(bus.configuration.connectionInterval), ATT MTU \(bus.configuration.centralMTU))")
        try await reporter.step("peripheral hosts a thermometer and a heart-rate monitor, advertising") {
            try await DemoActors.host(on: peripheral)
            return "service \(ActorServiceLayout.serviceUUID(for: $Thermometer.self))"
        }
        try await DemoCentral(system: central, reporter: reporter, seconds: seconds).run()
    }
}

/// The demo's central side: discovery by protocol, calls, a Codable error, the heart-rate stream.
struct DemoCentral {
    let system: BLEActorSystem
    let reporter: StepReporter
    let seconds: Double

    func run() async throws {
        let central = system
        let reporter = self.reporter
        let seconds = self.seconds
        let found = try await reporter.step("central discovers thermometers by protocol ($Thermometer)") {
            let found = try await central.discover($Thermometer.self, timeout: .seconds(5))
            return (found, "\(found.count) found: \(found.map(\.id.uuidString).joined(separator: ", "))")
        }
        guard let sensor = found.first else { throw ValidationError("the thermometer was not found") }

        _ = try await reporter.step("getTemperature() — first call, interns the method") {
            let value = try await sensor.getTemperature()
            return (value, "\(value) °C")
        }
        _ = try await reporter.step("getTemperature() — again: a 3-byte request envelope") {
            let value = try await sensor.getTemperature()
            return (value, "\(value) °C")
        }
        try await reporter.step("setUpdateInterval(5) — a Void call with an argument") {
            try await sensor.setUpdateInterval(5)
            return "done"
        }
        try await reporter.step("setUpdateInterval(0) — the peripheral throws a Codable error") {
            do {
                try await sensor.setUpdateInterval(0)
                throw CommandFailure("setUpdateInterval(0) succeeded; the thermometer should have refused it")
            } catch let error as DemoError {
                return "caught \(error) as DemoError"
            }
        }

        let remoteMonitor = try await reporter.step("central finds the heart-rate monitor (discovery by type)") {
            guard let remote = try await central.discover(HeartRateMonitor.self, timeout: .seconds(5)).first else {
                throw ValidationError("the heart-rate monitor was not found")
            }
            return (remote, "connected: \(await central.isConnected(remote))")
        }
        try await reporter.step("heart rate for \(seconds) s (a BLEStream, elements as notifications)") {
            let clock = ContinuousClock()
            let end = clock.now + .milliseconds(Int64(seconds * 1000))
            var values: [Int] = []
            for try await bpm in try await remoteMonitor.measurements() {
                values.append(bpm)
                print("    ♥ \(bpm) bpm")
                if clock.now >= end { break }
            }
            return "\(values.count) measurements, stream cancelled"
        }
        try await reporter.step("central disconnects") {
            await central.disconnect(from: sensor)
            return "connected: \(await central.isConnected(sensor))"
        }
        print("Done: \(reporter.total.steps) steps, \(reporter.total.bytes) bytes of ATT PDUs on air.")
    }
}

/// Counts the ATT PDUs a step puts on air.
protocol TrafficMeter: Sendable {
    /// Starts counting a step.
    func begin() async
    /// PDUs and bytes since ``begin()``.
    func sinceBegin() async -> (pdus: Int, bytes: Int)
}

/// The emulator's trace (both sides' PDUs).
struct BusMeter: TrafficMeter {
    let bus: EmulatorBus

    func begin() async {
        bus.clearTrace()
    }

    func sinceBegin() async -> (pdus: Int, bytes: Int) {
        let att = bus.trace.filter { $0.kind == .att }
        return (att.count, att.compactMap(\.length).reduce(0, +))
    }
}

/// A radio's ATT counter (both ways, as the emulator's trace counts them).
final class RadioMeter: TrafficMeter {
    let traffic: ATTTrafficCounter
    private let baseline = Locked(ATTTrafficCounter.Traffic())

    init(traffic: ATTTrafficCounter) {
        self.traffic = traffic
    }

    func begin() async {
        let now = traffic.total
        baseline.withLock { $0 = now }
    }

    func sinceBegin() async -> (pdus: Int, bytes: Int) {
        let now = traffic.total
        let start = baseline.withLock { $0 }
        return (now.pdus - start.pdus, now.bytes - start.bytes)
    }
}

/// Times each step and counts the ATT bytes it put on air.
final class StepReporter: Sendable {
    private let meter: any TrafficMeter
    private let totals = Locked((steps: 0, bytes: 0))

    init(meter: any TrafficMeter) {
        self.meter = meter
    }

    var total: (steps: Int, bytes: Int) { totals.withLock { $0 } }

    func step(_ title: String, _ body: () async throws -> String) async throws {
        _ = try await step(title) { ((), try await body()) }
    }

    func step<T>(_ title: String, _ body: () async throws -> (T, String)) async throws -> T {
        await meter.begin()
        let clock = ContinuousClock()
        let start = clock.now
        let (value, outcome) = try await body()
        let elapsed = clock.now - start
        let (pdus, bytes) = await meter.sinceBegin()
        totals.withLock { $0.steps += 1; $0.bytes += bytes }
        let milliseconds = String(format: "%8.1f ms", Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        print("\(milliseconds)  \(String(format: "%6d", bytes)) B in \(String(format: "%4d", pdus)) ATT PDUs  \(title)")
        print("    → \(outcome)")
        return value
    }
}
