import BleuCore
import Testing

@testable import BleuHCI

/// Times as `Duration` (rounded to the field's unit, clamped into the specification's range),
/// codes as raw-value types that keep unknown values, bit fields as option sets — bytes written
/// out by hand from Core Spec Vol 4 Part E.
@Suite("Codecs: typed fields — durations, codes and bit fields")
struct TypedFieldTests {
    /// LE Set Scan Parameters (§7.8.10): type, interval (2), window (2), own address type, filter policy.
    func scanParameters(interval: Duration, window: Duration = .milliseconds(10)) -> [UInt8] {
        HCICommand.leSetScanParameters(LEScanParameters(scanType: .passive, interval: interval, window: window)).parameters
    }

    @Test("a time goes in the field's unit, rounded to the nearest (a half unit up)")
    func rounding() {
        // 0.625 ms units: 3.4375 ms is 5.5 units (up to 6); 3.437 ms is 5.4992 (5); 3.438 ms is 5.5008 (6).
        #expect(scanParameters(interval: .nanoseconds(3_437_500)) == [0x00, 0x06, 0x00, 0x10, 0x00, 0x00, 0x00])
        #expect(scanParameters(interval: .microseconds(3_437)) == [0x00, 0x05, 0x00, 0x10, 0x00, 0x00, 0x00])
        #expect(scanParameters(interval: .microseconds(3_438)) == [0x00, 0x06, 0x00, 0x10, 0x00, 0x00, 0x00])
        // 1.25 ms and 10 ms units (§7.8.12): 30 ms is 24 (0x18), 5 s is 500 (0x01F4); CE lengths in 0.625 ms.
        var bytes: [UInt8] = []
        LEConnectionParameters(intervalMin: .milliseconds(30), intervalMax: .microseconds(31_874), maxLatency: 3,
                               supervisionTimeout: .seconds(5), minCELength: .microseconds(625),
                               maxCELength: .milliseconds(10)).encode(into: &bytes)
        #expect(bytes == [0x18, 0x00, 0x19, 0x00, 0x03, 0x00, 0xF4, 0x01, 0x01, 0x00, 0x10, 0x00])
        // 1.28 s units for an extended scan's period (§7.8.65), 10 ms for its duration; none is 0.
        #expect(HCICommand.leSetExtendedScanEnable(enable: true, filterDuplicates: 0, duration: .milliseconds(500),
                                                   period: .milliseconds(2560)).parameters
                == [0x01, 0x00, 0x32, 0x00, 0x02, 0x00])
        #expect(HCICommand.leSetExtendedScanEnable(enable: true, filterDuplicates: 0, duration: nil, period: nil).parameters
                == [0x01, 0x00, 0x00, 0x00, 0x00, 0x00])
        // 24-bit advertising intervals (§7.8.53): 41.11 s is 0x0100F0.
        let extended = HCICommand.leSetExtendedAdvertisingParameters(LEExtendedAdvertisingParameters(
            intervalMin: .milliseconds(20), intervalMax: .milliseconds(41_110))).parameters
        #expect(Array(extended[3..<9]) == [0x20, 0x00, 0x00, 0xF0, 0x00, 0x01])
    }

    @Test("a time outside the specification's range is clamped into it")
    func clamping() {
        // Scan interval 2.5 ms – 10.24 s (0x0004 – 0x4000).
        #expect(scanParameters(interval: .milliseconds(1)) == [0x00, 0x04, 0x00, 0x10, 0x00, 0x00, 0x00])
        #expect(scanParameters(interval: .zero - .seconds(1)) == [0x00, 0x04, 0x00, 0x10, 0x00, 0x00, 0x00])
        #expect(scanParameters(interval: .seconds(60)) == [0x00, 0x00, 0x40, 0x10, 0x00, 0x00, 0x00])
        // The extended commands allow up to 0xFFFF units.
        let extended = HCICommand.leSetExtendedScanParameters(ownAddressType: .publicDevice, filterPolicy: 0, phys: .le1M, [
            LEExtendedScanPHY(scanType: .active, interval: .seconds(60), window: .seconds(20))]).parameters
        #expect(extended == [0x00, 0x00, 0x01, 0x01, 0xFF, 0xFF, 0x00, 0x7D])  // 20 s is 32,000 units
        // Connection interval 7.5 ms – 4 s, supervision timeout 100 ms – 32 s (§7.8.12).
        var bytes: [UInt8] = []
        LEConnectionParameters(intervalMin: .milliseconds(1), intervalMax: .seconds(5), supervisionTimeout: .seconds(100))
            .encode(into: &bytes)
        #expect(Array(bytes.prefix(8)) == [0x06, 0x00, 0x80, 0x0C, 0x00, 0x00, 0x80, 0x0C])
        // Advertising interval 20 ms – 10.24 s (§7.8.5); a set's duration 10 ms – 655.35 s (§7.8.56).
        let advertising = HCICommand.leSetAdvertisingParameters(LEAdvertisingParameters(
            intervalMin: .milliseconds(5), intervalMax: .seconds(11))).parameters
        #expect(Array(advertising.prefix(4)) == [0x20, 0x00, 0x00, 0x40])
        let enable = HCICommand.leSetExtendedAdvertisingEnable(enable: true, sets: [
            LEAdvertisingSetEnable(handle: 0, duration: .milliseconds(1)), LEAdvertisingSetEnable(handle: 1, duration: .seconds(1000))])
        #expect(enable.parameters == [0x01, 0x02, 0x00, 0x01, 0x00, 0x00, 0x01, 0xFF, 0xFF, 0x00])
        // LE Set Data Length TxTime 328 – 17,040 µs (§7.8.33).
        #expect(HCICommand.leSetDataLength(handle: 1, txOctets: 27, txTime: .microseconds(100)).parameters
                == [0x01, 0x00, 0x1B, 0x00, 0x48, 0x01])
    }

    @Test("decoding keeps a controller's value exactly, in range or not")
    func decodingIsExact() throws {
        // LE Connection Update Complete (§7.7.65.3) with an interval of 1 unit and a timeout of 0.
        let event = try LEMetaEvent(decoding: [0x03, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00])
        #expect(event == .connectionUpdateComplete(status: 0, handle: 1, interval: .microseconds(1250), latency: 0,
                                                   supervisionTimeout: .zero))
        // A scan interval of 0xFFFF units in a legacy command decodes as it is...
        let command = try HCICommand(decoding: [0x0B, 0x20, 0x07, 0x01, 0xFF, 0xFF, 0x04, 0x00, 0x00, 0x00])
        guard case .leSetScanParameters(let p) = command else { Issue.record("\(command)"); return }
        #expect(p.interval == .microseconds(0xFFFF * 625) && p.window == .microseconds(2500) && p.scanType == .active)
        // ...and is clamped into the legacy range when encoded again.
        #expect(command.parameters == [0x01, 0x00, 0x40, 0x04, 0x00, 0x00, 0x00])
    }

    @Test("codes the specification does not define decode and encode unchanged")
    func unknownCodes() throws {
        // LE Advertising Report (§7.7.65.2) with event type 0x07 (reserved).
        let report: [UInt8] = [0x02, 0x01, 0x07, 0x01, 0x55, 0x44, 0x33, 0x22, 0x11, 0xC0, 0x00, 0xC4]
        let decoded = try LEMetaEvent(decoding: report)
        guard case .advertisingReport(let reports) = decoded else { Issue.record("\(decoded)"); return }
        #expect(reports.first?.eventType == LEAdvertisingReportType(rawValue: 0x07))
        #expect(reports.first?.eventType.isConnectable == false)
        #expect(decoded.parameters == report)
        // LE PHY Update Complete (§7.7.65.12) with PHY 0x09 (reserved) and LE Coded.
        let phy = try LEMetaEvent(decoding: [0x0C, 0x00, 0x01, 0x00, 0x09, 0x03])
        #expect(phy == .phyUpdateComplete(status: 0, handle: 1, txPHY: LEPHY(rawValue: 0x09), rxPHY: .leCoded))
        #expect(phy.parameters == [0x0C, 0x00, 0x01, 0x00, 0x09, 0x03])
        // LE Set Advertising Parameters with advertising type 0x05 and channel bit 3 (reserved).
        let advertising: [UInt8] = [0x06, 0x20, 0x0F, 0xA0, 0x00, 0xA0, 0x00, 0x05, 0x00, 0x00,
                                    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0F, 0x00]
        let command = try HCICommand(decoding: advertising)
        guard case .leSetAdvertisingParameters(let p) = command else { Issue.record("\(command)"); return }
        #expect(p.advertisingType == LEAdvertisingType(rawValue: 0x05) && p.channelMap == [.all, LEAdvertisingChannels(rawValue: 0x08)])
        #expect(p.intervalMin == .milliseconds(100))
        #expect(command.encoded == advertising)
    }

    @Test("codes and bit fields carry the specification's values")
    func specificationValues() throws {
        // §7.8.5 Advertising_Type.
        #expect([LEAdvertisingType.connectableScannableUndirected, .connectableDirectedHighDutyCycle, .scannableUndirected,
                 .nonConnectableUndirected, .connectableDirectedLowDutyCycle].map(\.rawValue) == [0, 1, 2, 3, 4])
        // §7.8.10 LE_Scan_Type; §7.8.53 PHYs; §7.7.65.1 Role; §7.7.65.2 report types.
        #expect([LEScanType.passive, .active].map(\.rawValue) == [0, 1])
        #expect([LEPHY.le1M, .le2M, .leCoded].map(\.rawValue) == [1, 2, 3])
        #expect([LEConnectionRole.central, .peripheral].map(\.rawValue) == [0, 1])
        #expect([LEAdvertisingReportType.connectableScannableUndirected, .connectableDirected, .scannableUndirected,
                 .nonConnectableUndirected, .scanResponse].map(\.rawValue) == [0, 1, 2, 3, 4])
        // Bit fields: §7.8.49 PHY masks and ALL_PHYS, §7.8.53 event properties, §7.8.5 channel map.
        #expect(LEPHYSet([.le1M, .le2M, .leCoded]).rawValue == 0b111 && LEPHYSet.leCoded.rawValue == 0b100)
        #expect(LEAllPHYs([.noTransmitterPreference, .noReceiverPreference]).rawValue == 0b11)
        #expect(LEAdvertisingEventProperties([.connectable, .scannable, .legacy]).rawValue == 0x13)
        #expect(LEAdvertisingEventProperties([.directed, .highDutyCycle, .anonymous, .includesTxPower]).rawValue == 0x6C)
        #expect(LEAdvertisingChannels.all.rawValue == 0x07)
        // §7.7.65.13: event type bits and the data status in bits 5–6.
        let report = LEExtendedAdvertisingEventType(rawValue: 0b0101_1001)
        #expect(report.contains(.connectable) && report.contains(.scanResponse) && report.contains(.legacy))
        #expect(!report.contains(.scannable) && report.dataStatus == 2 && report.contains(.truncated))
        #expect(LEExtendedAdvertisingEventType.incomplete.dataStatus == 1)
        // An extended report's secondary PHY 0 means none; its periodic interval 0 means none.
        let none = LEExtendedAdvertisingReport(eventType: [.connectable], addressType: .publicDevice, address: .zero, rssi: -40, data: [])
        var bytes: [UInt8] = []
        none.encode(into: &bytes)
        #expect(bytes[9] == 0x01 && bytes[10] == 0x00 && bytes[14] == 0x00 && bytes[15] == 0x00)
        var periodic = none
        periodic.secondaryPHY = .le2M
        periodic.periodicInterval = .microseconds(7500)
        bytes = []
        periodic.encode(into: &bytes)
        #expect(bytes[10] == 0x02 && bytes[14] == 0x06 && bytes[15] == 0x00)
        var reader = ByteReader(bytes, packet: "report")
        #expect(try LEExtendedAdvertisingReport(reading: &reader) == periodic)
    }
}
