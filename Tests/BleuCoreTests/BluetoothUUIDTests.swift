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
        #expect(BluetoothUUID.Service.battery.description == "180F (Battery)")
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
