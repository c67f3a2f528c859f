import ArgumentParser
import Bleu
import BleuCore
import BleuEmulator
import Foundation
import Logging

/// `bleu demo`: a peripheral and a central on the emulator's realistic link, talking through
/// distributed actors.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Distributed actors over an emulated BLE link: discover, call, stream.",
        discussion: "A peripheral hosts a thermometer and a heart-rate monitor; a central discovers the thermometer by its protocol, calls it, and subscribes to the heart rate. Each step prints its time and the ATT bytes it put on air."
    )

    @Option(help: "How long to follow the heart-rate stream, in seconds.")
    var seconds: Double = 3

    @Flag(help: "Use the emulator's instant preset instead of the realistic one.")
    var instant = false

    mutating func run() async throws {
        let bus = EmulatorBus(configuration: instant ? .instant : .default)
        let quiet = Logger(label: "bleu.demo") { _ in SwiftLogNoOpLogHandler() }
        let configuration = BLEActorSystem.Configuration(discoveryQuietPeriod: .milliseconds(300), logger: quiet)
        let peripheral = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus), configuration: configuration)
        let central = BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus), configuration: configuration)
        let reporter = StepReporter(bus: bus)
        print("Bleu demo — emulator preset \(instant ? "instant" : "default") (\(bus.configuration.phy), connection interval \(bus.configuration.connectionInterval), ATT MTU \(bus.configuration.centralMTU))")

        let thermometer = DemoThermometer(actorSystem: peripheral)
        let monitor = HeartRateMonitor(actorSystem: peripheral)
        try await reporter.step("peripheral hosts a thermometer and a heart-rate monitor, advertising") {
            try await peripheral.startAdvertising(thermometer, monitor)
            return "service \(ActorServiceLayout.serviceUUID(for: $Thermometer.self))"
        }

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
                return "unexpectedly succeeded"
            } catch let error as DemoError {
                return "caught \(error) as DemoError"
            }
        }

        let remoteMonitor = try await reporter.step("central connects to the heart-rate monitor by its id") {
            let remote = try await central.connect(to: monitor.id, as: HeartRateMonitor.self)
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

/// Times each step and counts the ATT bytes the emulator's trace recorded for it.
final class StepReporter: Sendable {
    private let bus: EmulatorBus
    private let totals = Locked((steps: 0, bytes: 0))

    init(bus: EmulatorBus) {
        self.bus = bus
    }

    var total: (steps: Int, bytes: Int) { totals.withLock { $0 } }

    func step(_ title: String, _ body: () async throws -> String) async throws {
        _ = try await step(title) { ((), try await body()) }
    }

    func step<T>(_ title: String, _ body: () async throws -> (T, String)) async throws -> T {
        bus.clearTrace()
        let clock = ContinuousClock()
        let start = clock.now
        let (value, outcome) = try await body()
        let elapsed = clock.now - start
        let att = bus.trace.filter { $0.kind == .att }
        let bytes = att.compactMap(\.length).reduce(0, +)
        totals.withLock { $0.steps += 1; $0.bytes += bytes }
        let milliseconds = String(format: "%8.1f ms", Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        print("\(milliseconds)  \(String(format: "%6d", bytes)) B in \(String(format: "%4d", att.count)) ATT PDUs  \(title)")
        print("    → \(outcome)")
        return value
    }
}
