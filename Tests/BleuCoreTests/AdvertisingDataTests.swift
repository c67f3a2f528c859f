import Foundation
import Testing
@testable import BleuCore

@Suite("AdvertisingData encoding")
struct AdvertisingDataEncodingTests {
    static let custom = BluetoothUUID(string: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!

    /// Every field, with the bytes the Core Specification Supplement's layout gives.
    static let fields: [(ADStructure, [UInt8])] = [
        (.flags(.leGeneralDiscoverable), [0x02, 0x01, 0x06]),
        (.serviceUUIDs([BluetoothUUID(0x180F), BluetoothUUID(0x180D)], width: .bits16, complete: true),
         [0x05, 0x03, 0x0F, 0x18, 0x0D, 0x18]),
        (.serviceUUIDs([BluetoothUUID(0x180F)], width: .bits16, complete: false), [0x03, 0x02, 0x0F, 0x18]),
        (.serviceUUIDs([BluetoothUUID(uuid32: 0x1234_5678)], width: .bits32, complete: true),
         [0x05, 0x05, 0x78, 0x56, 0x34, 0x12]),
        (.serviceUUIDs([BluetoothUUID(uuid32: 0x1234_5678)], width: .bits32, complete: false),
         [0x05, 0x04, 0x78, 0x56, 0x34, 0x12]),
        (.serviceUUIDs([custom], width: .bits128, complete: true), [0x11, 0x07] + custom.bytes.reversed()),
        (.serviceUUIDs([custom], width: .bits128, complete: false), [0x11, 0x06] + custom.bytes.reversed()),
        (.solicitedServiceUUIDs([BluetoothUUID(0x1812)], width: .bits16), [0x03, 0x14, 0x12, 0x18]),
        (.solicitedServiceUUIDs([BluetoothUUID(uuid32: 0xAABB_CCDD)], width: .bits32), [0x05, 0x1F, 0xDD, 0xCC, 0xBB, 0xAA]),
        (.solicitedServiceUUIDs([custom], width: .bits128), [0x11, 0x15] + custom.bytes.reversed()),
        (.localName("Thermo", complete: true), [0x07, 0x09] + Array("Thermo".utf8)),
        (.localName("The", complete: false), [0x04, 0x08] + Array("The".utf8)),
        (.txPowerLevel(-8), [0x02, 0x0A, 0xF8]),
        (.connectionIntervalRange(minimum: 0x0006, maximum: 0x0C80), [0x05, 0x12, 0x06, 0x00, 0x80, 0x0C]),
        (.serviceData(BluetoothUUID(0x180F), Data([0x64]), width: .bits16), [0x04, 0x16, 0x0F, 0x18, 0x64]),
        (.serviceData(BluetoothUUID(uuid32: 0x1234_5678), Data([0x01, 0x02]), width: .bits32),
         [0x07, 0x20, 0x78, 0x56, 0x34, 0x12, 0x01, 0x02]),
        (.serviceData(custom, Data([0xAB]), width: .bits128), [0x12, 0x21] + custom.bytes.reversed() + [0xAB]),
        (.appearance(0x0341), [0x03, 0x19, 0x41, 0x03]),
        (.manufacturerData(ManufacturerData(companyID: 0x004C, data: Data([0x01, 0x02]))), [0x05, 0xFF, 0x4C, 0x00, 0x01, 0x02]),
        (.other(type: 0x2A, data: Data([0x09, 0x08])), [0x03, 0x2A, 0x09, 0x08]),
    ]

    @Test("each field encodes to the specified bytes and decodes back")
    func everyFieldRoundTrips() throws {
        for (structure, bytes) in Self.fields {
            let data = AdvertisingData([structure])
            #expect(Array(try data.encoded()) == bytes, "\(structure.fieldName)")
            #expect(try AdvertisingData(decoding: bytes) == data, "\(structure.fieldName)")
        }
    }

    @Test("several fields together round trip in order")
    func combinedRoundTrip() throws {
        let data = AdvertisingData([
            .flags(.leGeneralDiscoverable), .txPowerLevel(4), .appearance(0x0340),
            .serviceUUIDs([BluetoothUUID.Service.heartRate], width: .bits16, complete: true),
            .localName("HRM-1", complete: true),
        ])
        let bytes = try data.encoded()
        #expect(bytes.count == 3 + 3 + 4 + 4 + 7)
        #expect(try AdvertisingData(decoding: bytes) == data)
    }

    @Test("the field initializer and accessors")
    func convenience() throws {
        let data = AdvertisingData(
            flags: .leGeneralDiscoverable, localName: "T",
            serviceUUIDs: [BluetoothUUID(0x180F), Self.custom],
            solicitedServiceUUIDs: [BluetoothUUID(0x1812)], txPowerLevel: -4,
            serviceData: [BluetoothUUID(0x180F): Data([80])], appearance: 0x0341)
        let decoded = try AdvertisingData(decoding: try data.encoded(maximumLength: 255))
        #expect(decoded.flags == .leGeneralDiscoverable)
        #expect(decoded.localName == "T")
        #expect(decoded.serviceUUIDs == [BluetoothUUID(0x180F), Self.custom])
        #expect(decoded.solicitedServiceUUIDs == [BluetoothUUID(0x1812)])
        #expect(decoded.txPowerLevel == -4)
        #expect(decoded.serviceData == [BluetoothUUID(0x180F): Data([80])])
        #expect(decoded.appearance == 0x0341)
        #expect(decoded.manufacturerData == nil)
        #expect(decoded.iBeacon == nil)
    }

    @Test("the complete local name wins over the shortened one")
    func localNamePreference() {
        let data = AdvertisingData([.localName("Therm", complete: false), .localName("Thermometer", complete: true)])
        #expect(data.localName == "Thermometer")
        #expect(AdvertisingData([.localName("Therm", complete: false)]).localName == "Therm")
    }

    @Test("encoding past 31 bytes names the field that does not fit")
    func legacyLimit() throws {
        let data = AdvertisingData([.flags(.leGeneralDiscoverable), .localName(String(repeating: "x", count: 27), complete: true)])
        #expect(throws: AdvertisingDataError.doesNotFit(field: "complete local name", needed: 29, available: 28)) {
            try data.encoded()
        }
        #expect(try data.encoded(maximumLength: 32).count == 32)
        // Exactly 31 fits.
        let full = AdvertisingData([.flags(.leGeneralDiscoverable), .localName(String(repeating: "x", count: 26), complete: true)])
        #expect(try full.encoded().count == 31)
    }

