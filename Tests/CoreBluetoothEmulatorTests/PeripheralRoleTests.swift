import BleuCore
import CoreBluetoothEmulator
import Foundation
import Testing

@Suite("EmulatedCBPeripheralManager: CoreBluetooth's peripheral role", .timeLimit(.minutes(1)))
struct PeripheralRoleTests {
    @Test("commands before the first poweredOn callback are refused, as CoreBluetooth refuses them")
    func refusedBeforePoweredOn() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let queue = DispatchQueue(label: "held")
        queue.suspend()  // the delegate has not heard poweredOn yet
        let recorder = PeripheralRecorder()
        let manager = EmulatedCBPeripheralManager(delegate: recorder, queue: queue, bus: bus)
        #expect(manager.state == .unknown)
        manager.add(heartRateService().0)
        manager.startAdvertising([CBAdvertisementDataLocalNameKey: "Early"])
        queue.resume()
        #expect(await recorder.log.next() == "state 5")
        queue.sync {}
        #expect(recorder.log.all == ["state 5"])
        #expect(!manager.isAdvertising)
    }

    @Test("a static value on a writable characteristic is refused at didAdd; a read-only one is served without the delegate")
    func staticValues() async throws {
        let world = await World()
        let service = EmulatedCBMutableService(type: CBUUID(string: "FFF0"), primary: true)
        service.characteristics = [EmulatedCBMutableCharacteristic(type: CBUUID(string: "FFF1"), properties: [.read, .write],
                                                                   value: Data([1]), permissions: [.readable, .writeable])]
        let refused = await world.publish(service)
        #expect(refused.hasPrefix("didAdd FFF0 CB"))
        #expect(refused != "didAdd FFF0 nil")
    }

    @Test("updateValue returns false when the queue is full, and peripheralManagerIsReady follows; nothing is lost")
    func notificationBackPressure() async throws {
        // Realistic timing: each value waits for a connection event, so a tight loop fills the queue.
        var configuration = EmulatorConfiguration.default
        configuration.notificationQueueDepth = 2
        configuration.seed = 11
        let world = await World(configuration)
        let (service, measurement) = heartRateService()
        await world.publish(service)
        await world.advertise([CBAdvertisementDataLocalNameKey: "HRM"])
        let peripheral = try await world.connect(to: "HRM")
        peripheral.setNotifyValue(true, for: try await world.characteristic("2A37", of: "180D", on: peripheral))
        _ = await world.peripheral.log.next("didSubscribe")

        var accepted = 0
        while accepted < 100, world.peripheralManager.updateValue(Data([UInt8(accepted)]), for: measurement, onSubscribedCentrals: nil) {
            accepted += 1
        }
        // The queue filled (its depth is 2; values that left it during the loop make room, so
        // the count depends on timing — what matters is that `false` came, and what follows).
        #expect(accepted >= 2 && accepted < 100)
        #expect(await world.peripheral.log.next("isReadyToUpdateSubscribers") == "isReadyToUpdateSubscribers")
        #expect(world.peripheralManager.updateValue(Data([UInt8(accepted)]), for: measurement, onSubscribedCentrals: nil))
        for index in 0...accepted {
            #expect(await world.central.log.next("didUpdateValue") == "didUpdateValue 2A37 \(hexString([UInt8(index)])) nil")
        }
    }

    @Test("a long dynamic value is read whole through offset requests, and a long write arrives as one batch")
    func longValues() async throws {
        let world = await World()
        let (service, _) = heartRateService()
        await world.publish(service)
        let long = Data((0..<300).map { UInt8($0 & 0xFF) })
        world.peripheral.setValue(long, for: "2A37")
        await world.advertise([CBAdvertisementDataLocalNameKey: "HRM"])
        let peripheral = try await world.connect(to: "HRM")
        let characteristics = try await world.characteristics(of: "180D", on: peripheral)
        let measurement = try #require(characteristics.first { $0.uuid == CBUUID(string: "2A37") })
        let control = try #require(characteristics.first { $0.uuid == CBUUID(string: "2A39") })

        peripheral.readValue(for: measurement)
        _ = await world.central.log.next("didUpdateValue")
        #expect(measurement.value == long)
        #expect(world.peripheral.log.all.filter { $0.hasPrefix("didReceiveRead 2A37") }.count > 1)

        peripheral.writeValue(long, for: control, type: .withResponse)
        #expect(await world.central.log.next("didWrite") == "didWrite 2A39 nil")
        #expect(world.peripheral.value(for: "2A39") == long)
    }

    @Test("L2CAP: publish, open, and bytes move both ways through the channel's streams")
    func l2capStreams() async throws {
        let world = await World()
        world.peripheralManager.publishL2CAPChannel(withEncryption: false)
        let published = await world.peripheral.log.next("didPublishL2CAPChannel")
        let psm = try #require(UInt16(published.split(separator: " ")[1]))
        #expect(published.hasSuffix(" nil"))
        await world.advertise([CBAdvertisementDataLocalNameKey: "Pipe"])
        let peripheral = try await world.connect(to: "Pipe")
        peripheral.openL2CAPChannel(psm)
        #expect(await world.central.log.next("didOpenChannel") == "didOpenChannel true nil")
        #expect(await world.peripheral.log.next("didOpenChannel") == "didOpenChannel true nil")
        let centralEnd = try #require(world.central.openedChannel)
        let peripheralEnd = try #require(world.peripheral.openedChannel)
        #expect(centralEnd.psm == psm)
        #expect(centralEnd.peer === peripheral)

        for stream in [centralEnd.inputStream!, peripheralEnd.inputStream!] as [Stream] { stream.open() }
        for stream in [centralEnd.outputStream!, peripheralEnd.outputStream!] as [Stream] { stream.open() }
        let message = Array("hello over L2CAP".utf8)
        #expect(centralEnd.outputStream.write(message, maxLength: message.count) == message.count)
        #expect(try await read(message.count, from: peripheralEnd.inputStream) == message)
        let reply: [UInt8] = [1, 2, 3]
        #expect(peripheralEnd.outputStream.write(reply, maxLength: reply.count) == reply.count)
        #expect(try await read(reply.count, from: centralEnd.inputStream) == reply)
    }

    @Test("an encrypted characteristic pairs on first access (Just Works), then reads")
    func pairingOnEncryptedAttributes() async throws {
        let world = await World()
        let service = EmulatedCBMutableService(type: CBUUID(string: "FFF0"), primary: true)
        let secret = EmulatedCBMutableCharacteristic(type: CBUUID(string: "FFF1"), properties: [.read], value: nil,
                                                     permissions: [.readEncryptionRequired])
        service.characteristics = [secret]
        await world.publish(service)
        world.peripheral.setValue(Data([0x5E]), for: "FFF1")
        await world.advertise([CBAdvertisementDataLocalNameKey: "Lock"])
        let peripheral = try await world.connect(to: "Lock")
        let secretCharacteristic = try await world.characteristic("FFF1", of: "FFF0", on: peripheral)
        #expect(world.bus.bondCount == 0)
        peripheral.readValue(for: secretCharacteristic)
        let read = await world.central.log.next("didUpdateValue")
        #expect(read == "didUpdateValue FFF1 5e nil")
        #expect(world.bus.bondCount == 1)
    }

    @Test("powering the radio off reaches both delegates and ends the connection")
    func powerOff() async throws {
        let world = await World()
        await world.advertise([CBAdvertisementDataLocalNameKey: "HRM"])
        let peripheral = try await world.connect(to: "HRM")
        world.bus.setState(.poweredOff, of: world.peripheralManager.emulatorManager)
        #expect(await world.peripheral.log.next("state") == "state 4")
        #expect(world.peripheralManager.state == .poweredOff)
        #expect(await world.central.log.next("didDisconnect") == "didDisconnect CBError 7")
        #expect(peripheral.state == .disconnected)
        #expect(!world.peripheralManager.isAdvertising)
    }

    @Test("state restoration: a central restored by identifier gets its connected peripherals in willRestoreState, before its state")
    func centralRestoration() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let peripheralRecorder = PeripheralRecorder()
        let peripheralManager = EmulatedCBPeripheralManager(delegate: peripheralRecorder, queue: DispatchQueue(label: "p"), bus: bus)
        _ = await peripheralRecorder.log.next("state")
        peripheralManager.startAdvertising([CBAdvertisementDataLocalNameKey: "Kept"])
        _ = await peripheralRecorder.log.next("didStartAdvertising")

        let options = [CBCentralManagerOptionRestoreIdentifierKey: "app.central"]
        let firstRecorder = CentralRecorder()
        var first: EmulatedCBCentralManager? = EmulatedCBCentralManager(delegate: firstRecorder, queue: DispatchQueue(label: "c1"),
                                                                         options: options, bus: bus)
        _ = await firstRecorder.log.next("state")
        first?.scanForPeripherals(withServices: nil)
        _ = await firstRecorder.log.next("didDiscover Kept")
        let kept = try #require(firstRecorder.peripheral(named: "Kept"))
        first?.connect(kept)
        _ = await firstRecorder.log.next("didConnect")
        let identifier = kept.identifier
        first = nil  // the application is terminated; its connection waits for the restored manager

        let secondRecorder = CentralRecorder()
        let second = EmulatedCBCentralManager(delegate: secondRecorder, queue: DispatchQueue(label: "c2"), options: options, bus: bus)
        #expect(await secondRecorder.log.next() == "willRestoreState")
        #expect(await secondRecorder.log.next() == "state 5")
        let restored = try #require(secondRecorder.restoredState?[CBCentralManagerRestoredStatePeripheralsKey] as? [EmulatedCBPeripheral])
        #expect(restored.map(\.identifier) == [identifier])
        #expect(restored.first?.state == .connected)
        #expect(second.retrievePeripherals(withIdentifiers: [identifier]).first === restored.first)
    }
}

