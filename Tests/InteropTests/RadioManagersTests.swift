import BleuCore
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

    @Test("scan, connect (MTU 517), discover, read a long value, write both ways, long write, subscribe, disconnect")
    func gattOverTheRadio() async throws {
        let pair = try await RadioPair.start()
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