    @Test("a UUID too wide for its list is an encoding error")
    func invalidWidth() {
        let data = AdvertisingData([.serviceUUIDs([Self.custom], width: .bits16, complete: true)])
        #expect(throws: AdvertisingDataError.self) { try data.encoded() }
        let tooLong = AdvertisingData([.manufacturerData(ManufacturerData(companyID: 1, data: Data(count: 253)))])
        #expect(throws: AdvertisingDataError.invalidField(field: "manufacturer specific data",
                                                          reason: "255 bytes exceed the 254 one AD structure holds")) {
            try tooLong.encoded(maximumLength: 1000)
        }
    }

    @Test("split keeps flags in the advertisement and moves what does not fit to the scan response")
    func split() throws {
        let name = String(repeating: "n", count: 20)
        let data = AdvertisingData([
            .flags(.leGeneralDiscoverable),
            .serviceUUIDs([Self.custom], width: .bits128, complete: true),  // 18 bytes
            .localName(name, complete: true),                             // 22 bytes
            .txPowerLevel(0),                                             // 3 bytes
        ])
        let (advertising, response) = try data.split()
        #expect(advertising.structures == [data.structures[0], data.structures[1], data.structures[3]])
        #expect(response.structures == [data.structures[2]])
        #expect(try advertising.encoded().count <= 31)
        #expect(try response.encoded().count <= 31)
        #expect(advertising.merged(with: response).localName == name)
    }

    @Test("split names a field that fits in neither")
    func splitFailure() {
        let data = AdvertisingData([
            .localName(String(repeating: "a", count: 25), complete: true),
            .localName(String(repeating: "b", count: 25), complete: false),
            .manufacturerData(ManufacturerData(companyID: 7, data: Data(count: 10))),
        ])
        #expect(throws: AdvertisingDataError.doesNotFit(field: "manufacturer specific data", needed: 14, available: 4)) {
            try data.split()
        }
        let huge = AdvertisingData([.localName(String(repeating: "z", count: 40), complete: true)])
        #expect(throws: AdvertisingDataError.self) { try huge.split() }
    }
}

@Suite("iBeacon")
struct IBeaconTests {
    /// An iBeacon advertisement as a scanner receives it: flags, then Apple manufacturer data
    /// with the AirLocate sample UUID, major 1, minor 2 and −59 dBm at one metre.
    static let advertisement: [UInt8] = [
        0x02, 0x01, 0x06,
        0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15,
        0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0,
        0x00, 0x01, 0x00, 0x02, 0xC5,
    ]

    @Test("decodes a known advertisement")
    func decode() throws {
        let data = try AdvertisingData(decoding: Self.advertisement)
        let beacon = try #require(data.iBeacon)
        #expect(beacon.proximityUUID == UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
        #expect(beacon.major == 1)
        #expect(beacon.minor == 2)
        #expect(beacon.measuredPower == -59)
        #expect(data.flags == .leGeneralDiscoverable)
    }

    @Test("encodes back to the same bytes")
    func encode() throws {
        let beacon = IBeacon(proximityUUID: UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!,
                             major: 1, minor: 2, measuredPower: -59)
        let data = AdvertisingData([.flags(.leGeneralDiscoverable), .manufacturerData(beacon.manufacturerData)])
        #expect(Array(try data.encoded()) == Self.advertisement)
    }

    @Test("other manufacturer data is not an iBeacon")
    func notABeacon() {
        #expect(IBeacon(manufacturerData: ManufacturerData(companyID: 0x0059, data: Data(count: 23))) == nil)
        #expect(IBeacon(manufacturerData: ManufacturerData(companyID: 0x004C, data: Data([0x10, 0x05, 0x01]))) == nil)
        var wrongLength = Array(Self.advertisement[7...])
        wrongLength.removeLast()
        #expect(IBeacon(manufacturerData: ManufacturerData(companyID: 0x004C, data: Data(wrongLength))) == nil)
    }
}
