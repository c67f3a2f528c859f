import BleuCore
import Foundation
import Testing
@testable import BleuGATT

/// Battery Level and the Device Information characteristics against bytes built by hand from
/// the GATT Specification Supplement's field tables ("Battery Level", the "… String"
/// characteristics, "System ID", "PnP ID").
@Suite("Catalogue: Battery and Device Information")
struct BatteryAndDeviceInformationTests {
    // GSS "Battery Level": uint8 percentage, 0–100; 101–255 prohibited.
    @Test("Battery Level 0–100; 101 and 255 rejected both ways (0x13); extra bytes rejected (0x0D)")
    func batteryLevel() throws {
        #expect(try BatteryService.level.decode(bytes("00")) == 0)
        #expect(try BatteryService.level.decode(bytes("64")) == 100)
        #expect(try BatteryService.level.encode(57) == bytes("39"))
        expectRejected(BatteryService.level.codec, bytes("65"), .valueNotAllowed)
        expectRejected(BatteryService.level.codec, bytes("FF"), .valueNotAllowed)
        expectRejected(BatteryService.level.codec, bytes("64 00"), .invalidLength)
        expectRejected(BatteryService.level.codec, Data(), .invalidLength)
        let error = codecError { () throws(GATTCodecError) in try BatteryService.level.encode(101) }
        #expect(error?.description == "Battery Level: expected 0–100, found 101 (answered with ATT error 0x13, Value Not Allowed)")
    }

    // GSS strings ("Manufacturer Name String", …): utf8s, the whole value, no terminator.
    @Test("Device Information strings are the whole value in UTF-8")
    func strings() throws {
        let strings: [(Characteristic<String>, UInt16)] = [
            (DeviceInformationService.manufacturerName, 0x2A29), (DeviceInformationService.modelNumber, 0x2A24),
            (DeviceInformationService.serialNumber, 0x2A25), (DeviceInformationService.hardwareRevision, 0x2A27),
            (DeviceInformationService.firmwareRevision, 0x2A26), (DeviceInformationService.softwareRevision, 0x2A28),
        ]
        for (characteristic, uuid) in strings {
            #expect(characteristic.uuid == BluetoothUUID(uuid))
            #expect(characteristic.properties == [.read])
            #expect(try characteristic.decode(bytes("41 63 6D 65 20 C3 A9")) == "Acme é")
        }
        expectRejected(DeviceInformationService.serialNumber.codec, bytes("41 C3"), .valueNotAllowed)
    }

    // GSS "System ID": Manufacturer Identifier uint40, then Organizationally Unique Identifier
    // uint24, least significant octet first: 0x0A0B0C0D0E and OUI 0x001A7D.
    @Test("System ID: 40-bit manufacturer identifier, then 24-bit OUI")
    func systemID() throws {
        let value = SystemID(manufacturerIdentifier: 0x0A_0B0C_0D0E, organizationallyUniqueIdentifier: 0x00_1A7D)
        try expectBytes(DeviceInformationService.systemID.codec, value, bytes("0E 0D 0C 0B 0A 7D 1A 00"))
        expectRejected(DeviceInformationService.systemID.codec, bytes("0E 0D 0C 0B 0A 7D 1A"), .invalidLength)
        expectRejected(DeviceInformationService.systemID.codec, bytes("0E 0D 0C 0B 0A 7D 1A 00 00"), .invalidLength)
        let wide = SystemID(manufacturerIdentifier: 0x01_0000_0000_00, organizationallyUniqueIdentifier: 0)
        #expect(codecError { () throws(GATTCodecError) in try DeviceInformationService.systemID.encode(wide) }?.path
            == ["System ID", "Manufacturer Identifier"])
        let wideOUI = SystemID(manufacturerIdentifier: 0, organizationallyUniqueIdentifier: 0x100_0000)
        #expect(codecError { () throws(GATTCodecError) in try DeviceInformationService.systemID.encode(wideOUI) }?.kind == .valueNotAllowed)
    }

    // GSS "PnP ID": Vendor ID Source uint8 (1 Bluetooth SIG, 2 USB-IF), Vendor ID, Product ID,
    // Product Version uint16 each: source 2, vendor 0x05AC, product 0x0265, version 0x0110.
    @Test("PnP ID: source, vendor, product, version; reserved sources rejected")
    func pnpID() throws {
        let value = PnPID(vendorIDSource: .usbImplementersForum, vendorID: 0x05AC, productID: 0x0265, productVersion: 0x0110)
        try expectBytes(DeviceInformationService.pnpID.codec, value, bytes("02 AC 05 65 02 10 01"))
        #expect(try DeviceInformationService.pnpID.decode(bytes("01 4C 00 01 00 00 01")).vendorIDSource == .bluetoothSIG)
        expectRejected(DeviceInformationService.pnpID.codec, bytes("00 AC 05 65 02 10 01"), .valueNotAllowed)
        expectRejected(DeviceInformationService.pnpID.codec, bytes("03 AC 05 65 02 10 01"), .valueNotAllowed)
        expectRejected(DeviceInformationService.pnpID.codec, bytes("02 AC 05 65 02 10"), .invalidLength)
    }

    @Test("a Device Information service hosts the fields it has as static values")
    func staticValues() throws {
        let service = try DeviceInformationService.declaration {
            try DeviceInformationService.manufacturerName.value("Acme")
            try DeviceInformationService.pnpID.value(PnPID(vendorIDSource: .bluetoothSIG, vendorID: 0x004C, productID: 1, productVersion: 0x0100))
        }
        let definition = try service.definition()
        #expect(definition.uuid == BluetoothUUID(0x180A))
        #expect(definition.characteristics.map(\.value) == [bytes("41 63 6D 65"), bytes("01 4C 00 01 00 00 01")])
        #expect(definition.characteristics.allSatisfy { $0.properties == [.read] && $0.permissions == [.readable] })
    }
}

