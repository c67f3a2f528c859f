import BleuCore
import CoreBluetoothEmulator
import Foundation
import Testing

@Suite("EmulatedCBCentralManager and EmulatedCBPeripheral: CoreBluetooth's central role", .timeLimit(.minutes(1)))
struct CentralRoleTests {
    @Test("a scan with a service filter reports only peripherals advertising one of the services")
    func scanFilter() async throws {
        let world = await World()
        await world.advertise([CBAdvertisementDataLocalNameKey: "Heart", CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "180D")]])
        let otherDelegate = PeripheralRecorder()
        let other = EmulatedCBPeripheralManager(delegate: otherDelegate, queue: DispatchQueue(label: "other"), bus: world.bus)
        _ = await otherDelegate.log.next("state")
        other.startAdvertising([CBAdvertisementDataLocalNameKey: "Battery", CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "180F")]])
        _ = await otherDelegate.log.next("didStartAdvertising")

        world.centralManager.scanForPeripherals(withServices: [CBUUID(string: "180D")])
        #expect(world.centralManager.isScanning)
        world.settleCentral()
        #expect(world.central.log.all.filter { $0.hasPrefix("didDiscover") } == ["didDiscover Heart"])
        world.centralManager.stopScan()
        #expect(!world.centralManager.isScanning)
    }

    @Test("solicited-service scan option reports a peripheral that solicits the service")
    func solicitedServices() async throws {
        let world = await World()
        await world.advertise([CBAdvertisementDataLocalNameKey: "Asker",
                               CBAdvertisementDataSolicitedServiceUUIDsKey: [CBUUID(string: "1812")]])
        world.centralManager.scanForPeripherals(withServices: [CBUUID(string: "FFF0")])
        world.settleCentral()
        #expect(!world.central.log.all.contains { $0.hasPrefix("didDiscover") })
        world.centralManager.scanForPeripherals(withServices: [CBUUID(string: "FFF0")],
                                                options: [CBCentralManagerScanOptionSolicitedServiceUUIDsKey: [CBUUID(string: "1812")]])
        #expect(await world.central.log.next("didDiscover") == "didDiscover Asker")
    }

    @Test("allow-duplicates reports every advertisement; without it, one per scan (virtual time)")
    func allowDuplicates() async throws {
        let clock = ManualClock()
        var configuration = EmulatorConfiguration.default
        configuration.seed = 7
        let world = await World(configuration, clock: clock)
        await world.advertise([CBAdvertisementDataLocalNameKey: "Beacon"])
        /// Moves virtual time on by `seconds`, brings the bus up to it, and lets the callbacks run.
        func elapse(_ seconds: Int) {
            for _ in 0..<(seconds * 10) {
                clock.advance(by: .milliseconds(100))
                _ = world.bus.bondCount  // any call on the bus runs the timers due by now
            }
            world.settleCentral()
        }
        func reports() -> Int { world.central.log.all.filter { $0 == "didDiscover Beacon" }.count }

        world.centralManager.scanForPeripherals(withServices: nil, options: [CBCentralManagerScanOptionAllowDuplicatesKey: true])
        elapse(2)
        let withDuplicates = reports()
        #expect(withDuplicates >= 3)
        world.centralManager.stopScan()

        world.centralManager.scanForPeripherals(withServices: nil, options: [CBCentralManagerScanOptionAllowDuplicatesKey: false])
        elapse(2)
        #expect(reports() == withDuplicates + 1)
    }

    @Test("every advertisement key reaches didDiscover with CoreBluetooth's value types")
    func advertisementKeys() async throws {
        let world = await World()
        await world.advertise([
            CBAdvertisementDataLocalNameKey: "Keys",
            CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "180D")],
            CBAdvertisementDataManufacturerDataKey: Data([0x4C, 0x00, 0x01, 0x02]),
            CBAdvertisementDataServiceDataKey: [CBUUID(string: "FEAA"): Data([0x10, 0x20])],
            CBAdvertisementDataTxPowerLevelKey: NSNumber(value: -20),
        ])
        world.centralManager.scanForPeripherals(withServices: nil)
        _ = await world.central.log.next("didDiscover Keys")
        let found = try #require(world.central.peripheral(named: "Keys"))
        let data = try #require(world.central.advertisement(of: found))
        #expect(data[CBAdvertisementDataLocalNameKey] as? String == "Keys")
        #expect(data[CBAdvertisementDataServiceUUIDsKey] as? [CBUUID] == [CBUUID(string: "180D")])
        #expect(data[CBAdvertisementDataManufacturerDataKey] as? Data == Data([0x4C, 0x00, 0x01, 0x02]))
        #expect(data[CBAdvertisementDataServiceDataKey] as? [CBUUID: Data] == [CBUUID(string: "FEAA"): Data([0x10, 0x20])])
        #expect((data[CBAdvertisementDataTxPowerLevelKey] as? NSNumber)?.intValue == -20)
        #expect((data[CBAdvertisementDataIsConnectable] as? NSNumber)?.boolValue == true)
    }

    @Test("a non-connectable advertisement says so, and a connection attempt to it does not complete")
    func nonConnectable() async throws {
        let world = await World()
        await world.advertise([CBAdvertisementDataLocalNameKey: "Broadcaster", CBAdvertisementDataIsConnectable: false])
        world.centralManager.scanForPeripherals(withServices: nil)
        _ = await world.central.log.next("didDiscover Broadcaster")
        let found = try #require(world.central.peripheral(named: "Broadcaster"))
        #expect((world.central.advertisement(of: found)?[CBAdvertisementDataIsConnectable] as? NSNumber)?.boolValue == false)

        world.centralManager.connect(found)
        #expect(found.state == .connecting)
        world.centralManager.cancelPeripheralConnection(found)
        // The attempt never connected: cancelling it reports a disconnection without error.
        #expect(await world.central.log.next { $0.hasPrefix("didConnect") || $0.hasPrefix("didDisconnect") } == "didDisconnect nil")
        #expect(found.state == .disconnected)
    }

    @Test("connect, discover every level, read, write, notify, descriptors — each callback in CoreBluetooth's order")
    func gattRoundTrip() async throws {
        let world = await World()
        let (service, measurement) = heartRateService()
        #expect(await world.publish(service) == "didAdd 180D nil")
        world.peripheral.setValue(Data([0x00, 0x48]), for: "2A37")
        await world.advertise([CBAdvertisementDataLocalNameKey: "HRM", CBAdvertisementDataServiceUUIDsKey: [service.uuid]])
        let peripheral = try await world.connect(to: "HRM")

        peripheral.discoverServices([CBUUID(string: "180D")])
        #expect(await world.central.log.next("didDiscoverServices") == "didDiscoverServices 180D nil")
        let remote = try #require(peripheral.services?.first)
        #expect(remote.peripheral === peripheral)
        peripheral.discoverCharacteristics(nil, for: remote)
        #expect(await world.central.log.next("didDiscoverCharacteristics") == "didDiscoverCharacteristics 2A37,2A39,2A38,2A3A nil")
        let characteristics = try #require(remote.characteristics)
        let remoteMeasurement = characteristics[0], control = characteristics[1], location = characteristics[2]
        #expect(remoteMeasurement.properties == [.read, .notify])
        #expect(remoteMeasurement.service === remote)

        peripheral.readValue(for: remoteMeasurement)
        #expect(await world.central.log.next("didUpdateValue") == "didUpdateValue 2A37 0048 nil")
        #expect(await world.peripheral.log.next("didReceiveRead") == "didReceiveRead 2A37 0")
        peripheral.readValue(for: location)  // static: the emulator answers, no request reaches the delegate
        #expect(await world.central.log.next("didUpdateValue") == "didUpdateValue 2A38 01 nil")

        peripheral.writeValue(Data([0x01]), for: control, type: .withResponse)
        #expect(await world.central.log.next("didWrite") == "didWrite 2A39 nil")
        #expect(await world.peripheral.log.next("didReceiveWrite") == "didReceiveWrite 2A39@0=01")

        peripheral.discoverDescriptors(for: location)
        #expect(await world.central.log.next("didDiscoverDescriptors") == "didDiscoverDescriptors 2901 nil")
        peripheral.readValue(for: try #require(location.descriptors?.first))
        #expect(await world.central.log.next("didUpdateDescriptorValue") == "didUpdateDescriptorValue 2901 Wrist nil")

        peripheral.setNotifyValue(true, for: remoteMeasurement)
        #expect(await world.central.log.next("didUpdateNotificationState") == "didUpdateNotificationState 2A37 true nil")
        #expect(await world.peripheral.log.next("didSubscribe") == "didSubscribe 2A37 1")
        #expect(world.peripheralManager.updateValue(Data([0x00, 0x50]), for: measurement, onSubscribedCentrals: nil))
        #expect(await world.central.log.next("didUpdateValue") == "didUpdateValue 2A37 0050 nil")
        peripheral.setNotifyValue(false, for: remoteMeasurement)
        #expect(await world.central.log.next("didUpdateNotificationState") == "didUpdateNotificationState 2A37 false nil")
        #expect(await world.peripheral.log.next("didUnsubscribe") == "didUnsubscribe 2A37")
        #expect(!remoteMeasurement.isNotifying)
    }

    @Test("an ATT error answered by the peripheral reaches the delegate as CBATTError with its code")
    func attErrors() async throws {
        let world = await World()
        let (service, _) = heartRateService()
        await world.publish(service)
        await world.advertise([CBAdvertisementDataLocalNameKey: "HRM"])
        let peripheral = try await world.connect(to: "HRM")
        let characteristic = try await world.characteristic("2A37", of: "180D", on: peripheral)

        world.peripheral.refusal = .insufficientResources
        peripheral.readValue(for: characteristic)
        #expect(await world.central.log.next("didUpdateValue") == "didUpdateValue 2A37 nil CBATTError 17")
        #expect(characteristic.value == nil)
        // Writing a read-only characteristic is refused by the emulator before the application sees it.
        peripheral.writeValue(Data([1]), for: characteristic, type: .withResponse)
        let refused = await world.central.log.next("didWrite")
        #expect(refused.hasPrefix("didWrite 2A37 CB"))
        #expect(refused != "didWrite 2A37 nil")
    }

    @Test("maximumWriteValueLength follows the link's MTU; writes without response respect canSend and the ready callback")
    func writeWithoutResponseFlowControl() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.writeWithoutResponseQueueDepth = 2
        let world = await World(configuration)
        let (service, _) = heartRateService()
        await world.publish(service)
        await world.advertise([CBAdvertisementDataLocalNameKey: "HRM"])
        let peripheral = try await world.connect(to: "HRM")
        let mtu = min(world.bus.configuration.centralMTU, world.bus.configuration.peripheralMTU)
        #expect(peripheral.maximumWriteValueLength(for: .withoutResponse) == mtu - 3)
        #expect(peripheral.maximumWriteValueLength(for: .withResponse) == 512)

        let characteristic = try await world.characteristic("2A3A", of: "180D", on: peripheral)

        // Hold the peripheral's delegate queue: its application has not taken the writes yet.
        world.peripheralQueue.suspend()
        var sent = 0
        while peripheral.canSendWriteWithoutResponse {
            peripheral.writeValue(Data([UInt8(sent)]), for: characteristic, type: .withoutResponse)
            sent += 1
            #expect(sent <= 2)
        }
        #expect(sent == 2)
        world.peripheralQueue.resume()
        _ = await world.central.log.next("isReadyToSendWriteWithoutResponse")
        #expect(peripheral.canSendWriteWithoutResponse)
        #expect(await world.peripheral.log.next("didReceiveWrite") == "didReceiveWrite 2A3A@0=00")
        #expect(await world.peripheral.log.next("didReceiveWrite") == "didReceiveWrite 2A3A@0=01")
    }

    @Test("readRSSI reports the link's RSSI; retrieve finds known and connected peripherals")
    func rssiAndRetrieval() async throws {
        let world = await World()
        let (service, _) = heartRateService()
        await world.publish(service)
        await world.advertise([CBAdvertisementDataLocalNameKey: "HRM", CBAdvertisementDataServiceUUIDsKey: [service.uuid]])
        let peripheral = try await world.connect(to: "HRM")
        peripheral.readRSSI()
        let rssi = await world.central.log.next("didReadRSSI")
        #expect(rssi.hasSuffix(" nil"))
        #expect(Int(rssi.split(separator: " ")[1]).map { (-127)...20 ~= $0 } == true)

        #expect(world.centralManager.retrievePeripherals(withIdentifiers: [peripheral.identifier, UUID()]).map { $0 === peripheral } == [true])
        #expect(world.centralManager.retrieveConnectedPeripherals(withServices: [CBUUID(string: "180D")]).count == 1)
        #expect(world.centralManager.retrieveConnectedPeripherals(withServices: [CBUUID(string: "180F")]).isEmpty)
    }

    @Test("disconnections carry CoreBluetooth's errors: none after cancel, peripheralDisconnected, connectionTimeout on link loss")
    func disconnectErrors() async throws {
        let world = await World()
        await world.advertise([CBAdvertisementDataLocalNameKey: "HRM"])
        let peripheral = try await world.connect(to: "HRM")
        world.centralManager.cancelPeripheralConnection(peripheral)
        #expect(await world.central.log.next("didDisconnect") == "didDisconnect nil")
        #expect(peripheral.state == .disconnected)

        world.centralManager.connect(peripheral)
        _ = await world.central.log.next("didConnect")
        world.bus.loseLink(between: world.centralManager.emulatorManager, and: peripheral.identifier)
        #expect(await world.central.log.next("didDisconnect") == "didDisconnect CBError 6")
    }

    @Test("connection events reach a central registered for them, filtered by peripheral")
    func connectionEvents() async throws {
        let world = await World()
        await world.advertise([CBAdvertisementDataLocalNameKey: "HRM"])
        world.centralManager.registerForConnectionEvents(options: [.peripheralUUIDs: [UUID()]])
        let peripheral = try await world.connect(to: "HRM")
        world.centralManager.cancelPeripheralConnection(peripheral)
        _ = await world.central.log.next("didDisconnect")
        #expect(!world.central.log.all.contains { $0.hasPrefix("connectionEvent") })

        world.centralManager.registerForConnectionEvents(options: nil)
        world.centralManager.connect(peripheral)
        #expect(await world.central.log.next("connectionEvent") == "connectionEvent connected")
        world.centralManager.cancelPeripheralConnection(peripheral)
        #expect(await world.central.log.next("connectionEvent") == "connectionEvent disconnected")
    }

    @Test("a connection failure injected by the seed reaches didFailToConnect as CBError.connectionFailed")
    func connectionFailure() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.faults.connectionFailure = 1
        configuration.seed = 3
        let world = await World(configuration)
        print("seed \(world.bus.seed)")
        await world.advertise([CBAdvertisementDataLocalNameKey: "HRM"])
        world.centralManager.scanForPeripherals(withServices: nil)
        _ = await world.central.log.next("didDiscover HRM")
        let peripheral = try #require(world.central.peripheral(named: "HRM"))
        world.centralManager.connect(peripheral)
        #expect(await world.central.log.next("didFailToConnect") == "didFailToConnect CBError 10")
        #expect(peripheral.state == .disconnected)
    }

    @Test("commands to a peripheral that is not connected are refused and call nothing back")
    func notConnectedIsMisuse() async throws {
        let world = await World()
        await world.advertise([CBAdvertisementDataLocalNameKey: "HRM"])
        world.centralManager.scanForPeripherals(withServices: nil)
        _ = await world.central.log.next("didDiscover HRM")
        let peripheral = try #require(world.central.peripheral(named: "HRM"))
        peripheral.discoverServices(nil)
        peripheral.readRSSI()
        world.settleCentral()
        #expect(!world.central.log.all.contains { $0.hasPrefix("didDiscoverServices") || $0.hasPrefix("didReadRSSI") })
    }
}

