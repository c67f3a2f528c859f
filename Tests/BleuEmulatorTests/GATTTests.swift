import BleuCore
import Foundation
import Testing
@testable import BleuEmulator

/// GATT as on hardware.
@Suite("GATT as on hardware")
struct GATTTests {
    @Test("properties and permissions are enforced with the right ATT error, before the application sees anything")
    func permissions() async throws {
        let fixture = try await Fixture.make()
        #expect(await throwsError(.att(.readNotPermitted)) { try await fixture.central.read(fixture[TestUUID.writeOnly]) })
        #expect(await throwsError(.att(.writeNotPermitted)) {
            try await fixture.central.write(Data([1]), to: fixture[TestUUID.locked], type: .withResponse)
        })
        // A client that believes a command-only characteristic takes write requests hears Request Not Supported.
        var lying = fixture[TestUUID.commandOnly]
        lying.properties.insert(.write)
        #expect(await throwsError(.att(.requestNotSupported)) {
            try await fixture.central.write(Data([1]), to: lying, type: .withResponse)
        })
        #expect(fixture.store.batches == 0)
    }

    @Test("the client refuses write types the properties do not allow")
    func clientSideProperties() async throws {
        let fixture = try await Fixture.make()
        #expect(await thrownError { try await fixture.central.write(Data([1]), to: fixture[TestUUID.readOnly], type: .withResponse) }
            .map { if case BleuError.notSupported = $0 { true } else { false } } == true)
        #expect(await thrownError { try await fixture.central.write(Data([1]), to: fixture[TestUUID.writeOnly], type: .withoutResponse) }
            .map { if case BleuError.notSupported = $0 { true } else { false } } == true)
        #expect(await thrownError { try await fixture.central.subscribe(to: fixture[TestUUID.value]) }
            .map { if case BleuError.notSupported = $0 { true } else { false } } == true)
    }

    @Test("encrypted and authenticated attributes answer 0x0F and 0x05 on an unpaired link")
    func security() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.pairing.pairsOnInsufficientSecurity = false
        let fixture = try await Fixture.make(configuration: configuration)
        #expect(await throwsError(.att(.insufficientEncryption)) { try await fixture.central.read(fixture[TestUUID.encrypted]) })
        #expect(await throwsError(.att(.insufficientEncryption)) {
            try await fixture.central.write(Data([1]), to: fixture[TestUUID.encrypted], type: .withResponse)
        })
        #expect(await throwsError(.att(.insufficientAuthentication)) { try await fixture.central.read(fixture[TestUUID.authenticated]) })
    }

    @Test("a value over 512 bytes answers Invalid Attribute Value Length")
    func valueLength() async throws {
        let fixture = try await Fixture.make()
        try await fixture.central.write(Data(repeating: 7, count: 512), to: fixture[TestUUID.value], type: .withResponse)
        #expect(fixture.store.value(TestUUID.value).count == 512)
        #expect(await throwsError(.att(.invalidAttributeValueLength)) {
            try await fixture.central.write(Data(repeating: 7, count: 513), to: fixture[TestUUID.value], type: .withResponse)
        })
        #expect(await throwsError(.att(.invalidAttributeValueLength)) {
            try await fixture.central.write(Data(repeating: 7, count: 600), to: fixture[TestUUID.value], type: .withResponse)
        })
        #expect(fixture.store.value(TestUUID.value).count == 512, "a refused long write changes nothing")
        #expect(try await fixture.central.maximumWriteValueLength(for: fixture.peripheralID, type: .withResponse) == 512)
    }

    @Test("a long write to a fixed-length descriptor answers Attribute Not Long")
    func attributeNotLong() async throws {
        let fixture = try await Fixture.make()
        let descriptors = try await fixture.central.discoverDescriptors(for: fixture[TestUUID.stream])
        let cccd = try #require(descriptors.first { $0.uuid == BluetoothUUID.Descriptor.clientCharacteristicConfiguration })
        #expect(await throwsError(.att(.attributeNotLong)) {
            try await fixture.central.write(Data(count: 200), to: cccd)
        })
        #expect(await throwsError(.att(.invalidAttributeValueLength)) {
            try await fixture.central.write(Data([1, 0, 0]), to: cccd)
        })
        #expect(try await fixture.central.read(cccd) == Data([0, 0]))
    }

    @Test("a write without response of MTU − 2 bytes is refused; MTU − 3 goes through")
    func writeCommandLength() async throws {
        let fixture = try await Fixture.make()
        let mtu = try await fixture.central.attMTU(for: fixture.peripheralID)
        #expect(mtu == 185)
        #expect(try await fixture.central.maximumWriteValueLength(for: fixture.peripheralID, type: .withoutResponse) == mtu - 3)
        #expect(await throwsError(.valueTooLong(length: mtu - 2, maximum: mtu - 3)) {
            try await fixture.central.write(Data(count: mtu - 2), to: fixture[TestUUID.value], type: .withoutResponse)
        })
        var events = fixture.peripheral.events()
        try await fixture.central.write(Data(repeating: 1, count: mtu - 3), to: fixture[TestUUID.value], type: .withoutResponse)
        let write = await events.first { if case .writeRequests(let r) = $0 { !r.needsResponse } else { false } }
        guard case .writeRequests(let requests)? = write else { Issue.record("no write command arrived"); return }
        #expect(requests.requests.first?.value.count == mtu - 3)
    }

    @Test("a notification longer than a central's MTU − 3 does not reach that central")
    func notificationLength() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let big = try await Fixture.make(on: bus, centralOptions: .init(attMTU: 185), name: "A")
        let small = EmulatedCentralManager(bus: bus, options: .init(attMTU: 100))
        let id = try await small.discover(name: "A")
        try await small.connect(id)
        let smallCharacteristics = try await small.discoverTestService(on: id)
        let bigStream = try await big.central.subscribe(to: big[TestUUID.stream])
        let smallStream = try await small.subscribe(to: smallCharacteristics[TestUUID.stream]!)
        let centrals = await big.peripheral.connectedCentrals
        let lengths = await centrals.asyncMap { await big.peripheral.maximumUpdateValueLength(for: $0) }
        #expect(Set(lengths.compactMap { $0 }) == [182, 97])
        #expect(await big.peripheral.updateValue(Data(repeating: 1, count: 150), for: big.characteristic(TestUUID.stream)))
        #expect(await big.peripheral.updateValue(Data(repeating: 2, count: 90), for: big.characteristic(TestUUID.stream)))
        var bigIterator = bigStream.makeAsyncIterator()
        var smallIterator = smallStream.makeAsyncIterator()
        #expect(try await bigIterator.next()?.count == 150)
        #expect(try await bigIterator.next()?.count == 90)
        #expect(try await smallIterator.next()?.count == 90, "the 150-byte value was not sent to the central with MTU 100")
    }

    @Test("an oversize notification to a single small-MTU subscriber is refused visibly: a trace event, nothing queued or sent")
    func oversizeNotificationRefused() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.notificationQueueDepth = 1
        let fixture = try await Fixture.make(configuration: configuration, centralOptions: .init(attMTU: 23))
        let stream = try await fixture.central.subscribe(to: fixture[TestUUID.stream])
        let characteristic = fixture.characteristic(TestUUID.stream)
        fixture.bus.clearTrace()
        // True, not false: false would promise a ready event, and the value would never fit.
        #expect(await fixture.peripheral.updateValue(Data(repeating: 1, count: 21), for: characteristic))
        let trace = fixture.bus.trace
        let refused = try #require(trace.first { $0.kind == .refused })
        #expect(refused.handle == characteristic.valueHandle)
        #expect(refused.length == 21)
        #expect(refused.direction == .peripheralToCentral)
        #expect(refused.detail.contains("ATT MTU − 3 (20)"), "\(refused.detail)")
        #expect(!trace.contains { $0.kind == .att }, "nothing went on air")
        #expect(fixture.bus.traceText().contains("REFUSED"))
        // Nothing took the one slot of the queue: a value that fits goes through at once, and is the first to arrive.
        #expect(await fixture.peripheral.updateValue(Data(repeating: 2, count: 20), for: characteristic))
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == Data(repeating: 2, count: 20))
    }

    @Test("long reads and writes up to 512 bytes use blob reads and prepared writes the application answers")
    func longValues() async throws {
        let fixture = try await Fixture.make()
        let value = Data((0..<400).map { UInt8($0 % 251) })
        fixture.store.set(value, for: TestUUID.value)
        #expect(try await fixture.central.read(fixture[TestUUID.value]) == value)
        let reads = fixture.bus.trace.filter { $0.kind == .att && ($0.opcode == 0x0A || $0.opcode == 0x0C) }
        #expect(reads.count == 3, "one Read and two Read Blob requests for 400 bytes at MTU 185")

        let written = Data((0..<400).map { UInt8(($0 * 7) % 256) })
        try await fixture.central.write(written, to: fixture[TestUUID.value], type: .withResponse)
        #expect(fixture.store.value(TestUUID.value) == written)
        #expect(fixture.store.writes.map(\.offset) == [0, 180, 360], "prepared writes of MTU − 5 bytes, executed as one batch")
        #expect(fixture.store.batches == 1)

        let full = Data(repeating: 9, count: 512)
        fixture.store.set(full + Data(repeating: 1, count: 100), for: TestUUID.value)
        #expect(try await fixture.central.read(fixture[TestUUID.value]) == full, "a value is read up to 512 bytes")
    }

    @Test("the application answers each request: a rejected write reaches the central as that ATT error")
    func applicationErrors() async throws {
        let fixture = try await Fixture.make(answer: { event, peripheral, _ in
            switch event {
            case .writeRequests(let requests): await peripheral.respond(to: requests, with: .failure(ATTError.application(0x80)!))
            case .readRequest(let request): await peripheral.respond(to: request, with: .failure(ATTError(0x9F)))
            default: break
            }
        })
        #expect(await throwsError(.att(ATTError(0x80))) {
            try await fixture.central.write(Data([1]), to: fixture[TestUUID.value], type: .withResponse)
        })
        #expect(await throwsError(.att(ATTError(0x9F))) { try await fixture.central.read(fixture[TestUUID.value]) })
    }

    @Test("a static value is served by the backend; the application answers everything else, once")
    func staticValuesAndSecondAnswers() async throws {
        let requests = Locked<[ReadRequest]>([])
        let fixture = try await Fixture.make(answer: { event, peripheral, _ in
            guard case .readRequest(let request) = event else { return }
            requests.withLock { $0.append(request) }
            await peripheral.respond(to: request, with: .success(Data("first".utf8)))
            await peripheral.respond(to: request, with: .success(Data("second".utf8)))
        })
        #expect(try await fixture.central.read(fixture[TestUUID.fixed]) == Data("fixed".utf8))
        #expect(requests.withLock { $0.isEmpty })
        #expect(try await fixture.central.read(fixture[TestUUID.value]) == Data("first".utf8))
        #expect(try await fixture.central.read(fixture[TestUUID.readOnly]) == Data("first".utf8))
        #expect(requests.withLock { $0.map(\.characteristic.uuid) } == [TestUUID.value, TestUUID.readOnly])
    }

    @Test("subscriptions are per central: CCCD events name the central, values reach only subscribers")
    func perCentralSubscriptions() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let a = try await Fixture.make(on: bus, name: "P")
        var events = a.peripheral.events()
        let b = EmulatedCentralManager(bus: bus)
        let id = try await b.discover(name: "P")
        try await b.connect(id)
        let bCharacteristics = try await b.discoverTestService(on: id)
        let streamA = try await a.central.subscribe(to: a[TestUUID.stream])
        let first = await events.first { if case .subscribed = $0 { true } else { false } }
        guard case .subscribed(let subscriber, let characteristic)? = first else { Issue.record("no subscription"); return }
        #expect(characteristic.uuid == TestUUID.stream)
        #expect(await a.peripheral.updateValue(Data([1]), for: a.characteristic(TestUUID.stream)))
        let streamB = try await b.subscribe(to: bCharacteristics[TestUUID.stream]!)
        let second = await events.first { if case .subscribed = $0 { true } else { false } }
        guard case .subscribed(let otherSubscriber, _)? = second else { Issue.record("no second subscription"); return }
        #expect(subscriber != otherSubscriber)
        #expect(await a.peripheral.updateValue(Data([2]), for: a.characteristic(TestUUID.stream)))
        #expect(await a.peripheral.updateValue(Data([3]), for: a.characteristic(TestUUID.stream), onSubscribedCentrals: [otherSubscriber]))
        try await a.central.unsubscribe(from: a[TestUUID.stream])
        let third = await events.first { if case .unsubscribed = $0 { true } else { false } }
        guard case .unsubscribed(let leaver, _)? = third else { Issue.record("no unsubscription"); return }
        #expect(leaver == subscriber)
        var received: [Data] = []
        for try await value in streamA { received.append(value) }
        #expect(received == [Data([1]), Data([2])], "A's stream ends when A unsubscribes")
        var iteratorB = streamB.makeAsyncIterator()
        #expect(try await iteratorB.next() == Data([2]))
        #expect(try await iteratorB.next() == Data([3]))
    }

    @Test("indications are confirmed, one at a time")
    func indications() async throws {
        let fixture = try await Fixture.make()
        let stream = try await fixture.central.subscribe(to: fixture[TestUUID.indicated])
        for i in 0..<3 {
            #expect(await fixture.peripheral.updateValue(Data([UInt8(i)]), for: fixture.characteristic(TestUUID.indicated)))
        }
        var iterator = stream.makeAsyncIterator()
        for i in 0..<3 { #expect(try await iterator.next() == Data([UInt8(i)])) }
        let pdus = fixture.bus.trace.filter { $0.kind == .att && ($0.opcode == 0x1D || $0.opcode == 0x1E) }.map { $0.opcode! }
        #expect(pdus == [0x1D, 0x1E, 0x1D, 0x1E, 0x1D, 0x1E], "each indication waits for the confirmation of the one before")
    }

    @Test("200 notifications through a queue of depth 10 all arrive, in order, after ready events")
    func notificationQueue() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.notificationQueueDepth = 10
        configuration.subscriptionBufferLimit = 4
        let fixture = try await Fixture.make(configuration: configuration)
        let stream = try await fixture.central.subscribe(to: fixture[TestUUID.stream])
        let consumer = Task {
            var received: [Data] = []
            for try await value in stream {
                received.append(value)
                if received.count == 200 { break }
            }
            return received
        }
        var events = fixture.peripheral.events().makeAsyncIterator()
        var refusals = 0
        for i in 0..<200 {
            let value = Data([UInt8(i & 0xFF), UInt8(i >> 8)])
            while await !fixture.peripheral.updateValue(value, for: fixture.characteristic(TestUUID.stream)) {
                refusals += 1
                while let event = await events.next() {
                    if case .readyToUpdateSubscribers = event { break }
                }
            }
        }
        let received = try await consumer.value
        let expected: [Data] = (0..<200).map { (i: Int) in Data([UInt8(i & 0xFF), UInt8(i >> 8)]) }
        #expect(received == expected)
        #expect(refusals > 0, "a queue of 10 behind a 4-value stream must refuse some updates")
    }

    @Test("a slow subscriber holds the link back instead of losing values")
    func backPressure() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.notificationQueueDepth = 5
        configuration.subscriptionBufferLimit = 3
        let fixture = try await Fixture.make(configuration: configuration)
        let stream = try await fixture.central.subscribe(to: fixture[TestUUID.stream])
        var accepted = 0
        while await fixture.peripheral.updateValue(Data([UInt8(accepted)]), for: fixture.characteristic(TestUUID.stream)) {
            accepted += 1
            if accepted > 100 { break }
        }
        #expect(accepted == 3 + 5, "three values in the stream's buffer and five in the peripheral's queue")
        var iterator = stream.makeAsyncIterator()
        for i in 0..<accepted { #expect(try await iterator.next() == Data([UInt8(i)])) }
    }

    @Test("write-without-response slots free as the peripheral's application takes the writes; a ready event follows")
    func writeCredits() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.writeWithoutResponseQueueDepth = 4
        let bus = EmulatorBus(configuration: configuration)
        let peripheral = EmulatedPeripheralManager(bus: bus)
        var slowApp = peripheral.events().makeAsyncIterator()  // subscribed, not consuming yet
        let published = try await peripheral.add(.test)
        try await peripheral.startAdvertising(AdvertisingData(localName: "W"))
        let central = EmulatedCentralManager(bus: bus)
        var centralEvents = central.events().makeAsyncIterator()
        let id = try await central.discover(name: "W")
        try await central.connect(id)
        let characteristic = try await central.discoverTestService(on: id)[TestUUID.value]!
        for i in 0..<4 { try await central.write(Data([UInt8(i)]), to: characteristic, type: .withoutResponse) }
        #expect(await central.canSendWriteWithoutResponse(to: id) == false)
        #expect(await throwsError(.sendQueueFull(id)) {
            try await central.write(Data([9]), to: characteristic, type: .withoutResponse)
        })
        var writes: [UInt8] = []
        while writes.isEmpty, let event = await slowApp.next() {
            if case .writeRequests(let r) = event { writes += r.requests.map { $0.value[0] } }
        }
        while let event = await centralEvents.next() {
            if case .readyToSendWriteWithoutResponse(let peripheralID) = event {
                #expect(peripheralID == id)
                break
            }
        }
        #expect(await central.canSendWriteWithoutResponse(to: id))
        try await central.write(Data([4]), to: characteristic, type: .withoutResponse)
        while writes.count < 5, let event = await slowApp.next() {
            if case .writeRequests(let r) = event { writes += r.requests.map { $0.value[0] } }
        }
        #expect(writes == [0, 1, 2, 3, 4], "no write was lost or reordered")
        _ = published
    }

    @Test("operations on a disconnected peripheral fail clearly; one in flight fails with the reason")
    func disconnected() async throws {
        let fixture = try await Fixture.make(answer: { _, _, _ in })  // never answers
        let read = Task { try await fixture.central.read(fixture[TestUUID.value]) }
        var events = fixture.peripheral.events()
        _ = await events.first { if case .readRequest = $0 { true } else { false } }
        let central = try #require(await fixture.peripheral.connectedCentrals.first)
        await fixture.peripheral.disconnect(central)
        #expect(await throwsError(.disconnected(fixture.peripheralID, .remoteUserTerminated)) { try await read.value })
        #expect(await throwsError(.notConnected(fixture.peripheralID)) { try await fixture.central.read(fixture[TestUUID.value]) })
        #expect(await throwsError(.notConnected(fixture.peripheralID)) {
            try await fixture.central.write(Data([1]), to: fixture[TestUUID.value], type: .withoutResponse)
        })
        #expect(await throwsError(.notConnected(fixture.peripheralID)) { try await fixture.central.attMTU(for: fixture.peripheralID) })
    }

    @Test("an unanswered request times out after the ATT transaction timeout and closes the link")
    func transactionTimeout() async throws {
        let clock = ManualClock()
        let fixture = try await Fixture.make(clock: clock, answer: { _, _, _ in })
        var events = fixture.central.events()
        let read = Task { try await fixture.central.read(fixture[TestUUID.value]) }
        var peripheralEvents = fixture.peripheral.events()
        _ = await peripheralEvents.first { if case .readRequest = $0 { true } else { false } }
        clock.advance(by: .seconds(29))
        clock.advance(by: .seconds(1))
        let error = await thrownError { try await read.value }
        #expect((error as? BleuError).map { if case .timeout = $0 { true } else { false } } == true)
        let disconnected = await events.first { if case .disconnected = $0 { true } else { false } }
        #expect(disconnected != nil)
    }

    @Test("several centrals each have their own MTU, and the link uses the smaller side")
    func perCentralMTU() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let fixture = try await Fixture.make(on: bus, centralOptions: .init(attMTU: 517), peripheralOptions: .init(attMTU: 247), name: "M")
        #expect(try await fixture.central.attMTU(for: fixture.peripheralID) == 247)
        let other = EmulatedCentralManager(bus: bus, options: .init(attMTU: 23))
        let id = try await other.discover(name: "M")
        try await other.connect(id)
        #expect(try await other.attMTU(for: id) == 23)
        #expect(try await other.maximumWriteValueLength(for: id, type: .withoutResponse) == 20)
        let lengths = await fixture.peripheral.connectedCentrals.asyncMap { await fixture.peripheral.maximumUpdateValueLength(for: $0) }
        #expect(Set(lengths.compactMap { $0 }) == [244, 20])
    }

    @Test("a removed service takes its subscriptions with it: handles given again start unsubscribed")
    func removedServiceSubscriptions() async throws {
        let fixture = try await Fixture.make()
        _ = try await fixture.central.subscribe(to: fixture[TestUUID.stream])
        try await fixture.peripheral.remove(fixture.service)
        let again = try await fixture.peripheral.add(.test)
        #expect(again.characteristic(TestUUID.stream)?.valueHandle == fixture[TestUUID.stream].valueHandle)
        let subscribed = fixture.bus.withEngine { engine in engine.links.values.first?.server.configurations.isEmpty }
        #expect(subscribed == true)
    }

    @Test("discovery finds descriptors, included services, and reports database changes")
    func discovery() async throws {
        let fixture = try await Fixture.make()
        let descriptors = try await fixture.central.discoverDescriptors(for: fixture[TestUUID.value])
        #expect(descriptors.map(\.uuid) == [BluetoothUUID.Descriptor.characteristicUserDescription])
        #expect(try await fixture.central.read(descriptors[0]) == Data("value".utf8))
        #expect(await throwsError(.att(.writeNotPermitted)) { try await fixture.central.write(Data([1]), to: descriptors[0]) })
        var events = fixture.central.events()
        let battery = try await fixture.peripheral.add(ServiceDefinition(uuid: BluetoothUUID.Service.battery, characteristics: [
            CharacteristicDefinition(uuid: BluetoothUUID.Characteristic.batteryLevel, properties: [.read], permissions: .readable,
                                     value: Data([99])),
        ]))
        let information = try await fixture.peripheral.add(ServiceDefinition(uuid: BluetoothUUID.Service.deviceInformation, characteristics: [],
                                                               includedServices: [BluetoothUUID.Service.battery]))
        let changed = await events.first { if case .servicesChanged = $0 { true } else { false } }
        #expect(changed != nil)
        let services = try await fixture.central.discoverServices(nil, on: fixture.peripheralID)
        #expect(services.map(\.uuid) == [TestUUID.service, BluetoothUUID.Service.battery, BluetoothUUID.Service.deviceInformation])
        let included = try await fixture.central.discoverIncludedServices(nil, for: services[2])
        #expect(included.map(\.uuid) == [BluetoothUUID.Service.battery])
        #expect(included.first?.handle == battery.handle)
        let level = try await fixture.central.discoverCharacteristics(nil, for: services[1])
        #expect(try await fixture.central.read(level[0]) == Data([99]))
        #expect(await throwsError(.invalidState(.serviceIncluded(BluetoothUUID.Service.battery, by: BluetoothUUID.Service.deviceInformation))) {
            try await fixture.peripheral.remove(battery)
        })
        try await fixture.peripheral.remove(information)
        try await fixture.peripheral.remove(battery)
        #expect(await throwsError(.att(.invalidHandle)) { try await fixture.central.read(level[0]) })
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
