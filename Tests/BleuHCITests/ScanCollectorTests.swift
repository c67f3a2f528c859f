import BleuCore
import Logging
import Testing

@testable import BleuHCI

@Suite("Radio: scan collector (pure)")
struct ScanCollectorTests {
    let a = BluetoothAddress(string: "C0:00:00:00:00:0A")!
    let b = BluetoothAddress(string: "C0:00:00:00:00:0B")!
    let heartRate = BluetoothUUID.Service.heartRate

    func bytes(_ data: AdvertisingData) -> [UInt8] { Array(try! data.encoded()) }

    func report(_ address: BluetoothAddress, _ data: AdvertisingData, scannable: Bool = true, response: Bool = false,
                rssi: Int = -40) -> ScanReport {
        ScanReport(address: address, addressType: .randomDevice, isConnectable: !response, isScannable: scannable,
                   isScanResponse: response, data: bytes(data), rssi: rssi)
    }

    @Test("a scannable advertisement waits for its scan response and is reported once, merged")
    func mergesScanResponse() {
        var collector = ScanCollector(options: ScanOptions(), responseWait: .milliseconds(500))
        #expect(collector.receive(report(a, AdvertisingData(flags: .leGeneralDiscoverable)), now: .zero).isEmpty)
        #expect(collector.nextDeadline == .milliseconds(500))
        let found = collector.receive(report(a, AdvertisingData(localName: "Thermo"), response: true), now: .milliseconds(10))
        #expect(found.count == 1)
        #expect(found.first?.data.localName == "Thermo")
        #expect(found.first?.data.flags == .leGeneralDiscoverable)
        #expect(found.first?.isConnectable == true)
        // Without duplicates, the same peripheral is not reported again.
        #expect(collector.receive(report(a, AdvertisingData(flags: .leGeneralDiscoverable)), now: .milliseconds(20)).isEmpty)
        #expect(collector.receive(report(a, AdvertisingData(localName: "Thermo"), response: true), now: .milliseconds(30)).isEmpty)
        #expect(collector.expire(now: .seconds(5)).isEmpty)
    }

    @Test("without a scan response the advertisement is reported at its deadline, not before")
    func deadline() {
        var collector = ScanCollector(options: ScanOptions(), responseWait: .milliseconds(500))
        _ = collector.receive(report(a, AdvertisingData(localName: "A")), now: .zero)
        #expect(collector.expire(now: .milliseconds(499)).isEmpty)
        #expect(collector.expire(now: .milliseconds(500)).map(\.data.localName) == ["A"])
        #expect(collector.nextDeadline == nil)
    }

    @Test("non-scannable advertisements are reported at once; duplicates when allowed")
    func duplicates() {
        var collector = ScanCollector(options: ScanOptions(allowDuplicates: true), responseWait: .milliseconds(500))
        for i in 0..<3 {
            let found = collector.receive(report(b, AdvertisingData(localName: "B\(i)"), scannable: false), now: .zero)
            #expect(found.map(\.data.localName) == ["B\(i)"])
        }
        // A second scannable advertisement flushes the first one still waiting.
        _ = collector.receive(report(a, AdvertisingData(localName: "1")), now: .zero)
        #expect(collector.receive(report(a, AdvertisingData(localName: "2")), now: .zero).map(\.data.localName) == ["1"])
    }

    @Test("the service filter applies to the merged data: a UUID in the scan response counts")
    func serviceFilter() {
        var collector = ScanCollector(options: ScanOptions(services: [heartRate]), responseWait: .milliseconds(500))
        _ = collector.receive(report(a, AdvertisingData(localName: "HR")), now: .zero)
        let found = collector.receive(report(a, AdvertisingData(serviceUUIDs: [heartRate]), response: true), now: .zero)
        #expect(found.count == 1)
        _ = collector.receive(report(b, AdvertisingData(localName: "other")), now: .zero)
        #expect(collector.expire(now: .seconds(1)).isEmpty, "no heart-rate service: filtered out")
    }