@Suite("EmulatedCBPeripheral: included services, descriptor writes, authorization", .timeLimit(.minutes(1)))
struct CentralRoleMoreTests {
    @Test("a service that includes another reports it through discoverIncludedServices")
    func includedServices() async throws {
        let world = await World()
        let battery = EmulatedCBMutableService(type: CBUUID(string: "180F"), primary: false)
        battery.characteristics = [EmulatedCBMutableCharacteristic(type: CBUUID(string: "2A19"), properties: [.read],
                                                                   value: Data([90]), permissions: [.readable])]
        #expect(await world.publish(battery) == "didAdd 180F nil")
        let device = EmulatedCBMutableService(type: CBUUID(string: "FFF0"), primary: true)
        device.includedServices = [battery]
        #expect(await world.publish(device) == "didAdd FFF0 nil")
        await world.advertise([CBAdvertisementDataLocalNameKey: "Composite"])
        let peripheral = try await world.connect(to: "Composite")
        peripheral.discoverServices(nil)
        #expect(await world.central.log.next("didDiscoverServices") == "didDiscoverServices FFF0 nil")  // primaries only
        let primary = try #require(peripheral.services?.first)
        peripheral.discoverIncludedServices(nil, for: primary)
        #expect(await world.central.log.next("didDiscoverIncludedServices") == "didDiscoverIncludedServices 180F nil")
        let included = try #require(primary.includedServices?.first)
        #expect(!included.isPrimary)
        peripheral.discoverCharacteristics(nil, for: included)
        #expect(await world.central.log.next("didDiscoverCharacteristics") == "didDiscoverCharacteristics 2A19 nil")
        peripheral.readValue(for: try #require(included.characteristics?.first))
        #expect(await world.central.log.next("didUpdateValue") == "didUpdateValue 2A19 5a nil")
    }

    @Test("descriptor writes: the configuration descriptor is refused as CoreBluetooth refuses it; a static one answers Write Not Permitted")
    func descriptorWrites() async throws {
        let world = await World()
        let (service, _) = heartRateService()
        await world.publish(service)
        await world.advertise([CBAdvertisementDataLocalNameKey: "HRM"])
        let peripheral = try await world.connect(to: "HRM")
        let characteristics = try await world.characteristics(of: "180D", on: peripheral)
        let measurement = try #require(characteristics.first { $0.uuid == CBUUID(string: "2A37") })
        let location = try #require(characteristics.first { $0.uuid == CBUUID(string: "2A38") })
        peripheral.discoverDescriptors(for: measurement)
        #expect(await world.central.log.next("didDiscoverDescriptors") == "didDiscoverDescriptors 2902 nil")
        peripheral.writeValue(Data([1, 0]), for: try #require(measurement.descriptors?.first))
        #expect(await world.central.log.next("didWriteDescriptor") == "didWriteDescriptor 2902 CBError 13")

        peripheral.discoverDescriptors(for: location)
        _ = await world.central.log.next("didDiscoverDescriptors")
        peripheral.writeValue(Data("Chest".utf8), for: try #require(location.descriptors?.first))
        #expect(await world.central.log.next("didWriteDescriptor") == "didWriteDescriptor 2901 CBATTError 3")
    }

    @Test("Bluetooth authorization is always granted in the emulator")
    func authorization() {
        #expect(EmulatedCBCentralManager.authorization == .allowedAlways)
        #expect(EmulatedCBPeripheralManager.authorization == .allowedAlways)
        #expect(EmulatedCBPeripheralManager.authorizationStatus() == .authorized)
    }
}
