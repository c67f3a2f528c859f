import Bleu
import BleuEmulator
import BleuTesting
import Distributed
import Foundation
import Testing

// The example of the README ("Bleu in brief"), as written there; the test below checks that
// every line of the README's block appears here.
@Resolvable
public protocol TemperatureSensor: PeripheralActor {
    distributed func getTemperature() async throws -> Double
    distributed func setUpdateInterval(_ seconds: Int) async throws
}
distributed actor MyThermometer: TemperatureSensor {
    typealias ActorSystem = BLEActorSystem
    distributed func getTemperature() async throws -> Double { 25.5 }
    distributed func setUpdateInterval(_ seconds: Int) async throws {}
}

@Suite("README example")
struct ReadmeExampleTests {
    @Test("the README example runs on the emulator as written (default configuration)")
    func readme() async throws {
        let bus = EmulatorBus(configuration: .instant)   // or any radio backend
        let peripheralSystem = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus))
        let centralSystem = BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus))
        // peripheral
        try await peripheralSystem.startAdvertising(MyThermometer(actorSystem: peripheralSystem))
        // central
        let sensors = try await centralSystem.discover(MyThermometer.self, timeout: 10)
        let sensor = try $TemperatureSensor.resolve(id: sensors[0].id, using: centralSystem)
        let t = try await sensor.getTemperature()

        #expect(sensors.count == 1)
        #expect(t == 25.5)
        try await sensor.setUpdateInterval(5)
    }

    @Test("the README's Bleu example and this file agree line by line")
    func inSync() throws {
        let here = URL(fileURLWithPath: #filePath)
        let readme = try String(contentsOf: here.deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "## Bleu in brief"))
        let rest = readme[section.upperBound...]
        let open = try #require(rest.range(of: "```swift\n"))
        let close = try #require(rest[open.upperBound...].range(of: "```"))
        let example = rest[open.upperBound..<close.lowerBound].split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let source = Set(try String(contentsOf: here, encoding: .utf8).split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(example.count > 10)
        for line in example { #expect(source.contains(line), "README line not in the test: \(line)") }
    }
}
