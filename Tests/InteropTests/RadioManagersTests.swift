import BleuCore
import BumbleSupport
import Foundation
import Testing

@testable import BleuHCI

/// BleuCore's radio protocols implemented by our host stack, on both sides of Bumble's link.
@Suite("Interop: HCICentralManager and HCIPeripheralManager on both sides", .enabled(if: BumbleLink.python != nil, BumbleLink.skipReason),
       .timeLimit(.minutes(1)))
struct RadioManagersTests {
    static let service = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
    static let level = BluetoothUUID(0x2A19)
    static let control = BluetoothUUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E")
    static let stream = BluetoothUUID("6E400003-B5A3-F393-E0A9-E50E24DCCA9E")
    static let refusing = BluetoothUUID("6E400004-B5A3-F393-E0A9-E50E24DCCA9E")

    static let definition = ServiceDefinition(uuid: service, characteristics: [
        CharacteristicDefinition(uuid: level, properties: [.read], permissions: .readable),
        CharacteristicDefinition(uuid: control, properties: [.write, .writeWithoutResponse], permissions: .writeable),
        CharacteristicDefinition(uuid: stream, properties: [.notify], permissions: .readable,
                                 descriptors: [.userDescription("stream")]),
        CharacteristicDefinition(uuid: refusing, properties: [.write, .indicate], permissions: .writeable),
    ])

    @Test("scan, connect (MTU 517), discover, read a long value, write both ways, long write, subscribe, disconnect",
          arguments: [HCIRadioConfiguration.ExtendedCommands.whenSupported, .never])
    func gattOverTheRadio(_ commands: HCIRadioConfiguration.ExtendedCommands) async throws {
        let pair = try await RadioPair.start(configuration: HCIRadioConfiguration(usesExtendedCommands: commands))
        // Bumble's controller supports LE extended advertising: both kinds of commands are exercised.
        #expect(await pair.centralRadio.usesExtendedCommands == (commands == .whenSupported))
        #expect(await pair.peripheralRadio.usesExtendedCommands == (commands == .whenSupported))
        let answerer = RequestAnswerer()
        let long = Data((0..<300).map { UInt8($0 % 251) })
        await answerer.start(pair.peripheral, value: { uuid in uuid == Self.level ? long : Data() }, refuse: Self.refusing)
        let published = try await pair.peripheral.add(Self.definition)
        var peripheralEvents = pair.peripheral.events().makeAsyncIterator()

        let id = try await pair.connect(service: Self.service)
        #expect(await pair.central.isConnected(id))
        #expect(try await pair.central.attMTU(for: id) == 517)
        #expect(try await pair.central.maximumWriteValueLength(for: id, type: .withoutResponse) == 514)

        let services = try await pair.central.discoverServices(nil, on: id)
        #expect(services.map(\.uuid) == [BluetoothUUID.Service.genericAccess, BluetoothUUID.Service.genericAttribute, Self.service])
        let characteristics = try await pair.central.discoverCharacteristics(nil, for: services[2])
        #expect(characteristics.map(\.uuid) == [Self.level, Self.control, Self.stream, Self.refusing])
        let byUUID = Dictionary(uniqueKeysWithValues: characteristics.map { ($0.uuid, $0) })
        let descriptors = try await pair.central.discoverDescriptors(for: byUUID[Self.stream]!)
        #expect(descriptors.map(\.uuid) == [BluetoothUUID.Descriptor.clientCharacteristicConfiguration,
                                            BluetoothUUID.Descriptor.characteristicUserDescription])
        #expect(try await pair.central.read(descriptors[1]) == Data("stream".utf8))

        // A 300-byte value: one read and a blob read, each answered by the application.
        #expect(try await pair.central.read(byUUID[Self.level]!) == long)

        // Writes: with response, a long (prepared) one, without response; and a refusal.
        try await pair.central.write(Data([1, 2, 3]), to: byUUID[Self.control]!, type: .withResponse)
        try await pair.central.write(long, to: byUUID[Self.control]!, type: .withResponse)
        for i in 0..<3 {
            while !(await pair.central.canSendWriteWithoutResponse(to: id)) { await Task.yield() }
            try await pair.central.write(Data([0xC0, UInt8(i)]), to: byUUID[Self.control]!, type: .withoutResponse)
        }
        await #expect(throws: BleuError.att(ATTError(rawValue: 0x80))) {
            try await pair.central.write(Data([9]), to: byUUID[Self.refusing]!, type: .withResponse)
        }
        await #expect(throws: BleuError.self) {
            try await pair.central.write(Data([9]), to: byUUID[Self.level]!, type: .withResponse)
        }

        // Notifications, in order.
        let values = try await pair.central.subscribe(to: byUUID[Self.stream]!)
        while let event = await peripheralEvents.next() {
            if case .subscribed(_, let c) = event, c.uuid == Self.stream { break }
        }
        let streamCharacteristic = published.characteristic(Self.stream)!
        for i in 0..<20 {
            while !(await pair.peripheral.updateValue(Data([UInt8(i)]), for: streamCharacteristic)) {
                while let event = await peripheralEvents.next() {
                    if case .readyToUpdateSubscribers = event { break }
                }
            }
        }
        var received: [UInt8] = []
        for try await value in values {
            received += value
            if received.count == 20 { break }
        }
        #expect(received == Array(0..<20))

        let writes = await answerer.writes.filter { $0.uuid == Self.control }
        #expect(writes.map(\.value) == [Data([1, 2, 3]), long, Data([0xC0, 0]), Data([0xC0, 1]), Data([0xC0, 2])])
        #expect(writes.map(\.needsResponse) == [true, true, false, false, false])

        // Disconnect: both sides hear of it.
        var centralEvents = pair.central.events().makeAsyncIterator()
        await pair.central.cancelConnection(id)
        #expect(!(await pair.central.isConnected(id)))
        var reason: DisconnectReason?
        while let event = await centralEvents.next() {
            if case .disconnected(id, let r) = event {
                reason = r
                break
            }
        }
        #expect(reason == .localHostTerminated)
        while let event = await peripheralEvents.next() {
            if case .centralDisconnected = event { break }
        }
        await answerer.stop()
        await pair.stop()
    }
}

