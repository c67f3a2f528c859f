import BleuCore
import CoreBluetoothEmulator
import Foundation
import Testing

@Suite("CoreBluetooth's API on the link model, in virtual time", .timeLimit(.minutes(1)))
struct VirtualTimeTests {
    /// Moves `clock` on in 1 ms steps — each step runs the bus's due timers and lets both
    /// delegates' callbacks run — until `done` holds; returns the virtual time that took.
    private func elapse(_ world: World, _ clock: ManualClock, until done: () -> Bool) -> Duration? {
        var elapsed = Duration.zero
        while !done() {
            guard elapsed < .seconds(10) else { return nil }
            clock.advance(by: .milliseconds(1))
            elapsed += .milliseconds(1)
            _ = world.bus.bondCount  // any call on the bus runs the timers due by now
            world.peripheralQueue.sync {}
            world.settleCentral()
        }
        return elapsed
    }

    @Test("a read takes the link's time: at least one connection interval of virtual time, and no wall-clock wait")
    func readTakesAirTime() async throws {
        let clock = ManualClock()
        var configuration = EmulatorConfiguration.default
        configuration.connectionInterval = .milliseconds(30)
        configuration.seed = 5
        let world = await World(configuration, clock: clock)
        let (service, _) = heartRateService()
        await world.publish(service)
        world.peripheral.setValue(Data([0x00, 0x48]), for: "2A37")
        await world.advertise([CBAdvertisementDataLocalNameKey: "HRM"])

        world.centralManager.scanForPeripherals(withServices: nil)
        #expect(elapse(world, clock) { world.central.peripheral(named: "HRM") != nil } != nil)
        world.centralManager.stopScan()
        let peripheral = try #require(world.central.peripheral(named: "HRM"))
        world.centralManager.connect(peripheral)
        #expect(elapse(world, clock) { world.central.log.all.contains("didConnect true") } != nil)
        peripheral.discoverServices([CBUUID(string: "180D")])
        #expect(elapse(world, clock) { peripheral.services?.isEmpty == false } != nil)
        let remote = try #require(peripheral.services?.first)
        peripheral.discoverCharacteristics([CBUUID(string: "2A37")], for: remote)
        #expect(elapse(world, clock) { remote.characteristics?.isEmpty == false } != nil)
        let measurement = try #require(remote.characteristics?.first)

        peripheral.readValue(for: measurement)
        let took = try #require(elapse(world, clock) { measurement.value != nil })
        #expect(measurement.value == Data([0x00, 0x48]))
        #expect(took >= .milliseconds(30), "request and response ride connection events (took \(took))")
        #expect(took <= .milliseconds(120), "two or three connection events, not more (took \(took))")
    }
}
