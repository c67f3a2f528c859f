#if !canImport(CoreBluetooth)
import BleuCore
import BleuCoreBluetooth
import BleuEmulator
import Foundation
import Testing

/// An emulator bus with a CoreBluetooth-backed peripheral and a native central.
struct PeripheralRig {
    let bus: EmulatorBus
    let peripheral: CoreBluetoothPeripheralManager
    let central: EmulatedCentralManager
    let store = ValueStore()

    init(configuration: EmulatorConfiguration = .instant, serving: Bool = true, restoreIdentifier: String? = nil) async throws {
        bus = EmulatorBus(configuration: configuration)
        peripheral = CoreBluetoothPeripheralManager(bus: bus, restoreIdentifier: restoreIdentifier)
        central = EmulatedCentralManager(bus: bus)
        try await peripheral.waitUntilPoweredOn()
        if serving { _ = serve(peripheral, from: store) }
    }

    /// Publishes the sample service (and the one it includes), advertises, and connects the
    /// central; returns what the central discovered.
    func publishAndConnect() async throws -> (PublishedService, CentralRig.Connection) {
        _ = try await peripheral.add(.includedSample)
        let service = try await peripheral.add(.sample)
        try await peripheral.startAdvertising(AdvertisingData(localName: "Sample", serviceUUIDs: [SampleUUID.service]))
        let id = try await central.find(name: "Sample")
        try await central.connect(id)
        let services = try await central.discoverServices([SampleUUID.service], on: id)
        let found = try await central.discoverCharacteristics(nil, for: try #require(services.first))
        return (service, CentralRig.Connection(id: id, service: services[0],
                                               characteristics: Dictionary(uniqueKeysWithValues: found.map { ($0.uuid, $0) })))
    }
}

@Suite("CoreBluetoothPeripheralManager: BleuCore's peripheral role over CoreBluetooth's API", .timeLimit(.minutes(1)))
struct PeripheralManagerTests {
    @Test("the event stream starts with the current state")
    func stateFirst() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let peripheral = CoreBluetoothPeripheralManager(bus: bus)
        var events = peripheral.events().makeAsyncIterator()
        guard case .stateChanged? = await events.next() else {
            Issue.record("the stream must start with the state"); return
        }
        try await peripheral.waitUntilPoweredOn()
        #expect(await peripheral.state == .poweredOn)
        #expect(peripheral.restoreIdentifier == nil)
    }

