import BleuCore
import CoreBluetoothEmulator
import Foundation
import Testing

@Suite("The CoreBluetoothEmulator package's configuration flags on Bleu's configuration", .timeLimit(.minutes(1)))
struct ConfigurationFlagsTests {
    @Test("the package README's custom configuration compiles and lands on the link model's knobs")
    func customConfiguration() {
        var config = EmulatorConfiguration.default
        config.simulateBackpressure = true
        config.maxWriteWithoutResponseQueue = 10
        config.maxNotificationQueue = 12
        config.honorAllowDuplicatesOption = true
        config.simulateConnectionFailure = true
        config.connectionFailureRate = 0.3
        config.simulateReadWriteErrors = true
        config.readWriteErrorRate = 0.1
        #expect(config.writeWithoutResponseQueueDepth == 10)
        #expect(config.notificationQueueDepth == 12)
        #expect(config.faults.connectionFailure == 0.3)
        #expect(config.faults.attError == 0.1)
        config.simulateConnectionFailure = false
        config.simulateReadWriteErrors = false
        #expect(config.faults == .none)
        config.simulateBackpressure = false
        #expect(config.writeWithoutResponseQueueDepth == 1024 && config.notificationQueueDepth == 1024)
        #expect(config.simulateBackpressure)  // always on: the link paces every write
    }

    @Test("without l2capSupported, publishing fails with CBError.operationNotSupported")
    func l2capOff() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.l2capSupported = false
        let world = await World(configuration)
        world.peripheralManager.publishL2CAPChannel(withEncryption: false)
        #expect(await world.peripheral.log.next("didPublishL2CAPChannel") == "didPublishL2CAPChannel 0 CBError 13")
    }

    @Test("without stateRestorationEnabled, a manager with a used restore identifier starts afresh")
    func restorationOff() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.stateRestorationEnabled = false
        let bus = EmulatorBus(configuration: configuration)
        let options = [CBPeripheralManagerOptionRestoreIdentifierKey: "app.peripheral"]
        let first = PeripheralRecorder()
        var manager: EmulatedCBPeripheralManager? = EmulatedCBPeripheralManager(delegate: first, queue: DispatchQueue(label: "1"),
                                                                                options: options, bus: bus)
        _ = await first.log.next("state")
        manager?.startAdvertising([CBAdvertisementDataLocalNameKey: "Kept"])
        _ = await first.log.next("didStartAdvertising")
        manager = nil
        let second = PeripheralRecorder()
        let restarted = EmulatedCBPeripheralManager(delegate: second, queue: DispatchQueue(label: "2"), options: options, bus: bus)
        #expect(await second.log.next() == "state 5")
        #expect(!restarted.isAdvertising)
    }

    @Test("advertisements without a TX power get one between −12 and −4 dBm, unless autoGenerateAdvertisementFields is off")
    func generatedTxPower() async throws {
        for generates in [true, false] {
            var configuration = EmulatorConfiguration.instant
            configuration.autoGenerateAdvertisementFields = generates
            let world = await World(configuration)
            await world.advertise([CBAdvertisementDataLocalNameKey: "Quiet"])
            world.centralManager.scanForPeripherals(withServices: nil)
            _ = await world.central.log.next("didDiscover Quiet")
            let found = try #require(world.central.peripheral(named: "Quiet"))
            let power = (world.central.advertisement(of: found)?[CBAdvertisementDataTxPowerLevelKey] as? NSNumber)?.intValue
            if generates {
                #expect(power.map { (-12)...(-4) ~= $0 } == true)
            } else {
                #expect(power == nil)
            }
        }
    }

    @Test("without fireConnectionEvents, a registered central hears none")
    func connectionEventsOff() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.fireConnectionEvents = false
        let world = await World(configuration)
        await world.advertise([CBAdvertisementDataLocalNameKey: "HRM"])
        world.centralManager.registerForConnectionEvents(options: nil)
        let peripheral = try await world.connect(to: "HRM")
        world.centralManager.cancelPeripheralConnection(peripheral)
        _ = await world.central.log.next("didDisconnect")
        #expect(!world.central.log.all.contains { $0.hasPrefix("connectionEvent") })
    }

    @Test("ANCS authorization: the property follows, and the delegate hears it only with fireANCSAuthorizationUpdates")
    func ancsAuthorization() async throws {
        for fires in [true, false] {
            var configuration = EmulatorConfiguration.instant
            configuration.fireANCSAuthorizationUpdates = fires
            let world = await World(configuration)
            await world.advertise([CBAdvertisementDataLocalNameKey: "Watch"])
            let peripheral = try await world.connect(to: "Watch")
            #expect(!peripheral.ancsAuthorized)
            world.centralManager.emulateANCSAuthorization(true, for: peripheral)
            world.settleCentral()
            #expect(peripheral.ancsAuthorized)
            #expect(world.central.log.all.contains("didUpdateANCSAuthorization") == fires)
        }
    }

    @Test("without simulatePairing, an encrypted characteristic is refused with Insufficient Encryption")
    func pairingOff() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.simulatePairing = false
        let world = await World(configuration)
        let service = EmulatedCBMutableService(type: CBUUID(string: "FFF0"), primary: true)
        service.characteristics = [EmulatedCBMutableCharacteristic(type: CBUUID(string: "FFF1"), properties: [.read],
                                                                   value: nil, permissions: [.readEncryptionRequired])]
        await world.publish(service)
        await world.advertise([CBAdvertisementDataLocalNameKey: "Lock"])
        let peripheral = try await world.connect(to: "Lock")
        let secretCharacteristic = try await world.characteristic("FFF1", of: "FFF0", on: peripheral)
        peripheral.readValue(for: secretCharacteristic)
        #expect(await world.central.log.next("didUpdateValue") == "didUpdateValue FFF1 nil CBATTError 15")
        #expect(world.bus.bondCount == 0)
    }
}