    @Test("extended data in fragments is joined; malformed data is counted, never reported")
    func fragmentsAndMalformed() {
        var collector = ScanCollector(options: ScanOptions(), responseWait: .milliseconds(500))
        let whole = bytes(AdvertisingData(localName: "Fragmented"))
        var first = report(b, AdvertisingData(), scannable: false)
        first.data = Array(whole.prefix(4))
        first.isIncomplete = true
        var second = report(b, AdvertisingData(), scannable: false)
        second.data = Array(whole.dropFirst(4))
        #expect(collector.receive(first, now: .zero).isEmpty)
        #expect(collector.receive(second, now: .zero).map(\.data.localName) == ["Fragmented"])
        var bad = report(a, AdvertisingData(), scannable: false)
        bad.data = [0x05, 0x09, 0x41]  // declares 5 bytes, has 2
        #expect(collector.receive(bad, now: .zero).isEmpty)
        #expect(collector.malformedCount == 1)
    }

    @Test("legacy and extended report types map to connectable, scannable and scan response")
    func reportTypes() {
        let legacy = [(0, true, true, false), (1, true, false, false), (2, false, true, false), (3, false, false, false),
                      (4, false, false, true)]
        for (type, connectable, scannable, response) in legacy {
            let r = ScanReport(LEAdvertisingReport(eventType: LEAdvertisingReportType(rawValue: UInt8(type)), addressType: .randomDevice, address: a, data: [], rssi: -1))
            #expect((r.isConnectable, r.isScannable, r.isScanResponse) == (connectable, scannable, response), "type \(type)")
        }
        let extended = ScanReport(LEExtendedAdvertisingReport(eventType: LEExtendedAdvertisingEventType(rawValue: 0b0010_1011), addressType: .randomDevice, address: a,
                                                              rssi: -60, data: []))
        #expect(extended.isConnectable && extended.isScannable && extended.isScanResponse && extended.isIncomplete)
        #expect(extended.rssi == -60)
    }
}

@Suite("Radio: peer identifiers, endpoints, random addresses")
struct PeerDirectoryTests {
    @Test("a peer's identifier is stable, depends on the local address, and folds identity address types")
    func identifiers() {
        let local = BluetoothAddress(string: "C1:00:00:00:00:01")!
        let other = BluetoothAddress(string: "C1:00:00:00:00:02")!
        let peer = BluetoothAddress(string: "D0:00:00:00:00:09")!
        var directory = PeerDirectory(localAddress: local, capacity: 16)
        let id = directory.identify(peer, type: .randomDevice, name: "P")
        #expect(directory.identify(peer, type: .randomIdentity) == id)
        #expect(directory.identify(peer, type: .publicDevice) != id, "a public and a random address are different devices")
        #expect(PeerDirectory.identifier(local: local, address: peer, type: .randomDevice) == id)
        #expect(PeerDirectory.identifier(local: other, address: peer, type: .randomDevice) != id)
        #expect(directory.entry(id) == PeerDirectory.Entry(address: peer, type: .randomDevice, name: "P"))
    }

    @Test("the directory is bounded and never forgets a protected (connected) peer")
    func bounded() {
        var directory = PeerDirectory(localAddress: .zero, capacity: 16)
        let first = directory.identify(BluetoothAddress(bytes: [0xC0, 0, 0, 0, 0, 0]), type: .randomDevice)
        for i in 1...100 {
            _ = directory.identify(BluetoothAddress(bytes: [0xC0, 0, 0, 0, 0, UInt8(i)]), type: .randomDevice,
                                   isProtected: { $0 == first })
        }
        #expect(directory.entries.count == 16)
        #expect(directory.entry(first) != nil)
    }

