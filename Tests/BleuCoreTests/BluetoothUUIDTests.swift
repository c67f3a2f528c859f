import Foundation
import Testing
@testable import BleuCore

@Suite("BluetoothUUID")
struct BluetoothUUIDTests {
    @Test("16-bit, 32-bit and 128-bit SIG forms parse to the same UUID")
    func sigFormsAreEqual() throws {
        let short = try #require(BluetoothUUID(string: "180F"))
        #expect(short == BluetoothUUID(0x180F))
        #expect(short == BluetoothUUID(string: "0x180f"))
        #expect(short == BluetoothUUID(string: "0000180F"))
        #expect(short == BluetoothUUID(string: "0000180F-0000-1000-8000-00805F9B34FB"))
        #expect(short == BluetoothUUID(string: "0000180f00001000800000805f9b34fb"))
        #expect(short.uuid16 == 0x180F)
        #expect(short.uuid32 == 0x180F)
        #expect(short.shortestWidth == .bits16)
    }

    @Test("prints the shortest form")
    func shortestForm() throws {
        #expect(BluetoothUUID(0x2A37).uuidString == "2A37")
        #expect(BluetoothUUID(uuid32: 0x0001_2A37).uuidString == "00012A37")
        #expect(BluetoothUUID(uuid32: 0x0001_2A37).shortestWidth == .bits32)
        let custom = try #require(BluetoothUUID(string: "e2c56db5-dffb-48d2-b060-d0f5a71096e0"))
        #expect(custom.uuidString == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")
        #expect(custom.uuid16 == nil && custom.uuid32 == nil)
        #expect(custom.shortestWidth == .bits128)
        #expect(BluetoothUUID(0x180F).uuidString128 == "0000180F-0000-1000-8000-00805F9B34FB")
    }

    @Test("rejects what is not a UUID", arguments: [
        "", "180", "180FF", "XYZW", "0x", "0000180F-0000-1000-8000-00805F9B34F",
        "0000180F-0000-1000-8000-00805F9B34FBA", "0000180F+0000-1000-8000-00805F9B34FB",
        "18-F", "0000-80F", "0000180F00001000800000805f9b34fg", "0000180F-000010008000-00805F9B34FB",
    ])
    func rejectsInvalid(text: String) {
        #expect(BluetoothUUID(string: text) == nil)
    }

    @Test("text round trip over random UUIDs")
    func textRoundTrip() {
        var rng = SeededRandomNumberGenerator(seed: 1)
        for _ in 0..<2_000 {
            let uuid = randomUUID(&rng)
            #expect(BluetoothUUID(string: uuid.uuidString) == uuid)
            #expect(BluetoothUUID(string: uuid.uuidString128) == uuid)
        }
    }

