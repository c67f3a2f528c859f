// Checks this module's own `CBUUID` (on Apple platforms CoreBluetooth provides the class).
#if !canImport(CoreBluetooth)
import BleuCore
import CoreBluetoothEmulator
@testable import CoreBluetoothVocabulary
import Foundation
import Testing

@Suite("CBUUID")
struct CBUUIDTests {
    @Test("a 16-bit UUID reads from 4 hex digits, prints short and upper case, and is 2 big-endian bytes")
    func sixteenBit() {
        let uuid = CBUUID(string: "180d")
        #expect(uuid.uuidString == "180D")
        #expect(uuid.description == "180D")
        #expect(uuid.data == Data([0x18, 0x0D]))
        #expect(CBUUID(data: Data([0x18, 0x0D])) == uuid)
    }

    @Test("a 32-bit UUID reads from 8 hex digits, prints in 8 digits, and is 4 big-endian bytes")
    func thirtyTwoBit() {
        let uuid = CBUUID(string: "1234abcd")
        #expect(uuid.uuidString == "1234ABCD")
        #expect(uuid.data == Data([0x12, 0x34, 0xAB, 0xCD]))
        #expect(CBUUID(data: Data([0x12, 0x34, 0xAB, 0xCD])) == uuid)
        #expect(uuid != CBUUID(string: "ABCD"))
    }

    @Test("a 128-bit UUID reads from the 36-character form, prints it upper case, and is 16 big-endian bytes")
    func oneHundredTwentyEightBit() {
        let text = "e20a39f4-73f5-4bc4-a12f-17d1ad07a961"
        let uuid = CBUUID(string: text)
        #expect(uuid.uuidString == text.uppercased())
        #expect(uuid.data == Data([0xE2, 0x0A, 0x39, 0xF4, 0x73, 0xF5, 0x4B, 0xC4,
                                   0xA1, 0x2F, 0x17, 0xD1, 0xAD, 0x07, 0xA9, 0x61]))
        #expect(CBUUID(data: uuid.data) == uuid)
        #expect(CBUUID(nsuuid: UUID(uuidString: text)!) == uuid)
        #expect(CBUUID(nsuuid: UUID(uuidString: text)!).uuidString == text.uppercased())
    }

    @Test("a UUID keeps the width it was made with, as CoreBluetooth's does, and equals its other widths")
    func widths() {
        let long = CBUUID(string: "0000180D-0000-1000-8000-00805F9B34FB")
        let middle = CBUUID(string: "0000180D")
        let short = CBUUID(string: "180D")
        #expect(long.uuidString == "0000180D-0000-1000-8000-00805F9B34FB")
        #expect(middle.uuidString == "0000180D")
        #expect(short.uuidString == "180D")
        #expect(long.data.count == 16 && middle.data == Data([0, 0, 0x18, 0x0D]) && short.data == Data([0x18, 0x0D]))
        #expect(long == short && middle == short && long == middle)
        #expect(long.hash == short.hash && middle.hash == short.hash)
        #expect(CBUUID(data: long.data).uuidString == long.uuidString)
        #expect(CBUUID(data: middle.data).uuidString == "0000180D")
        #expect(CBUUID(nsuuid: UUID(uuidString: "0000180D-0000-1000-8000-00805F9B34FB")!).uuidString
            == "0000180D-0000-1000-8000-00805F9B34FB")
    }

    @Test("equal UUIDs find each other's entries as dictionary keys and set members")
    func dictionaryKey() {
        var names: [CBUUID: String] = [CBUUID(string: "180D"): "Heart Rate"]
        names[CBUUID(string: "0000180F-0000-1000-8000-00805F9B34FB")] = "Battery"
        #expect(names[CBUUID(string: "0000180D-0000-1000-8000-00805F9B34FB")] == "Heart Rate")
        #expect(names[CBUUID(data: Data([0x18, 0x0F]))] == "Battery")
        #expect(names[CBUUID(string: "2A37")] == nil)
        #expect(Set([CBUUID(string: "180D"), CBUUID(string: "180d"), CBUUID(data: Data([0x18, 0x0D]))]).count == 1)
    }

    @Test("isEqual is false for other UUIDs and other objects; a copy is equal")
    func equality() {
        let uuid = CBUUID(string: "180D")
        #expect(!uuid.isEqual(CBUUID(string: "180F")))
        #expect(!uuid.isEqual("180D"))
        #expect(!uuid.isEqual(nil))
        #expect((uuid.copy() as? CBUUID) == uuid)
    }

    @Test("only CoreBluetooth's text forms parse",
          arguments: ["180", "18D0D", "XYZW", " 180D", "180D ", "", "0x", "0x180", "0x0x180D", "x180D", "١٨٠D",
                      "0000180D00001000800000805F9B34FB", "0000180D-0000-1000-8000-00805F9B34F",
                      "0000180D-0000-1000-8000_00805F9B34FB", "0000180D+0000-1000-8000-00805F9B34FB"])
    func rejectedText(_ text: String) {
        #expect(CBUUID.parse(text) == nil)
    }

    @Test("CoreBluetooth's text forms parse, with or without 0x",
          arguments: ["180D", "180d", "0x180D", "0X180d", "0000180D", "0x0000180D",
                      "0000180D-0000-1000-8000-00805F9B34FB", "0x0000180d-0000-1000-8000-00805f9b34fb"])
    func acceptedText(_ text: String) throws {
        let (uuid, width) = try #require(CBUUID.parse(text))
        #expect(uuid == BluetoothUUID(0x180D))
        let digits = text.lowercased().hasPrefix("0x") ? text.count - 2 : text.count
        let expected: [Int: BluetoothUUID.Width] = [4: .bits16, 8: .bits32, 36: .bits128]
        #expect(width == expected[digits])
        #expect(CBUUID(string: text) == CBUUID(string: "180D"))
    }

    @Test("an invalid string traps, as CoreBluetooth raises an exception")
    func invalidStringTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = CBUUID(string: "180")
        }
    }

    @Test("data of another length than 2, 4 or 16 bytes traps")
    func invalidDataTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = CBUUID(data: Data([0x18, 0x0D, 0x00]))
        }
    }
}
#endif