@Suite("Interop: connections, indications and L2CAP channels between our radios",
       .enabled(if: BumbleLink.python != nil, BumbleLink.skipReason), .timeLimit(.minutes(1)))
struct RadioConnectionTests {
    /// A peripheral the central saw advertising, which then stopped.
    func silentPeripheral(_ pair: RadioPair) async throws -> UUID {
        try await pair.peripheral.startAdvertising(AdvertisingData(localName: "bleu-gone"))
        let found = try await pair.central.scan().first { $0.localName == "bleu-gone" }
        await pair.central.stopScan()
        await pair.peripheral.stopAdvertising()
        return try #require(found?.peripheral)
    }

    @Test("a connect to a peripheral that stopped advertising times out; an unknown identifier is refused")
    func connectTimeout() async throws {
        let pair = try await RadioPair.start()
        let id = try await silentPeripheral(pair)
        await #expect(throws: BleuError.connectionTimeout(id)) {
            try await pair.central.connect(id, timeout: .milliseconds(300))
        }
        #expect(!(await pair.central.isConnected(id)))
        let stranger = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
        await #expect(throws: BleuError.peripheralNotFound(stranger)) {
            try await pair.central.connect(stranger, timeout: .seconds(1))
        }
        // Bumble's controller ignores LE Create Connection Cancel (it neither ends the attempt
        // nor reports it), so this radio's next connect would be refused: the test ends here.
        await pair.stop()
        #expect(await pair.central.state == .poweredOff)
    }

    @Test("cancelling the task of a connect ends the attempt with BleuError.cancelled")
    func connectCancelled() async throws {
        let pair = try await RadioPair.start()
        let id = try await silentPeripheral(pair)
        let attempt = Task { try await pair.central.connect(id, timeout: nil) }
        attempt.cancel()  // before or after the attempt reached the controller: either way it ends
        await #expect(throws: BleuError.cancelled) { try await attempt.value }
        #expect(!(await pair.central.isConnected(id)))
        await pair.stop()
    }

    @Test("indications are confirmed one at a time, in order; adding a service indicates Service Changed")
    func indicationsAndServiceChanged() async throws {
        let pair = try await RadioPair.start()
        let answerer = RequestAnswerer()
        await answerer.start(pair.peripheral, value: { _ in Data() })
        let published = try await pair.peripheral.add(RadioManagersTests.definition)
        let id = try await pair.connect()
        var centralEvents = pair.central.events().makeAsyncIterator()
        let services = try await pair.central.discoverServices(nil, on: id)
        let gatt = try #require(services.first { $0.uuid == BluetoothUUID.Service.genericAttribute })
        let serviceChanged = try #require(try await pair.central.discoverCharacteristics(nil, for: gatt).first)
        let changes = try await pair.central.subscribe(to: serviceChanged)
        let ours = try #require(services.first { $0.uuid == RadioManagersTests.service })
        let indicating = try #require(try await pair.central.discoverCharacteristics([RadioManagersTests.refusing], for: ours).first)
        let values = try await pair.central.subscribe(to: indicating)
        while await !answerer.subscriptions.contains(RadioManagersTests.refusing) { await Task.yield() }

        let target = try #require(published.characteristic(RadioManagersTests.refusing))
        var sent = 0
        var peripheralEvents = pair.peripheral.events().makeAsyncIterator()
        while sent < 10 {
            if await pair.peripheral.updateValue(Data([UInt8(sent)]), for: target) {
                sent += 1
            } else {
                while let event = await peripheralEvents.next() { if case .readyToUpdateSubscribers = event { break } }
            }
        }
        var received: [UInt8] = []
        for try await value in values {
            received += value
            if received.count == 10 { break }
        }
        #expect(received == Array(0..<10))

        let added = try await pair.peripheral.add(ServiceDefinition(uuid: BluetoothUUID(0x180F), characteristics: [
            CharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: .read, permissions: .readable, value: Data([88])),
        ]))
        var range: Data?
        for try await value in changes {
            range = value
            break
        }
        #expect(range == Data([UInt8(added.handle & 0xFF), UInt8(added.handle >> 8),
                               UInt8(added.endHandle & 0xFF), UInt8(added.endHandle >> 8)]))
        var heard = false
        while let event = await centralEvents.next() {
            if case .servicesChanged(id) = event {
                heard = true
                break
            }
        }
        #expect(heard)
        let battery = try #require(try await pair.central.discoverServices([BluetoothUUID(0x180F)], on: id).first)
        let level = try #require(try await pair.central.discoverCharacteristics(nil, for: battery).first)
        #expect(try await pair.central.read(level) == Data([88]))
        await answerer.stop()
        await pair.stop()
    }

    @Test("an L2CAP channel: SDUs both ways across many K-frames and more than the initial credits; close; refusals")
    func l2capChannel() async throws {
        let pair = try await RadioPair.start(configuration: HCIRadioConfiguration(l2capMTU: 1000, l2capMPS: 60, l2capCredits: 3))
        let psm = try await pair.peripheral.publishL2CAPChannel(requiresEncryption: false)
        #expect((0x80...0xFF).contains(psm))
        let second = try await pair.peripheral.publishL2CAPChannel(requiresEncryption: true)
        #expect(second != psm)
        var peripheralEvents = pair.peripheral.events().makeAsyncIterator()
        let id = try await pair.connect()

        await #expect(throws: BleuError.notSupported(.channelNotPublished(psm: 0xFE))) {
            _ = try await pair.central.openL2CAPChannel(psm: 0xFE, on: id)
        }
        await #expect(throws: BleuError.self) { _ = try await pair.central.openL2CAPChannel(psm: second, on: id) }

        let channel = try await pair.central.openL2CAPChannel(psm: psm, on: id)
        var accepted: (any L2CAPChannel)?
        while let event = await peripheralEvents.next() {
            if case .l2capChannelOpened(let c) = event {
                accepted = c
                break
            }
        }
        let server = try #require(accepted)
        #expect(server.psm == psm && channel.psm == psm)

        // Ten 1000-byte SDUs each way: 17 K-frames each at MPS 60, on 3 credits at a time.
        let sdus = (0..<10).map { i in Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7 + i) }) }
        async let sending: Void = { for sdu in sdus { try await channel.send(sdu) } }()
        var got: [Data] = []
        for try await sdu in server.incoming {
            got.append(sdu)
            if got.count == sdus.count { break }
        }
        try await sending
        #expect(got == sdus)
        // Back-pressure: with 3 credits the peripheral can get at most 3 SDUs ahead of the reader.
        async let replying: Void = { for sdu in sdus.reversed() { try await server.send(sdu) } }()
        var back: [Data] = []
        for try await sdu in channel.incoming {
            back.append(sdu)
            if back.count == sdus.count { break }
        }
        try await replying
        #expect(back == sdus.reversed())
        await #expect(throws: BleuError.valueTooLong(length: 1001, maximum: 1000)) { try await channel.send(Data(count: 1001)) }

        // The central closes: the peripheral's stream ends; sends on either side fail.
        await channel.close()
        var ended = true
        for try await _ in server.incoming { ended = false }
        #expect(ended)
        await #expect(throws: BleuError.self) { try await channel.send(Data([1])) }

        // A channel open when the link drops ends with the disconnection.
        let another = try await pair.central.openL2CAPChannel(psm: psm, on: id)
        await pair.central.cancelConnection(id)
        await #expect(throws: BleuError.self) { for try await _ in another.incoming {} }
        await pair.stop()
    }
}
