import BleuCore
import Foundation
import Testing
@testable import BleuEmulator

/// The configuration, its presets and every knob.
@Suite("Configuration")
struct ConfigurationTests {
    @Test("the presets say what they are")
    func presets() {
        #expect(EmulatorConfiguration.instant.timing == .instant)
        #expect(EmulatorConfiguration.instant.rssi.variation == 0)
        #expect(!EmulatorConfiguration.instant.faults.isEnabled)
        let realistic = EmulatorConfiguration.default
        #expect(realistic.timing == .realistic)
        #expect(realistic.centralMTU == 185, "iOS offers 185")
        #expect(realistic.phy == .le2M && realistic.dataLength == 251)
        #expect(EmulatorConfiguration.slow.phy == .le1M && EmulatorConfiguration.slow.dataLength == 27)
        #expect(EmulatorConfiguration.slow.connectionInterval > realistic.connectionInterval)
        #expect(EmulatorConfiguration.unreliable.faults.isEnabled)
        #expect(EmulatorConfiguration.unreliable.timing == .realistic)
        for preset in [EmulatorConfiguration.instant, .default, .slow, .unreliable] {
            #expect(throws: Never.self) { try preset.validate() }
            #expect(preset.normalized() == preset)
        }
    }

    @Test("values outside their range are reported by validate and clamped by normalized")
    func validation() {
        var c = EmulatorConfiguration.default
        c.centralMTU = 600
        c.peripheralMTU = 10
        c.dataLength = 300
        c.connectionInterval = .milliseconds(31)
        c.writeWithoutResponseQueueDepth = 0
        c.faults.attError = 2
        #expect(throws: BleuError.self) { try c.validate() }
        let n = c.normalized()
        #expect(n.centralMTU == 517)
        #expect(n.peripheralMTU == 23)
        #expect(n.dataLength == 251)
        #expect(n.connectionInterval == .microseconds(30_000), "rounded down to a multiple of 1.25 ms")
        #expect(n.writeWithoutResponseQueueDepth == 1)
        #expect(n.faults.attError == 1)
        #expect(throws: Never.self) { try n.validate() }
        var coded = EmulatorConfiguration.default
        coded.phy = .leCodedS8
        coded.connectionInterval = .microseconds(7500)
        #expect(throws: BleuError.self) { try coded.validate() }
        #expect(coded.normalized().connectionInterval >= .microseconds(Int64(AirTime.exchangeMicroseconds(payload: 251, phy: .leCodedS8, encrypted: true))),
                "an interval must hold one exchange of the longest packet")
    }

    @Test("a bus runs on the normalized configuration and reports its seed")
    func busConfiguration() {
        var c = EmulatorConfiguration.instant
        c.centralMTU = 9
        c.seed = 42
        let bus = EmulatorBus(configuration: c)
        #expect(bus.configuration.centralMTU == 23)
        #expect(bus.seed == 42)
        #expect(EmulatorBus(configuration: .instant).seed != EmulatorBus(configuration: .instant).seed, "without a seed each bus draws one")
    }

    @Test("every knob is public and survives a JSON round trip")
    func codable() throws {
        var c = EmulatorConfiguration.unreliable
        c.scanLatency = .milliseconds(3)
        c.connectLatency = .milliseconds(4)
        c.discoveryLatency = .milliseconds(5)
        c.advertisingInterval = .milliseconds(200)
        c.maximumPacketsPerConnectionEvent = 6
        c.supervisionTimeout = .seconds(3)
        c.attTransactionTimeout = .seconds(10)
        c.notificationQueueDepth = 7
        c.subscriptionBufferLimit = 8
        c.scanBufferLimit = 9
        c.eventBufferLimit = 10
        c.prepareQueueLimit = 11
        c.maximumQueuedOperations = 12
        c.maximumConnectionsPerCentral = 3
        c.rssi = RSSIModel(atOneMeter: -60, pathLossExponent: 2.5, variation: 2, defaultDistance: 2, range: 20)
        c.pairing = PairingConfiguration(method: .passkeyEntry, bonding: false, pairsOnInsufficientSecurity: false)
        c.l2cap = L2CAPConfiguration(mtu: 512, mps: 100, initialCredits: 4)
        c.seed = 7
        c.traceCapacity = 5
        let data = try JSONEncoder().encode(c)
        #expect(try JSONDecoder().decode(EmulatorConfiguration.self, from: data) == c)
    }

    @Test("the RSSI model follows log-distance path loss and has a range")
    func rssiModel() {
        let model = RSSIModel(atOneMeter: -59, pathLossExponent: 2, variation: 0, defaultDistance: 1, range: 10)
        #expect(model.meanRSSI(atDistance: 1) == -59)
        #expect(model.meanRSSI(atDistance: 10) == -79)
        #expect(model.meanRSSI(atDistance: 100) == -99)
        #expect(model.isInRange(10) && !model.isInRange(10.5))
    }
}