/// Reads exactly `count` bytes from a stream, waiting for its `.hasBytesAvailable` events
/// between reads.
private func read(_ count: Int, from stream: InputStream) async throws -> [UInt8] {
    let events = StreamEvents()
    stream.delegate = events
    defer { stream.delegate = nil }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 256)
    while true {
        let read = stream.read(&buffer, maxLength: buffer.count)
        if read < 0 { throw stream.streamError ?? CBError(.unknown) }
        bytes += buffer[0..<read]
        if bytes.count >= count { return bytes }
        if read == 0 { _ = await events.log.next("hasBytesAvailable") }
    }
}

/// A stream delegate that logs the events it hears.
private final class StreamEvents: NSObject, StreamDelegate, @unchecked Sendable {
    let log = CallbackLog()

    func stream(_ aStream: Stream, handle eventCode: Stream.Event) {
        if eventCode.contains(.hasBytesAvailable) { log.append("hasBytesAvailable") }
        if eventCode.contains(.endEncountered) { log.append("endEncountered") }
    }
}

@Suite("EmulatedCBPeripheralManager: state restoration", .timeLimit(.minutes(1)))
struct PeripheralRestorationTests {
    @Test("a peripheral manager restored by identifier gets its services and advertisement in willRestoreState, then serves on")
    func peripheralRestoration() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let options = [CBPeripheralManagerOptionRestoreIdentifierKey: "app.peripheral"]
        let first = PeripheralRecorder()
        var manager: EmulatedCBPeripheralManager? = EmulatedCBPeripheralManager(delegate: first, queue: DispatchQueue(label: "1"),
                                                                                options: options, bus: bus)
        _ = await first.log.next("state")
        manager?.add(heartRateService().0)
        _ = await first.log.next("didAdd")
        manager?.startAdvertising([CBAdvertisementDataLocalNameKey: "Kept", CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "180D")]])
        _ = await first.log.next("didStartAdvertising")
        manager = nil

        let second = PeripheralRecorder()
        let restored = EmulatedCBPeripheralManager(delegate: second, queue: DispatchQueue(label: "2"), options: options, bus: bus)
        #expect(await second.log.next() == "willRestoreState")
        #expect(await second.log.next() == "state 5")
        let state = try #require(second.restoredState)
        let services = try #require(state[CBPeripheralManagerRestoredStateServicesKey] as? [EmulatedCBMutableService])
        #expect(services.map(\.uuid) == [CBUUID(string: "180D")])
        #expect(services.first?.characteristics?.map(\.uuid.uuidString) == ["2A37", "2A39", "2A38", "2A3A"])
        let advertisement = try #require(state[CBPeripheralManagerRestoredStateAdvertisementDataKey] as? [String: Any])
        #expect(advertisement[CBAdvertisementDataLocalNameKey] as? String == "Kept")
        #expect(restored.isAdvertising)

        // The restored characteristic objects serve: a notification to a subscriber gets through.
        let centralRecorder = CentralRecorder()
        let central = EmulatedCBCentralManager(delegate: centralRecorder, queue: DispatchQueue(label: "c"), bus: bus)
        _ = await centralRecorder.log.next("state")
        central.scanForPeripherals(withServices: nil)
        _ = await centralRecorder.log.next("didDiscover Kept")
        let peripheral = try #require(centralRecorder.peripheral(named: "Kept"))
        central.connect(peripheral)
        _ = await centralRecorder.log.next("didConnect")
        peripheral.discoverServices(nil)
        _ = await centralRecorder.log.next("didDiscoverServices")
        let remote = try #require(peripheral.services?.first { $0.uuid == CBUUID(string: "180D") })
        peripheral.discoverCharacteristics([CBUUID(string: "2A37")], for: remote)
        _ = await centralRecorder.log.next("didDiscoverCharacteristics")
        peripheral.setNotifyValue(true, for: try #require(remote.characteristics?.first))
        _ = await second.log.next("didSubscribe")
        let measurement = try #require(services.first?.characteristics?.first as? EmulatedCBMutableCharacteristic)
        #expect(restored.updateValue(Data([0x00, 0x42]), for: measurement, onSubscribedCentrals: nil))
        #expect(await centralRecorder.log.next("didUpdateValue") == "didUpdateValue 2A37 0042 nil")
    }
}