/// Environmental Sensing characteristics against the GATT Specification Supplement's
/// "Temperature", "Humidity" and "Pressure" field definitions.
@Suite("Catalogue: Environmental Sensing")
struct EnvironmentalSensingTests {
    // GSS "Temperature": sint16, 0.01 °C, −273.15 to 327.67, 0x8000 "value is not known".
    // 21.50 °C = 2150 = 0x0866; −10.25 °C = −1025 = 0xFBFF.
    @Test("Temperature: sint16 in 0.01 °C with 0x8000 for not known")
    func temperature() throws {
        let codec = EnvironmentalSensingService.temperature.codec
        try expectBytes(codec, try Temperature(celsius: 21.5), bytes("66 08"))
        try expectBytes(codec, try Temperature(celsius: -10.25), bytes("FF FB"))
        try expectBytes(codec, .unknown, bytes("00 80"))
        #expect(try codec.decode(bytes("66 08")).celsius == 21.5)
        #expect(Temperature.unknown.celsius == nil)
        try expectBytes(codec, Temperature(hundredths: -27315), bytes("4D 95"))
        expectRejected(codec, bytes("4C 95"), .valueNotAllowed)   // −273.16 °C, below absolute zero
        expectRejected(codec, bytes("66"), .invalidLength)
        #expect(codecError { () throws(GATTCodecError) in try Temperature(celsius: -300) }?.kind == .valueNotAllowed)
    }

    // GSS "Humidity": uint16, 0.01 %, 0 to 100.00, 0xFFFF "value is not known".
    // 45.67 % = 4567 = 0x11D7; 100 % = 10000 = 0x2710.
    @Test("Humidity: uint16 in 0.01 % with 0xFFFF for not known")
    func humidity() throws {
        let codec = EnvironmentalSensingService.humidity.codec
        try expectBytes(codec, try Humidity(percent: 45.67), bytes("D7 11"))
        try expectBytes(codec, try Humidity(percent: 100), bytes("10 27"))
        try expectBytes(codec, .unknown, bytes("FF FF"))
        #expect(Humidity.unknown.percent == nil)
        expectRejected(codec, bytes("11 27"), .valueNotAllowed)   // 100.01 %
        expectRejected(codec, bytes("10 27 00"), .invalidLength)
        #expect(codecError { () throws(GATTCodecError) in try codec.encode(Humidity(hundredths: 10001)) }?.kind == .valueNotAllowed)
    }

    // GSS "Pressure": uint32, 0.1 Pa. 101325.0 Pa = 1013250 = 0x000F7602.
    @Test("Pressure: uint32 in 0.1 Pa")
    func pressure() throws {
        let codec = EnvironmentalSensingService.pressure.codec
        try expectBytes(codec, try Pressure(pascals: 101_325), bytes("02 76 0F 00"))
        #expect(try codec.decode(bytes("02 76 0F 00")).pascals == 101_325)
        expectRejected(codec, bytes("02 76 0F"), .invalidLength)
        #expect(codecError { () throws(GATTCodecError) in try Pressure(pascals: -1) }?.kind == .valueNotAllowed)
    }
}