    @Test("a bonded peer's rotating private addresses are one peer: the identity's identifier, or the one it paired under")
    func resolvedIdentities() throws {
        let irk = (0..<16).map { UInt8($0 * 7) }
        let identity = PairingAddress(type: .randomDevice, address: BluetoothAddress(string: "D7:00:00:00:00:01")!)
        var counter: UInt8 = 0
        func rpa() -> BluetoothAddress { ResolvablePrivateAddress.make(irk: irk, random: { count in counter += 1; return (0..<count).map { _ in counter } }) }
        let bonds = InMemoryBondStore([Bond(peer: identity, localRole: .initiator, longTermKey: LongTermKey(key: Array(repeating: 1, count: 16)),
                                            secureConnections: true, authenticated: false, keySize: 16, peerResolvingKey: irk)])
        let local = BluetoothAddress(string: "C1:00:00:00:00:01")!
        let logger = Logger(label: "test")
        func resolve(_ address: BluetoothAddress) -> PairingAddress? {
            HCIRadio.bondedIdentity(of: PairingAddress(type: .randomDevice, address: address), in: bonds, logger: logger)
        }

        // A later run: every private address the IRK resolves is the identity's identifier.
        var directory = PeerDirectory(localAddress: local, capacity: 16)
        let (first, second) = (rpa(), rpa())
        #expect(first != second && resolve(first) == identity && resolve(second) == identity)
        let id = directory.identify(first, type: .randomDevice, resolve: { resolve(first) })
        #expect(id == PeerDirectory.identifier(local: local, address: identity.address, type: .randomDevice))
        #expect(directory.identify(second, type: .randomDevice, resolve: { resolve(second) }) == id)
        #expect(directory.entry(id)?.address == second, "connecting uses the address the peer uses now")
        let stranger = BluetoothAddress(string: "5A:00:00:00:00:01")!  // resolvable form, another IRK
        #expect(resolve(stranger) == nil)
        #expect(directory.identify(stranger, type: .randomDevice, resolve: { resolve(stranger) }) != id)
        #expect(resolve(identity.address) == nil, "a static address resolves to nothing")

        // The run that bonded: the peer keeps the identifier it paired under.
        var pairing = PeerDirectory(localAddress: local, capacity: 16)
        let pairedUnder = pairing.identify(first, type: .randomDevice)  // before the bond
        pairing.noteIdentity(identity, of: pairedUnder)
        #expect(pairing.identify(second, type: .randomDevice, resolve: { resolve(second) }) == pairedUnder)
    }

    @Test("endpoints parse the CLI's forms and refuse anything else")
    func endpoints() {
        #expect(HCIEndpoint("tcp:127.0.0.1:9000") == .tcp(host: "127.0.0.1", port: 9000))
        #expect(HCIEndpoint("tcp:localhost:1") == .tcp(host: "localhost", port: 1))
        #expect(HCIEndpoint("serial:/dev/ttyACM0") == .serial(path: "/dev/ttyACM0", baudRate: 115_200))
        #expect(HCIEndpoint("serial:/dev/ttyUSB1@1000000") == .serial(path: "/dev/ttyUSB1", baudRate: 1_000_000))
        #expect(HCIEndpoint("/dev/ttyS0") == .serial(path: "/dev/ttyS0", baudRate: 115_200))
        #expect(HCIEndpoint("hci-socket:0") == .userChannel(index: 0))
        for bad in ["tcp:9000", "tcp:host:0", "tcp:host:70000", "tcp::9000", "hci-socket:x", "serial:", "usb:0", ""] {
            #expect(HCIEndpoint(bad) == nil, "\(bad)")
        }
        #expect(HCIEndpoint("tcp:127.0.0.1:9000")?.description == "tcp:127.0.0.1:9000")
    }

    @Test("static random addresses have their two top bits set and are never all zeros or ones below them")
    func randomStatic() {
        var generator = SeededRandomNumberGenerator(seed: 7)
        for _ in 0..<1000 {
            let address = BluetoothAddress.randomStatic(using: &generator)
            #expect(address.bytes[0] & 0xC0 == 0xC0)
            #expect(address.bytes != [0xC0, 0, 0, 0, 0, 0] && address.bytes != [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        }
    }
}
