import Bleu
import BleuEmulator
import BleuTesting
import Distributed
import Testing

// The example of the README, as written there.
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
    @Test("the README example runs on the emulator")
    func readme() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let peripheralSystem = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus), configuration: .fast)
        let centralSystem = BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus), configuration: .fast)

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
}
