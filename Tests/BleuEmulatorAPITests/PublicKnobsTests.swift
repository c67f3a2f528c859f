import BleuCore
import BleuEmulator
import Foundation
import Testing

// This target imports BleuEmulator WITHOUT @testable, on purpose: it compiles only if every
// knob below is public and settable. Keep it that way (BleuEmulatorTests use @testable, where
// an internal knob would compile too).

/// Issue 3 point 2, "every knob public": set each knob of the configuration and of the
/// managers' options from outside the module, and check that no stored property was missed.
@Suite("Every knob public (no @testable)")
struct PublicKnobsTests {
    /// The labels of a value's stored properties.
    static func labels(_ value: Any) -> Set<String> {
        Set(Mirror(reflecting: value).children.compactMap(\.label))
    }

    /// The stored properties whose values differ between two values of the same type.
    static func changed<T>(_ a: T, _ b: T) -> Set<String> {
        var result: Set<String> = []
        for (x, y) in zip(Mirror(reflecting: a).children, Mirror(reflecting: b).children) {
            if let label = x.label, String(describing: x.value) != String(describing: y.value) { result.insert(label) }
        }
        return result
    }

    @Test("every configuration knob can be set from outside the module, and the test sets them all")
    func configurationKnobs() {
        let start = EmulatorConfiguration.instant
        var c = start
        c.timing = .realistic
        c.scanLatency = .milliseconds(3)
        c.connectLatency = .milliseconds(4)
        c.discoveryLatency = .milliseconds(6)
        c.advertisingInterval = .milliseconds(200)
        c.centralMTU = 247
        c.peripheralMTU = 100
        c.dataLength = 27
        c.phy = .leCodedS2
        c.connectionInterval = .milliseconds(50)
        c.maximumPacketsPerConnectionEvent = 6
        c.supervisionTimeout = .seconds(3)
        c.attTransactionTimeout = .seconds(10)
        c.writeWithoutResponseQueueDepth = 5
        c.notificationQueueDepth = 7
        c.subscriptionBufferLimit = 8
        c.scanBufferLimit = 9
        c.eventBufferLimit = 10
        c.prepareQueueLimit = 11
        c.maximumQueuedOperations = 12
        c.maximumConnectionsPerCentral = 3
        c.rssi.atOneMeter = -60
        c.rssi.pathLossExponent = 2.5
        c.rssi.variation = 2
        c.rssi.defaultDistance = 2
        c.rssi.range = 20
        c.faults.connectionFailure = 0.1
        c.faults.attError = 0.2
        c.faults.injectedError = .insufficientResources
        c.faults.linkLoss = 0.01
        c.pairing.method = .passkeyEntry
        c.pairing.bonding = false
        c.pairing.pairsOnInsufficientSecurity = false
        c.l2cap.mtu = 512
        c.l2cap.mps = 100
        c.l2cap.initialCredits = 4
        c.seed = 7
        c.traceCapacity = 5
        c.coreBluetooth.autoGenerateAdvertisementFields = false
        c.coreBluetooth.fireConnectionEvents = false
        c.coreBluetooth.stateRestorationEnabled = false
        c.coreBluetooth.l2capSupported = false
        c.coreBluetooth.fireANCSAuthorizationUpdates = false

        // A knob added later without a line above fails here.
        #expect(Self.changed(start, c) == Self.labels(c), "set but unchanged, or not set: \(Self.labels(c).subtracting(Self.changed(start, c)))")
        #expect(Self.changed(start.rssi, c.rssi) == Self.labels(c.rssi))
        #expect(Self.changed(start.faults, c.faults) == Self.labels(c.faults))
        #expect(Self.changed(start.pairing, c.pairing) == Self.labels(c.pairing))
        #expect(Self.changed(start.l2cap, c.l2cap) == Self.labels(c.l2cap))
        #expect(Self.changed(start.coreBluetooth, c.coreBluetooth) == Self.labels(c.coreBluetooth))
        #expect(throws: Never.self) { try c.validate() }

        // The same through the public initializers.
        let built = EmulatorConfiguration(
            timing: c.timing, scanLatency: c.scanLatency, connectLatency: c.connectLatency,
            discoveryLatency: c.discoveryLatency, advertisingInterval: c.advertisingInterval,
            centralMTU: c.centralMTU, peripheralMTU: c.peripheralMTU, dataLength: c.dataLength, phy: c.phy,
            connectionInterval: c.connectionInterval, maximumPacketsPerConnectionEvent: c.maximumPacketsPerConnectionEvent,
            supervisionTimeout: c.supervisionTimeout, attTransactionTimeout: c.attTransactionTimeout,
            writeWithoutResponseQueueDepth: c.writeWithoutResponseQueueDepth, notificationQueueDepth: c.notificationQueueDepth,
            subscriptionBufferLimit: c.subscriptionBufferLimit, scanBufferLimit: c.scanBufferLimit,
            eventBufferLimit: c.eventBufferLimit, prepareQueueLimit: c.prepareQueueLimit,
            maximumQueuedOperations: c.maximumQueuedOperations, maximumConnectionsPerCentral: c.maximumConnectionsPerCentral,
            rssi: RSSIModel(atOneMeter: -60, pathLossExponent: 2.5, variation: 2, defaultDistance: 2, range: 20),
            faults: FaultRates(connectionFailure: 0.1, attError: 0.2, injectedError: .insufficientResources, linkLoss: 0.01),
            pairing: PairingConfiguration(method: .passkeyEntry, bonding: false, pairsOnInsufficientSecurity: false),
            l2cap: L2CAPConfiguration(mtu: 512, mps: 100, initialCredits: 4),
            seed: 7, traceCapacity: 5,
            coreBluetooth: CoreBluetoothOptions(autoGenerateAdvertisementFields: false, fireConnectionEvents: false,
                                                stateRestorationEnabled: false, l2capSupported: false,
                                                fireANCSAuthorizationUpdates: false))
        #expect(built == c)

        // A bus takes it, with a manual clock for virtual time.
        let bus = EmulatorBus(configuration: c, clock: ManualClock())
        #expect(bus.configuration == c)
        #expect(bus.seed == 7)
    }

    @Test("the managers' options can be set from outside the module")
    func managerOptions() async {
        let bus = EmulatorBus(configuration: .instant)
        var central = EmulatedCentralManager.Options()
        central.attMTU = 100
        central.deviceIdentifier = "phone"
        central.passkeyHandler = { _ in 123_456 }
        var peripheral = EmulatedPeripheralManager.Options()
        peripheral.attMTU = 50
        peripheral.deviceIdentifier = "sensor"
        peripheral.distance = 3
        #expect(Self.labels(central) == ["attMTU", "deviceIdentifier", "passkeyHandler"])
        #expect(Self.labels(peripheral) == ["attMTU", "deviceIdentifier", "distance"])
        let centralManager = EmulatedCentralManager(bus: bus, restoreIdentifier: "app", options: central)
        let peripheralManager = EmulatedPeripheralManager(bus: bus, restoreIdentifier: "accessory", options: peripheral)
        #expect(centralManager.restoreIdentifier == "app")
        #expect(peripheralManager.restoreIdentifier == "accessory")
        centralManager.setPasskeyHandler(nil)
        bus.setDistance(4, of: peripheralManager)
        #expect(await centralManager.state == .poweredOn)
    }
}
