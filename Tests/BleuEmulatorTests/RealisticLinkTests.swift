import BleuCore
import Foundation
import Testing
@testable import BleuEmulator

/// On a bus: PDUs delivered at connection events on the bus's clock, in
/// virtual time (a manual clock), and `.instant` never waiting on the clock.
@Suite("Link model on the bus")
struct RealisticLinkTests {
    static func configuration(phy: PHY = .le1M, dataLength: Int = 27, interval: Duration = .milliseconds(30)) -> EmulatorConfiguration {
        var configuration = EmulatorConfiguration.default
        configuration.phy = phy
        configuration.dataLength = dataLength
        configuration.connectionInterval = interval
        configuration.rssi.variation = 0
        configuration.discoveryLatency = .zero
        configuration.seed = 3
        return configuration
    }

    @Test(".instant delivers everything in order without waiting on the clock")
    func instantIgnoresTheClock() async throws {
        let clock = ManualClock()
        let fixture = try await Fixture.make(clock: clock)
        let stream = try await fixture.central.subscribe(to: fixture[TestUUID.stream])
        for i in 0..<50 { #expect(await fixture.peripheral.updateValue(Data([UInt8(i)]), for: fixture.characteristic(TestUUID.stream))) }
        try await fixture.central.write(Data(count: 400), to: fixture[TestUUID.value], type: .withResponse)
        var iterator = stream.makeAsyncIterator()
        for i in 0..<50 { #expect(try await iterator.next() == Data([UInt8(i)])) }
        #expect(clock.now.offset == .zero, "nothing advanced the clock")
        #expect(fixture.bus.trace.allSatisfy { $0.time == .zero && $0.airStart == nil })
    }

    @Test("connecting takes the connect latency and an MTU exchange on air")
    func connectTiming() async throws {
        let clock = ManualClock()
        let bus = EmulatorBus(configuration: Self.configuration(), clock: clock)
        let fixture = try await drive(clock) { try await Fixture.make(on: bus, connect: false) }
        let start = clock.now.offset
        try await drive(clock) { try await fixture.central.connect(fixture.peripheralID) }
        let trace = bus.trace
        let connected = try #require(trace.first { $0.kind == .connected })
        #expect(connected.time - start >= bus.configuration.connectLatency)
        let mtu = trace.filter { $0.kind == .att && ($0.opcode == 0x02 || $0.opcode == 0x03) }
        #expect(mtu.count == 2)
        #expect(mtu[1].airStart! - mtu[0].airStart! == .milliseconds(30), "the response goes one event after the request")
    }

    @Test("acknowledged operations complete at most once per two connection intervals")
    func acknowledgedOperations() async throws {
        let clock = ManualClock()
        let bus = EmulatorBus(configuration: Self.configuration(), clock: clock)
        let fixture = try await drive(clock) { try await Fixture.make(on: bus) }
        bus.clearTrace()
        try await drive(clock) {
            for _ in 0..<5 { _ = try await fixture.central.read(fixture[TestUUID.fixed]) }
            for i in 0..<5 { try await fixture.central.write(Data([UInt8(i)]), to: fixture[TestUUID.value], type: .withResponse) }
        }
        let trace = bus.trace
        let reads = trace.filter { $0.opcode == 0x0A }.compactMap(\.airStart)
        let readGaps = zip(reads.dropFirst(), reads).map { $0 - $1 }
        #expect(readGaps.allSatisfy { $0 >= .milliseconds(60) && $0.nanoseconds % Duration.milliseconds(30).nanoseconds == 0 },
                "reads go at connection events, at least two intervals apart: \(readGaps)")
        #expect(readGaps.contains(.milliseconds(60)), "a reader that answers at once gets exactly two intervals")
        let writes = trace.filter { $0.opcode == 0x12 }.compactMap(\.airStart)
        #expect(writes.count == 5)
        #expect(zip(writes.dropFirst(), writes).allSatisfy { $0 - $1 >= .milliseconds(60) }, "\(writes)")
    }

    @Test("notifications go at connection events, back to back, at the link's physical rate")
    func notificationTiming() async throws {
        let clock = ManualClock()
        var configuration = Self.configuration(phy: .le2M, dataLength: 251, interval: .milliseconds(50))
        configuration.notificationQueueDepth = 64
        configuration.centralMTU = 247
        let bus = EmulatorBus(configuration: configuration, clock: clock)
        let fixture = try await drive(clock) { try await Fixture.make(on: bus) }
        // Notifications enabled, no stream holding them back: the link alone sets the pace.
        _ = try await drive(clock) { try await fixture.central.subscribe(to: fixture[TestUUID.stream]) }
        bus.clearTrace()
        let count = 400
        let sent = await Self.produce(count, on: [(fixture.peripheral, fixture.characteristic(TestUUID.stream))], size: 244, clock: clock)
        #expect(sent == count)
        let notifications = bus.trace.filter { $0.opcode == 0x1B }
        #expect(notifications.count == count)
        let exchange = AirTime.exchange(payload: 251, phy: .le2M)
        let anchor = try #require(bus.withEngine { engine in engine.links.keys.first.flatMap { engine.centrals.values.first?.radio.anchor(of: $0.rawValue, atOrAfter: .zero) } })
        let interval = Duration.milliseconds(50).nanoseconds
        let starts = notifications.compactMap(\.airStart)
        for (previous, start) in zip(starts, starts.dropFirst()) where start - previous != exchange {
            #expect((start - anchor).nanoseconds % interval == 0, "not back to back, so at an anchor: \(start)")
        }
        #expect((starts[0] - anchor).nanoseconds % interval == 0)
        let seconds = (notifications.last!.time - notifications.first!.airStart!).secondsValue
        let kbps = Double(count * 244 * 8) / seconds / 1000
        let model = LinkGoodput.connectionEventKilobitsPerSecond(phy: .le2M, dataLength: 251, interval: .milliseconds(50))
        #expect(kbps <= LinkGoodput.referenceKilobitsPerSecond(phy: .le2M, dataLength: 251))
        #expect(abs(kbps / model - 1) < 0.03, "\(kbps) kb/s against the model's \(model)")
    }

    @Test("indications go one at a time: consecutive ones at least two connection intervals apart")
    func indicationTiming() async throws {
        let clock = ManualClock()
        var configuration = Self.configuration(phy: .le2M, dataLength: 251, interval: .milliseconds(30))
        configuration.notificationQueueDepth = 32
        let bus = EmulatorBus(configuration: configuration, clock: clock)
        let fixture = try await drive(clock) { try await Fixture.make(on: bus) }
        let values = try await drive(clock) { try await fixture.central.subscribe(to: fixture[TestUUID.indicated]) }
        bus.clearTrace()
        let count = 12
        // The whole queue at once: without the one-at-a-time rule they would share one event.
        for i in 0..<count {
            #expect(await fixture.peripheral.updateValue(Data([UInt8(i)]), for: fixture.characteristic(TestUUID.indicated)))
        }
        let received: [Data] = try await drive(clock) {
            var iterator = values.makeAsyncIterator()
            var received: [Data] = []
            while received.count < count, let value = try await iterator.next() { received.append(value) }
            return received
        }
        #expect(received == (0..<count).map { Data([UInt8($0)]) })
        let trace = bus.trace
        let indications = trace.filter { $0.opcode == 0x1D }.compactMap(\.airStart)
        let confirmations = trace.filter { $0.opcode == 0x1E }.compactMap(\.airStart)
        #expect(indications.count == count)
        #expect(confirmations.count >= count - 1)
        let gaps = zip(indications.dropFirst(), indications).map { $0 - $1 }
        #expect(gaps.allSatisfy { $0 >= .milliseconds(60) }, "at least two connection intervals: \(gaps)")
        #expect(gaps.contains(.milliseconds(60)), "a central that confirms at once gets exactly two: \(gaps)")
        for (indication, confirmation) in zip(indications, confirmations) {
            #expect(confirmation - indication == .milliseconds(30), "the confirmation goes one event after its indication")
        }
    }

    /// Keeps the peripherals' notification queues full, in the test's own task between clock
    /// steps, so virtual time never runs ahead of the producer: deterministic timing.
    static func produce(_ count: Int, on targets: [(EmulatedPeripheralManager, PublishedCharacteristic)], size: Int,
                        clock: ManualClock) async -> Int {
        var sent = [Int](repeating: 0, count: targets.count)
        while sent.contains(where: { $0 < count }) {
            for (index, (peripheral, characteristic)) in targets.enumerated() {
                while sent[index] < count, await peripheral.updateValue(Data(repeating: UInt8(sent[index] & 0xFF), count: size),
                                                                         for: characteristic) {
                    sent[index] += 1
                }
            }
            clock.advance(by: .microseconds(250))
        }
        clock.advance(by: .seconds(2))
        _ = await targets.first?.0.isAdvertising  // catches the engine up with the clock
        return sent.reduce(0, +)
    }

    @Test("write-without-response slots free as the air carries the writes")
    func writeCredits() async throws {
        let clock = ManualClock()
        var configuration = Self.configuration()
        configuration.writeWithoutResponseQueueDepth = 4
        let bus = EmulatorBus(configuration: configuration, clock: clock)
        let fixture = try await drive(clock) { try await Fixture.make(on: bus) }
        let events = fixture.central.events()
        for i in 0..<4 { try await fixture.central.write(Data([UInt8(i)]), to: fixture[TestUUID.value], type: .withoutResponse) }
        #expect(await throwsError(.sendQueueFull(fixture.peripheralID)) {
            try await fixture.central.write(Data([4]), to: fixture[TestUUID.value], type: .withoutResponse)
        })
        let ready: UUID? = try await drive(clock) {
            for await event in events {
                if case .readyToSendWriteWithoutResponse(let id) = event { return id }
            }
            return nil
        }
        #expect(ready == fixture.peripheralID)
        #expect(await fixture.central.canSendWriteWithoutResponse(to: fixture.peripheralID))
        let commands = bus.trace.filter { $0.opcode == 0x52 }
        #expect(commands.first.map { $0.time > .zero } == true)
    }

    @Test("one radio per central: its connections' packets never overlap, and together stay under one link's rate")
    func sharedRadio() async throws {
        let clock = ManualClock()
        var configuration = Self.configuration(phy: .le2M, dataLength: 251, interval: .milliseconds(30))
        configuration.notificationQueueDepth = 64
        let bus = EmulatorBus(configuration: configuration, clock: clock)
        let a = try await drive(clock) { try await Fixture.make(on: bus, name: "A") }
        let bPeripheral = EmulatedPeripheralManager(bus: bus)
        let bService = try await bPeripheral.add(.test)
        try await bPeripheral.startAdvertising(AdvertisingData(localName: "B"))
        let central = a.central
        let bID = try await drive(clock) { try await central.discover(name: "B") }
        try await drive(clock) { try await central.connect(bID) }
        let bCharacteristics = try await drive(clock) { try await central.discoverTestService(on: bID) }
        let streamA: Void = try await drive(clock) { _ = try await central.subscribe(to: a[TestUUID.stream]) }
        let streamB: Void = try await drive(clock) { _ = try await central.subscribe(to: bCharacteristics[TestUUID.stream]!) }
        bus.clearTrace()
        _ = (streamA, streamB)
        let sent = await Self.produce(150, on: [(a.peripheral, a.characteristic(TestUUID.stream)),
                                                (bPeripheral, bService.characteristic(TestUUID.stream)!)], size: 182, clock: clock)
        #expect(sent == 300)
        let packets = bus.trace.filter { $0.kind == .att && $0.airStart != nil }.sorted { $0.airStart! < $1.airStart! }
        for (x, y) in zip(packets, packets.dropFirst()) where x.connection != y.connection {
            #expect(x.time <= y.airStart!, "#\(x.connection!) ends at \(x.time), #\(y.connection!) starts at \(y.airStart!)")
        }
        let notifications = packets.filter { $0.opcode == 0x1B }
        let seconds = (notifications.last!.time - notifications.first!.airStart!).secondsValue
        let kbps = Double(notifications.count * 182 * 8) / seconds / 1000
        #expect(kbps < LinkGoodput.referenceKilobitsPerSecond(phy: .le2M, dataLength: 251))
        #expect(Set(notifications.compactMap(\.connection)).count == 2)
    }
}