    @Test("little-endian byte order as ATT sends it")
    func byteOrder() throws {
        let battery = BluetoothUUID(0x180F)
        #expect(battery.attBytes == [0x0F, 0x18])
        #expect(battery.littleEndianBytes(width: .bits32) == [0x0F, 0x18, 0x00, 0x00])
        #expect(battery.littleEndianBytes(width: .bits128)?.first == 0xFB)
        #expect(BluetoothUUID(littleEndianBytes: [0x0F, 0x18]) == battery)
        #expect(BluetoothUUID(littleEndianBytes: [0x0F, 0x18, 0x00, 0x00]) == battery)
        #expect(BluetoothUUID(littleEndianBytes: [0x0F, 0x18, 0x00]) == nil)

        let custom = try #require(BluetoothUUID(string: "00112233-4455-6677-8899-AABBCCDDEEFF"))
        #expect(custom.attBytes == [0xFF, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA, 0x99, 0x88,
                                    0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00])
        #expect(custom.littleEndianBytes(width: .bits16) == nil)
        #expect(custom.littleEndianBytes(width: .bits32) == nil)
    }

    @Test("byte round trip at every width that fits")
    func byteRoundTrip() {
        var rng = SeededRandomNumberGenerator(seed: 2)
        for _ in 0..<2_000 {
            let uuid = randomUUID(&rng)
            for width in BluetoothUUID.Width.allCases {
                guard let bytes = uuid.littleEndianBytes(width: width) else { continue }
                #expect(bytes.count == width.byteCount)
                #expect(BluetoothUUID(littleEndianBytes: bytes) == uuid)
            }
            #expect(BluetoothUUID(littleEndianBytes: uuid.attBytes) == uuid)
        }
    }

    @Test("well-known UUIDs carry their SIG names")
    func names() {
        #expect(BluetoothUUID.Service.battery.description == "180F (Battery Service)")
        #expect(BluetoothUUID.Service.heartRate.name == "Heart Rate")
        #expect(BluetoothUUID.Service.environmentalSensing.name == "Environmental Sensing")
        #expect(BluetoothUUID.Characteristic.heartRateMeasurement.name == "Heart Rate Measurement")
        #expect(BluetoothUUID.Characteristic.temperatureMeasurement.name == "Temperature Measurement")
        #expect(BluetoothUUID.Descriptor.clientCharacteristicConfiguration.name == "Client Characteristic Configuration")
        for short: UInt16 in 0x2900...0x2906 {
            #expect(BluetoothUUID(short).name != nil, "descriptor \(short)")
        }
        for service: UInt16 in [0x1800, 0x1801, 0x180A, 0x180F, 0x180D, 0x1809, 0x1805, 0x181A] {
            #expect(BluetoothUUID(service).name != nil, "service \(service)")
        }
        #expect(BluetoothUUID(0xFFF0).name == nil)
        #expect(BluetoothUUID(0xFFF0).description == "FFF0")
    }

    /// Every characteristic of the eight services the foundation names, as the SIG's Assigned
    /// Numbers list them (GAP and GATT from the Core Spec; BAS 1.1; DIS 1.2; HRS; HTS; CTS; ESS 1.0).
    static let characteristicsByService: [(service: UInt16, characteristics: [(UInt16, String)])] = [
        (0x1800, [(0x2A00, "Device Name"), (0x2A01, "Appearance"), (0x2A02, "Peripheral Privacy Flag"),
                  (0x2A03, "Reconnection Address"), (0x2A04, "Peripheral Preferred Connection Parameters"),
                  (0x2AA6, "Central Address Resolution"), (0x2AC9, "Resolvable Private Address Only"),
                  (0x2B88, "Encrypted Data Key Material"), (0x2BF5, "LE GATT Security Levels")]),
        (0x1801, [(0x2A05, "Service Changed"), (0x2B29, "Client Supported Features"), (0x2B2A, "Database Hash"),
                  (0x2B3A, "Server Supported Features")]),
        (0x1805, [(0x2A2B, "Current Time"), (0x2A0F, "Local Time Information"),
                  (0x2A14, "Reference Time Information")]),
        (0x1809, [(0x2A1C, "Temperature Measurement"), (0x2A1D, "Temperature Type"),
                  (0x2A1E, "Intermediate Temperature"), (0x2A21, "Measurement Interval")]),
        (0x180A, [(0x2A29, "Manufacturer Name String"), (0x2A24, "Model Number String"),
                  (0x2A25, "Serial Number String"), (0x2A27, "Hardware Revision String"),
                  (0x2A26, "Firmware Revision String"), (0x2A28, "Software Revision String"), (0x2A23, "System ID"),
                  (0x2A2A, "IEEE 11073-20601 Regulatory Certification Data List"), (0x2A50, "PnP ID"),
                  (0x2BFF, "UDI for Medical Devices")]),
        (0x180D, [(0x2A37, "Heart Rate Measurement"), (0x2A38, "Body Sensor Location"),
                  (0x2A39, "Heart Rate Control Point")]),
        (0x180F, [(0x2A19, "Battery Level"), (0x2BED, "Battery Level Status"), (0x2BEF, "Estimated Service Date"),
                  (0x2BE9, "Battery Critical Status"), (0x2BF0, "Battery Energy Status"),
                  (0x2BEE, "Battery Time Status"), (0x2BEA, "Battery Health Status"),
                  (0x2BEB, "Battery Health Information"), (0x2BEC, "Battery Information")]),
        (0x181A, [(0x2A7D, "Descriptor Value Changed"), (0x2A73, "Apparent Wind Direction"),
                  (0x2A72, "Apparent Wind Speed"), (0x2A7B, "Dew Point"), (0x2A6C, "Elevation"),
                  (0x2A74, "Gust Factor"), (0x2A7A, "Heat Index"), (0x2A6F, "Humidity"), (0x2A77, "Irradiance"),
                  (0x2A75, "Pollen Concentration"), (0x2A78, "Rainfall"), (0x2A6D, "Pressure"),
                  (0x2A6E, "Temperature"), (0x2A71, "True Wind Direction"), (0x2A70, "True Wind Speed"),
                  (0x2A76, "UV Index"), (0x2A79, "Wind Chill"), (0x2AA3, "Barometric Pressure Trend"),
                  (0x2A2C, "Magnetic Declination"), (0x2AA0, "Magnetic Flux Density - 2D"),
                  (0x2AA1, "Magnetic Flux Density - 3D")]),
    ]

    @Test("every characteristic of the eight named services carries its SIG name")
    func characteristicNames() {
        for (service, characteristics) in Self.characteristicsByService {
            for (number, name) in characteristics {
                #expect(BluetoothUUID(number).name == name,
                        "characteristic \(String(number, radix: 16)) of service \(String(service, radix: 16))")
            }
        }
        let environmental = Self.characteristicsByService.filter { $0.service == 0x181A }.flatMap(\.characteristics)
        #expect(environmental.count == 21, "ESS 1.0 lists 21 characteristics")
    }

    @Test("the characteristic constants carry the numbers their names say")
    func characteristicConstants() {
        typealias C = BluetoothUUID.Characteristic
        let constants: [(BluetoothUUID, String)] = [
            (C.magneticDeclination, "Magnetic Declination"), (C.trueWindSpeed, "True Wind Speed"),
            (C.trueWindDirection, "True Wind Direction"), (C.apparentWindSpeed, "Apparent Wind Speed"),
            (C.apparentWindDirection, "Apparent Wind Direction"), (C.gustFactor, "Gust Factor"),
            (C.pollenConcentration, "Pollen Concentration"), (C.irradiance, "Irradiance"), (C.rainfall, "Rainfall"),
            (C.windChill, "Wind Chill"), (C.heatIndex, "Heat Index"),
            (C.descriptorValueChanged, "Descriptor Value Changed"),
            (C.magneticFluxDensity2D, "Magnetic Flux Density - 2D"),
            (C.magneticFluxDensity3D, "Magnetic Flux Density - 3D"),
            (C.barometricPressureTrend, "Barometric Pressure Trend"), (C.elevation, "Elevation"),
            (C.pressure, "Pressure"), (C.temperature, "Temperature"), (C.humidity, "Humidity"),
            (C.uvIndex, "UV Index"), (C.dewPoint, "Dew Point"),
            (C.batteryLevelStatus, "Battery Level Status"), (C.estimatedServiceDate, "Estimated Service Date"),
            (C.batteryCriticalStatus, "Battery Critical Status"), (C.batteryEnergyStatus, "Battery Energy Status"),
            (C.batteryTimeStatus, "Battery Time Status"), (C.batteryHealthStatus, "Battery Health Status"),
            (C.batteryHealthInformation, "Battery Health Information"),
            (C.batteryInformation, "Battery Information"), (C.udiForMedicalDevices, "UDI for Medical Devices"),
            (C.peripheralPrivacyFlag, "Peripheral Privacy Flag"), (C.reconnectionAddress, "Reconnection Address"),
            (C.encryptedDataKeyMaterial, "Encrypted Data Key Material"),
            (C.leGATTSecurityLevels, "LE GATT Security Levels"),
        ]
        for (uuid, name) in constants {
            #expect(uuid.name == name, "\(uuid)")
        }
    }

    @Test("Codable as the shortest string")
    func codable() throws {
        let values = [BluetoothUUID.Service.battery, BluetoothUUID(string: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!]
        let json = try JSONEncoder().encode(values)
        #expect(String(decoding: json, as: UTF8.self) == #"["180F","E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"]"#)
        #expect(try JSONDecoder().decode([BluetoothUUID].self, from: json) == values)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([BluetoothUUID].self, from: Data(#"["nope"]"#.utf8))
        }
    }

    @Test("string literals")
    func literal() {
        let uuid: BluetoothUUID = "2A19"
        #expect(uuid == BluetoothUUID.Characteristic.batteryLevel)
    }

    @Test("ordering is by bytes")
    func ordering() {
        #expect(BluetoothUUID(0x1800) < BluetoothUUID(0x180F))
        #expect(!(BluetoothUUID(0x180F) < BluetoothUUID(0x180F)))
    }
}

func randomUUID(_ rng: inout SeededRandomNumberGenerator) -> BluetoothUUID {
    switch Int.random(in: 0..<3, using: &rng) {
    case 0: return BluetoothUUID(UInt16.random(in: .min ... .max, using: &rng))
    case 1: return BluetoothUUID(uuid32: UInt32.random(in: .min ... .max, using: &rng))
    default:
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &rng) }
        return BluetoothUUID(littleEndianBytes: bytes)!
    }
}
