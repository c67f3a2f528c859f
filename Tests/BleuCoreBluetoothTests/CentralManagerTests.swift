#if !canImport(CoreBluetooth)
import BleuCore
import BleuCoreBluetooth
import BleuEmulator
import Foundation
import Testing

@Suite("CoreBluetoothCentralManager: BleuCore's central role over CoreBluetooth's API", .timeLimit(.minutes(1)))
struct CentralManagerTests {
    @Test("the event stream starts with the current state; poweredOn follows and the state reads it")
    func stateFirst() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let central = CoreBluetoothCentralManager(bus: bus)
        var events = central.events().makeAsyncIterator()
        guard case .stateChanged(let first)? = await events.next() else {
            Issue.record("the stream must start with the state"); return
        }
        if first != .poweredOn {
            guard case .stateChanged(.poweredOn)? = await events.next() else {
                Issue.record("poweredOn follows"); return
            }
        }
        #expect(await central.state == .poweredOn)
        // A stream opened now starts with poweredOn.
        var later = central.events().makeAsyncIterator()
        guard case .stateChanged(.poweredOn)? = await later.next() else {
            Issue.record("a new stream starts with the current state"); return
        }
        #expect(central.restoreIdentifier == nil)
    }

    @Test("a scan with a service filter reports the matching advertisers as Advertisements, each once")
    func scanWithFilter() async throws {
        let rig = try await CentralRig()
        let other = EmulatedPeripheralManager(bus: rig.bus)
        try await other.startAdvertising(AdvertisingData(localName: "Other"))
        let scan = try await rig.central.scan(ScanOptions(services: [SampleUUID.service]))
        var advertisements = scan.makeAsyncIterator()
        let first = try #require(try await advertisements.next())
        #expect(first.localName == "Sample")
        #expect(first.data.serviceUUIDs == [SampleUUID.service])
        #expect(first.isConnectable)
        // Advertising again is a duplicate, not reported; a second matching advertiser is.
        try await rig.peripheral.startAdvertising(AdvertisingData(localName: "Sample", serviceUUIDs: [SampleUUID.service]))
        let third = EmulatedPeripheralManager(bus: rig.bus)
        try await third.startAdvertising(AdvertisingData(localName: "Third", serviceUUIDs: [SampleUUID.service]))
        let second = try #require(try await advertisements.next())
        #expect(second.localName == "Third")
        #expect(second.peripheral != first.peripheral)
        await rig.central.stopScan()
        #expect(try await advertisements.next() == nil, "stopScan ends the stream")
    }

    @Test("with allowDuplicates an advertiser is reported again")
    func scanWithDuplicates() async throws {
        let rig = try await CentralRig()
        let scan = try await rig.central.scan(ScanOptions(allowDuplicates: true))
        var advertisements = scan.makeAsyncIterator()
        let first = try #require(try await advertisements.next())
        try await rig.peripheral.startAdvertising(AdvertisingData(localName: "Sample", serviceUUIDs: [SampleUUID.service]))
        let again = try #require(try await advertisements.next())
        #expect(again.peripheral == first.peripheral)
        // A new scan ends the running one.
        _ = try await rig.central.scan(ScanOptions())
        #expect(try await advertisements.next() == nil)
    }

    @Test("connect and cancel: connected, then disconnected with localHostTerminated")
    func connectAndCancel() async throws {
        let rig = try await CentralRig()
        let id = try await rig.central.find(name: "Sample")
        var events = rig.central.events().makeAsyncIterator()
        #expect(await !rig.central.isConnected(id))
        try await rig.central.connect(id)
        #expect(await rig.central.isConnected(id))
        guard case .connected(id)? = await events.next(skippingStates: true) else {
            Issue.record("connected is reported"); return
        }
        try await rig.central.connect(id)  // connected already: returns at once
        #expect(await rig.central.retrieveConnectedPeripherals(withServices: []).map(\.id) == [id])
        #expect(await rig.central.retrievePeripherals(withIdentifiers: [id]).first?.name == "Sample")
        await rig.central.cancelConnection(id)
        #expect(await !rig.central.isConnected(id))
        guard case .disconnected(id, .localHostTerminated)? = await events.next(skippingStates: true) else {
            Issue.record("the disconnection is reported as this side's"); return
        }
        await rig.central.cancelConnection(id)  // not connected: nothing happens
    }

    @Test("link loss and the peer's power-off are reported with their reasons")
    func disconnectionReasons() async throws {
        let rig = try await CentralRig()
        let id = try await rig.central.find(name: "Sample")
        var events = rig.central.events().makeAsyncIterator()
        try await rig.central.connect(id)
        rig.bus.loseLink(between: rig.central.emulatorManager, and: id)
        guard case .connected? = await events.next(skippingStates: true),
              case .disconnected(id, .supervisionTimeout)? = await events.next(skippingStates: true) else {
            Issue.record("link loss is a supervision timeout"); return
        }
        try await rig.central.connect(id)
        rig.bus.setState(.poweredOff, of: rig.peripheral)
        guard case .connected? = await events.next(skippingStates: true),
              case .disconnected(id, .remoteUserTerminated)? = await events.next(skippingStates: true) else {
            Issue.record("the peer's end is the remote side's"); return
        }
    }

    @Test("connect throws peripheralNotFound for an unknown identifier and connectionTimeout after its timeout")
    func connectFailures() async throws {
        let rig = try await CentralRig()
        let unknown = UUID()
        #expect(await thrownError { try await rig.central.connect(unknown) } as? BleuError == .peripheralNotFound(unknown))
        let id = try await rig.central.find(name: "Sample")
        await rig.peripheral.stopAdvertising()
        #expect(await thrownError { try await rig.central.connect(id, timeout: .milliseconds(50)) } as? BleuError
            == .connectionTimeout(id))
        #expect(await !rig.central.isConnected(id))
        // The attempt was cancelled: advertising again does not connect.
        try await rig.peripheral.startAdvertising(AdvertisingData(localName: "Sample"))
        #expect(await !rig.central.isConnected(id))
        try await rig.central.connect(id)
        #expect(await rig.central.isConnected(id))
    }

    @Test("every discovery level: services (filtered), included services, characteristics, descriptors; handles are stable")
    func discovery() async throws {
        let rig = try await CentralRig()
        let id = try await rig.central.find(name: "Sample")
        try await rig.central.connect(id)
        let all = try await rig.central.discoverServices(nil, on: id)
        #expect(all.map(\.uuid) == [SampleUUID.service])
        let service = try #require(all.first)
        #expect(service.isPrimary && service.peripheral == id)
        #expect(try await rig.central.discoverServices([BluetoothUUID(0x180F)], on: id).isEmpty)

        let included = try await rig.central.discoverIncludedServices(nil, for: service)
        #expect(included.map(\.uuid) == [SampleUUID.included])
        #expect(included.first?.isPrimary == false)
        let inner = try await rig.central.discoverCharacteristics(nil, for: try #require(included.first))
        #expect(inner.map(\.uuid) == [SampleUUID.inner])
        #expect(try await rig.central.read(inner[0]) == Data("inner".utf8))

        let characteristics = try await rig.central.discoverCharacteristics(nil, for: service)
        #expect(characteristics.map(\.uuid) == ServiceDefinition.sample.characteristics.map(\.uuid))
        #expect(characteristics.map(\.properties) == ServiceDefinition.sample.characteristics.map(\.properties))
        #expect(characteristics.allSatisfy { $0.service == SampleUUID.service && $0.valueHandle == $0.handle + 1 })
        let handles = [service.handle] + included.map(\.handle) + characteristics.flatMap { [$0.handle, $0.valueHandle] }
        #expect(Set(handles).count == handles.count, "handles are unique on the peripheral")
        let filtered = try await rig.central.discoverCharacteristics([SampleUUID.stream], for: service)
        #expect(filtered.map(\.uuid) == [SampleUUID.stream])

        let value = try #require(characteristics.first { $0.uuid == SampleUUID.value })
        let descriptors = try await rig.central.discoverDescriptors(for: value)
        #expect(descriptors.map(\.uuid).contains(BluetoothUUID.Descriptor.characteristicUserDescription))
        #expect(descriptors.allSatisfy { $0.characteristic == SampleUUID.value && $0.characteristicValueHandle == value.valueHandle })

        // Found again, an attribute keeps its handle — also after a reconnection.
        #expect(try await rig.central.discoverServices(nil, on: id) == all)
        await rig.central.cancelConnection(id)
        try await rig.central.connect(id)
        let again = try await rig.central.discoverServices(nil, on: id)
        #expect(again == all)
        #expect(try await rig.central.discoverCharacteristics(nil, for: again[0]) == characteristics)
    }

    @Test("reads and writes, with and without response, long values included")
    func readAndWrite() async throws {
        let rig = try await CentralRig()
        let connection = try await rig.connect()
        let long = Data((0..<300).map { UInt8($0 % 251) })
        rig.store.set(long, for: SampleUUID.value)
        #expect(try await rig.central.read(connection[SampleUUID.value]) == long, "a long read comes whole")
        #expect(try await rig.central.read(connection[SampleUUID.fixed]) == Data("fixed".utf8))

        let written = Data((0..<400).map { UInt8(($0 * 7) % 256) })
        try await rig.central.write(written, to: connection[SampleUUID.value], type: .withResponse)
        #expect(rig.store.value(SampleUUID.value) == .success(written), "a long write arrives whole")

        var writes = rig.store.writes.makeAsyncIterator()
        _ = await writes.next()  // the long write's batch
        try await rig.central.write(Data([1, 2, 3]), to: connection[SampleUUID.command], type: .withoutResponse)
        let command = try #require(await writes.next())
        #expect(!command.needsResponse)
        #expect(command.requests.map(\.value) == [Data([1, 2, 3])])

        let maximum = try await rig.central.maximumWriteValueLength(for: connection.id, type: .withoutResponse)
        #expect(await thrownError {
            try await rig.central.write(Data(count: maximum + 1), to: connection[SampleUUID.command], type: .withoutResponse)
        } as? BleuError == .valueTooLong(length: maximum + 1, maximum: maximum))
        #expect(await thrownError {
            try await rig.central.write(Data(count: 513), to: connection[SampleUUID.value], type: .withResponse)
        } as? BleuError == .valueTooLong(length: 513, maximum: 512))
        #expect(isBleuError(await thrownError {
            try await rig.central.write(Data([1]), to: connection[SampleUUID.command], type: .withResponse)
        }) { if case .notSupported = $0 { true } else { false } })
        #expect(isBleuError(await thrownError {
            try await rig.central.write(Data([1]), to: connection[SampleUUID.stream], type: .withoutResponse)
        }) { if case .notSupported = $0 { true } else { false } })
    }

    @Test("the peripheral's ATT errors come back as BleuError.att with their code")
    func attErrors() async throws {
        let rig = try await CentralRig()
        let connection = try await rig.connect()
        rig.store.fail(SampleUUID.readOnly, with: .insufficientAuthorization)
        #expect(await thrownError { try await rig.central.read(connection[SampleUUID.readOnly]) } as? BleuError
            == .att(.insufficientAuthorization))
        rig.store.fail(SampleUUID.value, with: ATTError(0x80))
        #expect(await thrownError { try await rig.central.write(Data([1]), to: connection[SampleUUID.value], type: .withResponse) }
            as? BleuError == .att(ATTError(0x80)), "an application error keeps its code")
        // The server itself refuses: reading a characteristic that cannot be read.
        #expect(await thrownError { try await rig.central.read(connection[SampleUUID.command]) } as? BleuError
            == .att(.readNotPermitted))
    }

    @Test("descriptors: a user description reads as its bytes; the configuration descriptor is CoreBluetooth's to write")
    func descriptors() async throws {
        let rig = try await CentralRig()
        let connection = try await rig.connect()
        let descriptors = try await rig.central.discoverDescriptors(for: connection[SampleUUID.value])
        let description = try #require(descriptors.first { $0.uuid == BluetoothUUID.Descriptor.characteristicUserDescription })
        #expect(try await rig.central.read(description) == Data("value".utf8))
        let configuration = try #require(try await rig.central.discoverDescriptors(for: connection[SampleUUID.stream])
            .first { $0.uuid == BluetoothUUID.Descriptor.clientCharacteristicConfiguration })
        #expect(try await rig.central.read(configuration) == Data([0, 0]))
        #expect(isBleuError(await thrownError { try await rig.central.write(Data([1, 0]), to: configuration) }) {
            if case .notSupported = $0 { true } else { false }
        })
        // The server refuses a write to the read-only user description.
        #expect(await thrownError { try await rig.central.write(Data("x".utf8), to: description) } as? BleuError
            == .att(.writeNotPermitted))
    }

    @Test("subscriptions: values arrive in order on every stream; unsubscribe ends them")
    func subscriptions() async throws {
        let rig = try await CentralRig()
        let connection = try await rig.connect()
        let stream = connection[SampleUUID.stream]
        let first = try await rig.central.subscribe(to: stream)
        let second = try await rig.central.subscribe(to: stream)
        let published = try #require(rig.service.characteristic(SampleUUID.stream))
        for value in 1...5 {
            #expect(await rig.peripheral.updateValue(Data([UInt8(value)]), for: published))
        }
        var firstValues = first.makeAsyncIterator()
        var secondValues = second.makeAsyncIterator()
        for value in 1...5 {
            #expect(try await firstValues.next() == Data([UInt8(value)]))
            #expect(try await secondValues.next() == Data([UInt8(value)]))
        }
        try await rig.central.unsubscribe(from: stream)
        #expect(try await firstValues.next() == nil)
        #expect(try await secondValues.next() == nil)
        // Indications too; a characteristic that does neither is refused.
        let indicated = try await rig.central.subscribe(to: connection[SampleUUID.indicated])
        #expect(await rig.peripheral.updateValue(Data([9]), for: try #require(rig.service.characteristic(SampleUUID.indicated))))
        var indications = indicated.makeAsyncIterator()
        #expect(try await indications.next() == Data([9]))
        #expect(isBleuError(await thrownError { try await rig.central.subscribe(to: connection[SampleUUID.fixed]) }) {
            if case .notSupported = $0 { true } else { false }
        })
    }

    @Test("a receiver is handed the values from the delegate's callback; cancel stops it; unsubscribe and link loss end it")
    func receivers() async throws {
        let rig = try await CentralRig()
        let connection = try await rig.connect()
        let stream = connection[SampleUUID.stream]
        let published = try #require(rig.service.characteristic(SampleUUID.stream))
        let (deliveries, sink) = AsyncStream.makeStream(of: ValueDelivery.self)
        _ = try await rig.central.subscribe(to: stream, receive: { sink.yield($0) })
        let (afterCancel, cancelledSink) = AsyncStream.makeStream(of: ValueDelivery.self)
        try await rig.central.subscribe(to: stream, receive: { cancelledSink.yield($0) }).cancel()
        for value in 1...5 {
            #expect(await rig.peripheral.updateValue(Data([UInt8(value)]), for: published))
        }
        var received = deliveries.makeAsyncIterator()
        for value in 1...5 {
            guard case .value(let data)? = await received.next() else { Issue.record("value \(value) missing"); return }
            #expect(data == Data([UInt8(value)]))
        }
        try await rig.central.unsubscribe(from: stream)
        guard case .end(nil)? = await received.next() else { Issue.record("no end after unsubscribing"); return }
        // The cancelled receiver got nothing, not even the end.
        cancelledSink.finish()
        var cancelled = afterCancel.makeAsyncIterator()
        #expect(await cancelled.next() == nil)

        let (lossDeliveries, lossSink) = AsyncStream.makeStream(of: ValueDelivery.self)
        _ = try await rig.central.subscribe(to: stream, receive: { lossSink.yield($0) })
        rig.bus.loseLink(between: rig.central.emulatorManager, and: connection.id)
        var loss = lossDeliveries.makeAsyncIterator()
        guard case .end(let error as BleuError)? = await loss.next() else { Issue.record("no end on link loss"); return }
        #expect(error == .disconnected(connection.id, .supervisionTimeout))
        #expect(isBleuError(await thrownError { _ = try await rig.central.subscribe(to: connection[SampleUUID.fixed], receive: { _ in }) }) {
            if case .notConnected = $0 { true } else { false }
        })
    }

    @Test("link loss ends a subscription with BleuError.disconnected and fails what waits")
    func subscriptionEndsOnLinkLoss() async throws {
        let rig = try await CentralRig(silent: [SampleUUID.readOnly])
        let connection = try await rig.connect()
        let values = try await rig.central.subscribe(to: connection[SampleUUID.stream])
        let pendingRead = Task { try await rig.central.read(connection[SampleUUID.readOnly]) }
        var peripheralEvents = rig.peripheral.events().makeAsyncIterator()
        while let event = await peripheralEvents.next() {
            if case .readRequest = event { break }  // the read is on its way and will not be answered
        }
        rig.bus.loseLink(between: rig.central.emulatorManager, and: connection.id)
        var iterator = values.makeAsyncIterator()
        #expect(await thrownError { try await iterator.next() } as? BleuError == .disconnected(connection.id, .supervisionTimeout))
        let readError = await thrownError { try await pendingRead.value }
        #expect(readError as? BleuError == .disconnected(connection.id, .supervisionTimeout), "\(String(describing: readError))")
        #expect(await thrownError { try await rig.central.read(connection[SampleUUID.value]) } as? BleuError
            == .notConnected(connection.id))
    }

    @Test("writes without response are flow-controlled: sendQueueFull, then readyToSendWriteWithoutResponse")
    func writeWithoutResponseFlowControl() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.writeWithoutResponseQueueDepth = 2
        let rig = try await CentralRig(configuration: configuration, serving: false)
        // The peripheral's application does not take its events yet: the link's slots stay taken.
        let peripheralEvents = rig.peripheral.events()
        let connection = try await rig.connect()
        var events = rig.central.events().makeAsyncIterator()
        #expect(await rig.central.canSendWriteWithoutResponse(to: connection.id))
        var sent = 0
        while await rig.central.canSendWriteWithoutResponse(to: connection.id) {
            try await rig.central.write(Data([UInt8(sent)]), to: connection[SampleUUID.command], type: .withoutResponse)
            sent += 1
        }
        #expect(sent == 2)
        #expect(await thrownError {
            try await rig.central.write(Data([0xFF]), to: connection[SampleUUID.command], type: .withoutResponse)
        } as? BleuError == .sendQueueFull(connection.id))
        // The application takes its events: the slots free and the central hears it is ready.
        let application = Task {
            for await event in peripheralEvents {
                if case .writeRequests = event { continue }
            }
        }
        defer { application.cancel() }
        var ready = false
        while let event = await events.next() {
            if case .readyToSendWriteWithoutResponse(connection.id) = event { ready = true; break }
        }
        #expect(ready)
        #expect(await rig.central.canSendWriteWithoutResponse(to: connection.id))
        try await rig.central.write(Data([0xFE]), to: connection[SampleUUID.command], type: .withoutResponse)
    }

    @Test("link properties: RSSI, ATT MTU and the longest writes; without a link, notConnected")
    func linkProperties() async throws {
        let rig = try await CentralRig()
        let connection = try await rig.connect()
        let rssi = try await rig.central.readRSSI(of: connection.id)
        #expect((-127...20).contains(rssi))
        let mtu = try await rig.central.attMTU(for: connection.id)
        #expect(mtu == min(EmulatorConfiguration.instant.centralMTU, EmulatorConfiguration.instant.peripheralMTU))
        #expect(try await rig.central.maximumWriteValueLength(for: connection.id, type: .withoutResponse) == mtu - 3)
        #expect(try await rig.central.maximumWriteValueLength(for: connection.id, type: .withResponse) == 512)
        await rig.central.cancelConnection(connection.id)
        #expect(await thrownError { try await rig.central.attMTU(for: connection.id) } as? BleuError == .notConnected(connection.id))
        #expect(await thrownError { try await rig.central.readRSSI(of: connection.id) } as? BleuError == .notConnected(connection.id))
        #expect(await thrownError { try await rig.central.discoverServices(nil, on: connection.id) } as? BleuError
            == .notConnected(connection.id))
    }

    @Test("the radio powered off: the scan ends and connections end with its state; operations throw it")
    func poweredOff() async throws {
        let rig = try await CentralRig()
        let connection = try await rig.connect()
        let values = try await rig.central.subscribe(to: connection[SampleUUID.stream])
        let scan = try await rig.central.scan(ScanOptions(services: [BluetoothUUID(0x180F)]))
        var events = rig.central.events().makeAsyncIterator()
        rig.bus.setState(.poweredOff, of: rig.central.emulatorManager)
        var advertisements = scan.makeAsyncIterator()
        #expect(await thrownError { try await advertisements.next() } as? BleuError == .bluetoothPoweredOff)
        var iterator = values.makeAsyncIterator()
        #expect(await thrownError { try await iterator.next() } as? BleuError == .disconnected(connection.id, .poweredOff))
        _ = await events.next()  // the state at subscription
        guard case .stateChanged(.poweredOff)? = await events.next(),
              case .disconnected(connection.id, .poweredOff)? = await events.next() else {
            Issue.record("the state change, then the disconnection"); return
        }
        #expect(await rig.central.state == .poweredOff)
        #expect(await thrownError { try await rig.central.scan() } as? BleuError == .bluetoothPoweredOff)
        #expect(await thrownError { try await rig.central.connect(connection.id) } as? BleuError == .bluetoothPoweredOff)
    }

    @Test("cancelling the calling task ends a wait with BleuError.cancelled")
    func cancellation() async throws {
        let rig = try await CentralRig(silent: [SampleUUID.readOnly])
        let connection = try await rig.connect()
        var peripheralEvents = rig.peripheral.events().makeAsyncIterator()
        let read = Task { try await rig.central.read(connection[SampleUUID.readOnly]) }
        while let event = await peripheralEvents.next() {
            if case .readRequest = event { break }
        }
        read.cancel()
        #expect(await thrownError { try await read.value } as? BleuError == .cancelled)
        // A task cancelled before it starts never reaches the radio.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await rig.central.discoverServices(nil, on: connection.id)
        }
        #expect(await thrownError { try await early.value } as? BleuError == .cancelled)
        #expect(await rig.central.isConnected(connection.id))
    }

    @Test("L2CAP: a channel carries bytes both ways in order, with back-pressure; closing ends the peer's data")
    func l2cap() async throws {
        let rig = try await CentralRig()
        let connection = try await rig.connect()
        var peripheralEvents = rig.peripheral.events().makeAsyncIterator()
        let psm = try await rig.peripheral.publishL2CAPChannel(requiresEncryption: false)
        let channel = try await rig.central.openL2CAPChannel(psm: psm, on: connection.id)
        #expect(channel.psm == psm && channel.peer == connection.id)
        var accepted: (any L2CAPChannel)?
        while let event = await peripheralEvents.next() {
            if case .l2capChannelOpened(let opened) = event { accepted = opened; break }
        }
        let remote = try #require(accepted)

        // Central to peripheral: more than the channel's buffers hold, so sends wait for room.
        let outgoing = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let sending = Task {
            for start in stride(from: 0, to: outgoing.count, by: 1000) {
                try await channel.send(outgoing[start..<min(start + 1000, outgoing.count)])
            }
        }
        #expect(try await collect(outgoing.count, from: remote.incoming) == outgoing)
        try await sending.value

        // Peripheral to central.
        let incoming = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let replying = Task {
            for start in stride(from: 0, to: incoming.count, by: 700) {
                try await remote.send(incoming[start..<min(start + 700, incoming.count)])
            }
        }
        #expect(try await collect(incoming.count, from: channel.incoming) == incoming)
        try await replying.value

        await channel.close()
        var rest = remote.incoming.makeAsyncIterator()
        #expect(try await rest.next() == nil, "the peer's data ends when the channel closes")
        #expect(isBleuError(await thrownError { try await channel.send(Data([1])) }) {
            if case .invalidState = $0 { true } else { false }
        })
        #expect(isBleuError(await thrownError { try await rig.central.openL2CAPChannel(psm: psm &+ 1, on: connection.id) }) {
            if case .notSupported = $0 { true } else { false }
        })

        // A channel open when the link drops ends with the disconnection.
        let second = try await rig.central.openL2CAPChannel(psm: psm, on: connection.id)
        rig.bus.loseLink(between: rig.central.emulatorManager, and: connection.id)
        var data = second.incoming.makeAsyncIterator()
        #expect(isBleuError(await thrownError { try await data.next() }) {
            if case .disconnected(connection.id, _) = $0 { true } else { false }
        })
        #expect(isBleuError(await thrownError { try await second.send(Data([1])) }) {
            if case .disconnected(connection.id, _) = $0 { true } else { false }
        })
    }

    @Test("restoration: a manager with its predecessor's identifier gets its connections and scan, before its state")
    func restoration() async throws {
        let rig = try await CentralRig(centralRestoreIdentifier: "central.app")
        let id = try await rig.central.find(name: "Sample")
        try await rig.central.connect(id)
        let filter = ScanOptions(services: [SampleUUID.service])
        _ = try await rig.central.scan(filter)
        #expect(rig.central.restoreIdentifier == "central.app")

        let restored = CoreBluetoothCentralManager(bus: rig.bus, restoreIdentifier: "central.app")
        var events = restored.events().makeAsyncIterator()
        guard case .stateChanged(let initial)? = await events.next(),
              case .willRestoreState(let restoration)? = await events.next() else {
            Issue.record("the state, then the restoration"); return
        }
        #expect(restoration.peripherals == [id])
        #expect(restoration.scanOptions == filter)
        if initial != .poweredOn {
            // Opened before CoreBluetooth's first callbacks: the state follows the restoration.
            guard case .stateChanged(.poweredOn)? = await events.next() else {
                Issue.record("the state follows the restoration"); return
            }
        }
        #expect(await restored.isConnected(id))
        let services = try await restored.discoverServices([SampleUUID.service], on: id)
        let characteristics = try await restored.discoverCharacteristics([SampleUUID.fixed], for: try #require(services.first))
        #expect(try await restored.read(try #require(characteristics.first)) == Data("fixed".utf8))
        // A later stream starts with the state and the restoration.
        var later = restored.events().makeAsyncIterator()
        guard case .stateChanged(.poweredOn)? = await later.next(), case .willRestoreState? = await later.next() else {
            Issue.record("a new stream repeats the restoration after the state"); return
        }
    }
}

/// The first `count` bytes of a channel's data, however the stream cuts them.
func collect(_ count: Int, from stream: AsyncThrowingStream<Data, any Error>) async throws -> Data {
    var received = Data()
    for try await piece in stream {
        received += piece
        if received.count >= count { break }
    }
    return received
}

extension AsyncStream<CentralEvent>.Iterator {
    /// The next event that is not a state change (or any event, when `skippingStates` is false).
    mutating func next(skippingStates: Bool) async -> CentralEvent? {
        while let event = await next() {
            if skippingStates, case .stateChanged = event { continue }
            return event
        }
        return nil
    }
}
#endif