    @Test("adding services: handles laid out as a server's; invalid definitions refused; removal")
    func services() async throws {
        let rig = try await PeripheralRig()
        let included = try await rig.peripheral.add(.includedSample)
        let service = try await rig.peripheral.add(.sample)
        #expect(service.uuid == SampleUUID.service && service.isPrimary)
        #expect(service.handle > included.endHandle, "a service follows the one before")
        #expect(service.characteristics.map(\.uuid) == ServiceDefinition.sample.characteristics.map(\.uuid))
        let handles = service.characteristics.map(\.valueHandle)
        #expect(Set(handles).count == handles.count && handles.allSatisfy { $0 > service.handle && $0 <= service.endHandle })

        // What no backend publishes, and what CoreBluetooth cannot.
        let writableStatic = ServiceDefinition(uuid: BluetoothUUID(0xFFF0), characteristics: [
            CharacteristicDefinition(uuid: BluetoothUUID(0xFFF1), properties: [.read, .write], permissions: .readWrite, value: Data([1])),
        ])
        #expect(isBleuError(await thrownError { try await rig.peripheral.add(writableStatic) }) {
            if case .invalidState = $0 { true } else { false }
        })
        let missingInclude = ServiceDefinition(uuid: BluetoothUUID(0xFFF0), characteristics: [], includedServices: [BluetoothUUID(0xFFEE)])
        #expect(isBleuError(await thrownError { try await rig.peripheral.add(missingInclude) }) {
            if case .invalidState = $0 { true } else { false }
        })
        let otherDescriptor = ServiceDefinition(uuid: BluetoothUUID(0xFFF0), characteristics: [
            CharacteristicDefinition(uuid: BluetoothUUID(0xFFF1), properties: [.read], permissions: .readable,
                                     descriptors: [DescriptorDefinition(uuid: BluetoothUUID(0x2906), value: Data([0, 1]))]),
        ])
        #expect(isBleuError(await thrownError { try await rig.peripheral.add(otherDescriptor) }) {
            if case .notSupported = $0 { true } else { false }
        })

        // The central sees what was published.
        try await rig.peripheral.startAdvertising(AdvertisingData(localName: "Sample"))
        let id = try await rig.central.find(name: "Sample")
        try await rig.central.connect(id)
        let found = try await rig.central.discoverServices(nil, on: id)
        #expect(found.map(\.uuid) == [SampleUUID.service])
        let characteristics = try await rig.central.discoverCharacteristics(nil, for: try #require(found.first))
        #expect(characteristics.map(\.properties) == ServiceDefinition.sample.characteristics.map(\.properties))

        try await rig.peripheral.remove(service)
        #expect(try await rig.central.discoverServices(nil, on: id).isEmpty)
        #expect(isBleuError(await thrownError { try await rig.peripheral.remove(service) }) {
            if case .invalidState = $0 { true } else { false }
        })
        let again = try await rig.peripheral.add(.sample)
        await rig.peripheral.removeAllServices()
        #expect(isBleuError(await thrownError { try await rig.peripheral.remove(again) }) {
            if case .invalidState = $0 { true } else { false }
        })
    }

    @Test("advertising: a local name and service UUIDs reach a scanner; other fields and oversized data are refused")
    func advertising() async throws {
        let rig = try await PeripheralRig()
        #expect(await !rig.peripheral.isAdvertising)
        try await rig.peripheral.startAdvertising(AdvertisingData(flags: .leGeneralDiscoverable, serviceUUIDs: [SampleUUID.service]),
                                                  scanResponse: AdvertisingData(localName: "Sample"))
        #expect(await rig.peripheral.isAdvertising)
        let scan = try await rig.central.scan(ScanOptions(services: [SampleUUID.service]))
        var advertisements = scan.makeAsyncIterator()
        let heard = try #require(try await advertisements.next())
        #expect(heard.localName == "Sample")
        #expect(heard.data.serviceUUIDs == [SampleUUID.service])
        await rig.central.stopScan()

        #expect(isBleuError(await thrownError {
            try await rig.peripheral.startAdvertising(AdvertisingData(localName: "Sample", manufacturerData: ManufacturerData(companyID: 0x004C, data: Data([1]))))
        }) { if case .notSupported = $0 { true } else { false } })
        #expect(isBleuError(await thrownError {
            try await rig.peripheral.startAdvertising(AdvertisingData(localName: String(repeating: "N", count: 40)))
        }) { if case .invalidData = $0 { true } else { false } })
        await rig.peripheral.stopAdvertising()
        #expect(await !rig.peripheral.isAdvertising)
    }

    @Test("read requests: the central is reported, then each read; answers from the offset, ATT errors arrive as such")
    func readRequests() async throws {
        let rig = try await PeripheralRig(serving: false)
        let events = rig.peripheral.events()
        let (_, connection) = try await rig.publishAndConnect()
        let long = Data((0..<300).map { UInt8($0 % 199) })
        let log = Locked<[String]>([])
        let application = Task {
            for await event in events {
                switch event {
                case .centralConnected(let central):
                    log.withLock { $0.append("connected \(central)") }
                case .readRequest(let request) where request.characteristic.uuid == SampleUUID.readOnly:
                    log.withLock { $0.append("read \(request.offset) from \(request.central)") }
                    await rig.peripheral.respond(to: request, with: .success(Data(long.dropFirst(request.offset))))
                    await rig.peripheral.respond(to: request, with: .failure(.unlikelyError))  // a second answer is ignored
                case .readRequest(let request):
                    await rig.peripheral.respond(to: request, with: .failure(.insufficientAuthorization))
                default:
                    continue
                }
            }
        }
        defer { application.cancel() }
        #expect(try await rig.central.read(connection[SampleUUID.readOnly]) == long, "a long value is read whole, through offset requests")
        #expect(await thrownError { try await rig.central.read(connection[SampleUUID.value]) } as? BleuError
            == .att(.insufficientAuthorization))
        #expect(try await rig.central.read(connection[SampleUUID.fixed]) == Data("fixed".utf8), "a static value needs no answer")
        let entries = log.withLock { $0 }
        let central = try #require(entries.first?.dropFirst("connected ".count))
        #expect(entries.filter { $0.hasPrefix("connected") }.count == 1, "the central is reported once")
        let reads = entries.dropFirst()
        #expect(reads.count > 1 && reads.first == "read 0 from \(central)")
        #expect(reads.allSatisfy { $0.hasSuffix("from \(central)") })
    }

    @Test("write requests: answered writes succeed or fail at the central; long writes arrive as one batch; commands need no answer")
    func writeRequests() async throws {
        let rig = try await PeripheralRig()
        let (_, connection) = try await rig.publishAndConnect()
        var writes = rig.store.writes.makeAsyncIterator()
        try await rig.central.write(Data("short".utf8), to: connection[SampleUUID.value], type: .withResponse)
        let short = try #require(await writes.next())
        #expect(short.needsResponse && short.requests.map(\.value) == [Data("short".utf8)])

        let long = Data((0..<400).map { UInt8(($0 * 3) % 256) })
        try await rig.central.write(long, to: connection[SampleUUID.value], type: .withResponse)
        let batch = try #require(await writes.next())
        #expect(batch.requests.count > 1, "a long write arrives as the prepared writes of one batch")
        #expect(batch.requests.first?.offset == 0)
        #expect(rig.store.value(SampleUUID.value) == .success(long))

        rig.store.fail(SampleUUID.value, with: .writeNotPermitted)
        #expect(await thrownError { try await rig.central.write(Data([1]), to: connection[SampleUUID.value], type: .withResponse) }
            as? BleuError == .att(.writeNotPermitted))
        _ = await writes.next()

        try await rig.central.write(Data([7, 7]), to: connection[SampleUUID.command], type: .withoutResponse)
        let command = try #require(await writes.next())
        #expect(!command.needsResponse && command.requests.map(\.value) == [Data([7, 7])])
    }

    @Test("notifications: subscribed, values in order; updateValue false while the queue is full, then ready; nothing lost")
    func notifications() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.notificationQueueDepth = 2
        configuration.subscriptionBufferLimit = 2
        let rig = try await PeripheralRig(configuration: configuration)
        var events = rig.peripheral.events().makeAsyncIterator()
        let (service, connection) = try await rig.publishAndConnect()
        let characteristic = try #require(service.characteristic(SampleUUID.stream))
        let values = try await rig.central.subscribe(to: connection[SampleUUID.stream])
        var subscriber: UUID?
        while let event = await events.next() {
            if case .subscribed(let central, let subscribed) = event {
                #expect(subscribed == characteristic)
                subscriber = central
                break
            }
        }
        let central = try #require(subscriber)
        #expect(await rig.peripheral.maximumUpdateValueLength(for: central) == EmulatorConfiguration.instant.centralMTU - 3)

        // The central does not read yet: its stream and the link fill, then updateValue refuses.
        var sent = 0
        while await rig.peripheral.updateValue(Data([UInt8(sent)]), for: characteristic) {
            sent += 1
            #expect(sent < 100, "the queue never filled")
            if sent >= 100 { return }
        }
        #expect(sent >= 2)
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next() == Data([0]))
        var ready = false
        while let event = await events.next() {
            if case .readyToUpdateSubscribers = event { ready = true; break }
        }
        #expect(ready)
        #expect(await rig.peripheral.updateValue(Data([UInt8(sent)]), for: characteristic))
        for value in 1...sent {
            #expect(try await iterator.next() == Data([UInt8(value)]), "every value arrives, in order")
        }
        // Addressed to another central only, or longer than this central's notifications
        // carry: nothing is sent to it, so the next value it gets is the one after.
        #expect(await rig.peripheral.updateValue(Data([0xEE]), for: characteristic, onSubscribedCentrals: [UUID()]))
        #expect(await rig.peripheral.updateValue(Data(count: EmulatorConfiguration.instant.centralMTU - 2), for: characteristic))
        #expect(await rig.peripheral.updateValue(Data([0xAB]), for: characteristic, onSubscribedCentrals: [central]))
        #expect(try await iterator.next() == Data([0xAB]))

        try await rig.central.unsubscribe(from: connection[SampleUUID.stream])
        while let event = await events.next() {
            if case .unsubscribed(central, characteristic) = event { break }
        }
    }

    @Test("L2CAP: a published PSM takes a central's channel; bytes move both ways; unpublishing")
    func l2cap() async throws {
        let rig = try await PeripheralRig()
        var events = rig.peripheral.events().makeAsyncIterator()
        let (_, connection) = try await rig.publishAndConnect()
        let psm = try await rig.peripheral.publishL2CAPChannel(requiresEncryption: false)
        #expect((0x0080...0x00FF).contains(psm))
        let channel = try await rig.central.openL2CAPChannel(psm: psm, on: connection.id)
        var opened: (any L2CAPChannel)?
        while let event = await events.next() {
            if case .l2capChannelOpened(let accepted) = event { opened = accepted; break }
        }
        let accepted = try #require(opened)
        #expect(accepted.psm == psm)

        let toPeripheral = Data((0..<90_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let sending = Task {
            for start in stride(from: 0, to: toPeripheral.count, by: 1500) {
                try await channel.send(toPeripheral[start..<min(start + 1500, toPeripheral.count)])
            }
        }
        #expect(try await collect(toPeripheral.count, from: accepted.incoming) == toPeripheral)
        try await sending.value

        let toCentral = Data((0..<90_000).map { UInt8(truncatingIfNeeded: $0 &* 5) })
        let replying = Task { try await accepted.send(toCentral) }
        #expect(try await collect(toCentral.count, from: channel.incoming) == toCentral)
        try await replying.value

        await channel.close()
        var rest = accepted.incoming.makeAsyncIterator()
        #expect(try await rest.next() == nil, "the central's close ends the peripheral's data")

        try await rig.peripheral.unpublishL2CAPChannel(psm)
        #expect(isBleuError(await thrownError { try await rig.peripheral.unpublishL2CAPChannel(psm) }) {
            if case .invalidState = $0 { true } else { false }
        })
        #expect(isBleuError(await thrownError { try await rig.central.openL2CAPChannel(psm: psm, on: connection.id) }) {
            if case .notSupported = $0 { true } else { false }
        })
    }

    @Test("the radio powered off: services are dropped and operations throw its state")
    func poweredOff() async throws {
        let rig = try await PeripheralRig()
        let (service, _) = try await rig.publishAndConnect()
        var events = rig.peripheral.events().makeAsyncIterator()
        rig.bus.setState(.poweredOff, of: rig.peripheral.emulatorManager)
        _ = await events.next()
        guard case .stateChanged(.poweredOff)? = await events.next() else {
            Issue.record("the state change is reported"); return
        }
        #expect(await thrownError { try await rig.peripheral.add(.sample) } as? BleuError == .bluetoothPoweredOff)
        #expect(await thrownError { try await rig.peripheral.remove(service) } as? BleuError == .bluetoothPoweredOff)
        #expect(await !rig.peripheral.updateValue(Data([1]), for: try #require(service.characteristic(SampleUUID.stream))))
        #expect(await !rig.peripheral.isAdvertising)
        rig.bus.setState(.poweredOn, of: rig.peripheral.emulatorManager)
        guard case .stateChanged(.poweredOn)? = await events.next() else {
            Issue.record("back on"); return
        }
        #expect(try await rig.peripheral.add(.includedSample).uuid == SampleUUID.included, "the database starts again empty")
    }

    @Test("restoration: a manager with its predecessor's identifier gets its services and advertising, and serves them")
    func restoration() async throws {
        var rig: PeripheralRig? = try await PeripheralRig(restoreIdentifier: "peripheral.app")
        let bus = try #require(rig?.bus)
        let central = try #require(rig?.central)
        let (published, connection) = try await rig!.publishAndConnect()
        rig = nil  // the application goes away; the system keeps its services and advertising

        let restored = CoreBluetoothPeripheralManager(bus: bus, restoreIdentifier: "peripheral.app")
        var events = restored.events().makeAsyncIterator()
        var restoration: PeripheralRestoration?
        while let event = await events.next() {
            if case .willRestoreState(let restored) = event { restoration = restored; break }
        }
        let state = try #require(restoration)
        #expect(state.services.map(\.uuid) == [SampleUUID.included, SampleUUID.service])
        #expect(state.services.last?.characteristics.map(\.uuid) == published.characteristics.map(\.uuid))
        #expect(state.advertisement?.localName == "Sample")
        #expect(state.advertisement?.serviceUUIDs == [SampleUUID.service])
        try await restored.waitUntilPoweredOn()

        // The restored characteristic notifies the central.
        let values = try await central.subscribe(to: connection[SampleUUID.stream])
        let characteristic = try #require(state.services.last?.characteristic(SampleUUID.stream))
        while let event = await events.next() {
            if case .subscribed = event { break }
        }
        #expect(await restored.updateValue(Data([42]), for: characteristic))
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next() == Data([42]))
    }
}
#endif
