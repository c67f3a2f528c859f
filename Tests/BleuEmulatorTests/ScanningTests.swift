import BleuCore
import Foundation
import Testing
@testable import BleuEmulator

/// Scanning and advertising.
@Suite("Scanning and advertising")
struct ScanningTests {
    static let heartRate = BluetoothUUID.Service.heartRate
    static let battery = BluetoothUUID.Service.battery

    static func advertiser(on bus: EmulatorBus, _ data: AdvertisingData, scanResponse: AdvertisingData? = nil,
                           distance: Double? = nil) async throws -> EmulatedPeripheralManager {
        let peripheral = EmulatedPeripheralManager(bus: bus, options: .init(distance: distance))
        try await peripheral.startAdvertising(data, scanResponse: scanResponse)
        return peripheral
    }

    @Test("the service filter and solicitation filter select advertisers")
    func filters() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let a = try await Self.advertiser(on: bus, AdvertisingData(localName: "hr", serviceUUIDs: [Self.heartRate]))
        let b = try await Self.advertiser(on: bus, AdvertisingData(localName: "bat", serviceUUIDs: [Self.battery]))
        let c = try await Self.advertiser(on: bus, AdvertisingData(localName: "asks", solicitedServiceUUIDs: [Self.heartRate]))
        let central = EmulatedCentralManager(bus: bus)
        #expect(try await MediumTests.heard(by: central, ScanOptions(services: [Self.heartRate])).map(\.localName) == ["hr"])
        #expect(try await MediumTests.heard(by: central, ScanOptions(solicitedServices: [Self.heartRate])).map(\.localName) == ["asks"])
        #expect(try await MediumTests.heard(by: central, ScanOptions(services: [Self.battery], solicitedServices: [Self.heartRate]))
            .compactMap(\.localName).sorted() == ["asks", "bat"])
        #expect(try await MediumTests.heard(by: central).count == 3)
        _ = (a, b, c)
    }

    @Test("without duplicates a scan reports each peripheral once, even when its data changes; with them, again")
    func duplicates() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let peripheral = try await Self.advertiser(on: bus, AdvertisingData(localName: "one"))
        let central = EmulatedCentralManager(bus: bus)
        let once = try await central.scan()
        try await peripheral.startAdvertising(AdvertisingData(localName: "two"))
        await central.stopScan()
        var names: [String?] = []
        for try await advertisement in once { names.append(advertisement.localName) }
        #expect(names == ["one"])
        let again = try await central.scan(ScanOptions(allowDuplicates: true))
        try await peripheral.startAdvertising(AdvertisingData(localName: "three"))
        await central.stopScan()
        names = []
        for try await advertisement in again { names.append(advertisement.localName) }
        #expect(names == ["two", "three"])
    }

    @Test("advertising data and the scan response arrive byte-exact; each is held to 31 bytes")
    func byteExact() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let data = AdvertisingData([
            .flags(.leGeneralDiscoverable),
            .serviceUUIDs([BluetoothUUID(uuid32: 0x1234_5678)], width: .bits32, complete: false),
            .other(type: 0xAB, data: Data([1, 2, 3])),
            .manufacturerData(ManufacturerData(companyID: 0xFFFF, data: Data([9, 8]))),
        ])
        let response = AdvertisingData([.localName("a rather long name!", complete: true)])
        let advertiser = try await Self.advertiser(on: bus, data, scanResponse: response)
        let heard = try await MediumTests.heard(by: EmulatedCentralManager(bus: bus))
        #expect(heard.first?.data == data.merged(with: response))
        #expect(try heard.first?.data.structures.prefix(4).map { try AdvertisingData([$0]).encoded() }
            == data.structures.map { try AdvertisingData([$0]).encoded() })
        let peripheral = EmulatedPeripheralManager(bus: bus)
        let long = AdvertisingData(localName: String(repeating: "x", count: 30))
        let error = await thrownError { try await peripheral.startAdvertising(long) }
        guard case .invalidData(.advertisingData(.doesNotFit(let field, _, _)))? = error as? BleuError else {
            Issue.record("a 30-byte name does not fit the advertising data: \(String(describing: error))"); return
        }
        #expect(field.contains("complete local name"))
        let responseError = await thrownError { try await peripheral.startAdvertising(AdvertisingData(localName: "ok"), scanResponse: long) }
        guard case .invalidData(.scanResponse(.doesNotFit))? = responseError as? BleuError else {
            Issue.record("the scan response says it is the scan response: \(String(describing: responseError))"); return
        }
        #expect(await !peripheral.isAdvertising)
        #expect(await advertiser.isAdvertising)
    }

    @Test("a slow scan consumer loses no advertiser: the radio hears them again when it has room")
    func scanBuffer() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.scanBufferLimit = 3
        let bus = EmulatorBus(configuration: configuration)
        var advertisers: [EmulatedPeripheralManager] = []
        for i in 0..<10 { advertisers.append(try await Self.advertiser(on: bus, AdvertisingData(localName: "n\(i)"))) }
        let central = EmulatedCentralManager(bus: bus)
        var names: Set<String> = []
        for try await advertisement in try await central.scan() {
            names.insert(advertisement.localName ?? "")
            if names.count == 10 { break }
        }
        #expect(names.count == 10)
    }

    @Test("a scan ends on stopScan, on a new scan, and with bluetoothPoweredOff when the radio goes off")
    func scanEnds() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let central = EmulatedCentralManager(bus: bus)
        let first = try await central.scan()
        let second = try await central.scan()
        for try await _ in first { Issue.record("the first scan should have ended empty") }
        bus.setState(.poweredOff, of: central)
        #expect(await thrownError { for try await _ in second {} } as? BleuError == .bluetoothPoweredOff)
        #expect(await throwsError(.bluetoothPoweredOff) { try await central.scan() })
    }

    @Test("realistic: advertisements come at the advertising interval plus 0–10 ms, after the scan latency")
    func advertisingInterval() async throws {
        let clock = ManualClock()
        var configuration = EmulatorConfiguration.default
        configuration.advertisingInterval = .milliseconds(100)
        configuration.scanLatency = .milliseconds(50)
        configuration.seed = 11
        let bus = EmulatorBus(configuration: configuration, clock: clock)
        let advertiser = try await Self.advertiser(on: bus, AdvertisingData(localName: "tick"))
        defer { withExtendedLifetime(advertiser) {} }
        let central = EmulatedCentralManager(bus: bus)
        let stream = try await central.scan(ScanOptions(allowDuplicates: true))
        let once = EmulatedCentralManager(bus: bus)
        let onceStream = try await once.scan()
        clock.advance(by: .milliseconds(1_000))
        await central.stopScan()
        await once.stopScan()
        var count = 0
        for try await _ in stream { count += 1 }
        var onceCount = 0
        for try await _ in onceStream { onceCount += 1 }
        #expect((9...10).contains(count), "about one report per 100 ms over 950 ms")
        #expect(onceCount == 1)
        let times = bus.trace.filter { $0.kind == .advertisement }.map(\.time)
        #expect(times.first.map { $0 >= .milliseconds(50) } == true, "nothing is heard before the scan latency")
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }.filter { $0 > .milliseconds(50) }
        #expect(!gaps.isEmpty && gaps.allSatisfy { $0 >= .milliseconds(90) && $0 <= .milliseconds(110) },
                "consecutive events are 100 ms ± the 10 ms advDelay apart: \(gaps)")
    }

    @Test("RSSI follows distance with bounded noise; out of range nothing is heard")
    func rssi() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.rssi = RSSIModel(atOneMeter: -59, pathLossExponent: 2, variation: 3, defaultDistance: 1, range: 20)
        configuration.seed = 5
        let bus = EmulatorBus(configuration: configuration)
        let near = try await Self.advertiser(on: bus, AdvertisingData(localName: "near"), distance: 1)
        let far = try await Self.advertiser(on: bus, AdvertisingData(localName: "far"), distance: 10)
        let gone = try await Self.advertiser(on: bus, AdvertisingData(localName: "gone"), distance: 30)
        let central = EmulatedCentralManager(bus: bus)
        for _ in 0..<20 {
            let heard = try await MediumTests.heard(by: central)
            #expect(Set(heard.compactMap(\.localName)) == ["near", "far"])
            for advertisement in heard {
                let mean = advertisement.localName == "near" ? -59 : -79
                #expect(abs(advertisement.rssi - mean) <= 3)
            }
        }
        bus.setDistance(5, of: gone)
        #expect(try await MediumTests.heard(by: central).count == 3, "back in range, it is heard")
        _ = (near, far)
    }
}
