import BleuCore
import Foundation
import Testing
@testable import BleuGATT

@Suite("Integer, Bool, string and data codecs")
struct BasicCodecTests {
    @Test("fixed-width integers are little-endian, as GATT sends them (least significant octet first)")
    func integers() throws {
        try expectBytes(.uint8, 0xAB, bytes("AB"))
        try expectBytes(.uint16, 0x1234, bytes("34 12"))
        try expectBytes(.uint32, 0x1234_5678, bytes("78 56 34 12"))
        try expectBytes(.uint64, 0x0102_0304_0506_0708, bytes("08 07 06 05 04 03 02 01"))
        try expectBytes(.sint8, -2, bytes("FE"))
        try expectBytes(.sint16, -2, bytes("FE FF"))
        try expectBytes(.sint32, -305_419_896, bytes("88 A9 CB ED"))
        try expectBytes(.sint64, Int64.min, bytes("00 00 00 00 00 00 00 80"))
    }

    @Test("uint24 and sint24 are three bytes, sign-extended, and range-checked when encoding")
    func twentyFourBit() throws {
        try expectBytes(.uint24, 0x12_3456, bytes("56 34 12"))
        try expectBytes(.uint24, 0xFF_FFFF, bytes("FF FF FF"))
        try expectBytes(.sint24, -1, bytes("FF FF FF"))
        try expectBytes(.sint24, -0x80_0000, bytes("00 00 80"))
        try expectBytes(.sint24, 0x7F_FFFF, bytes("FF FF 7F"))
        #expect(codecError { () throws(GATTCodecError) in try UInt24Codec().encode(0x100_0000) }?.kind == .valueNotAllowed)
        #expect(codecError { () throws(GATTCodecError) in try Int24Codec().encode(0x80_0000) }?.kind == .valueNotAllowed)
        #expect(codecError { () throws(GATTCodecError) in try Int24Codec().encode(-0x80_0001) }?.kind == .valueNotAllowed)
    }

    @Test("short and long input is an invalid length (ATT 0x0D), saying what was expected and what came")
    func lengths() {
        expectRejected(.uint16, bytes("01"), .invalidLength)
        expectRejected(.uint16, bytes("01 02 03"), .invalidLength)
        expectRejected(.uint24, bytes("01 02"), .invalidLength)
        expectRejected(.uint32, Data(), .invalidLength)
        let error = codecError { () throws(GATTCodecError) in try IntegerCodec<UInt16>().decode(bytes("01")) }
        #expect(error?.expected == "2 bytes (uint16) at offset 0")
        #expect(error?.found == "only 1 byte")
        #expect(error?.attError == .invalidAttributeValueLength)
        #expect(error?.description == "expected 2 bytes (uint16) at offset 0, found only 1 byte (answered with ATT error 0x0D, Invalid Attribute Value Length)")
        let long = codecError { () throws(GATTCodecError) in try IntegerCodec<UInt16>().decode(bytes("01 02 03")) }
        #expect(long?.expected == "2 bytes")
        #expect(long?.found == "3 bytes (1 extra)")
    }

    @Test("a Bool is 0 or 1; any other byte is not allowed (ATT 0x13)")
    func bool() throws {
        try expectBytes(.bool, false, bytes("00"))
        try expectBytes(.bool, true, bytes("01"))
        expectRejected(.bool, bytes("02"), .valueNotAllowed)
        expectRejected(.bool, bytes("01 00"), .invalidLength)
    }

    @Test("UTF-8 strings take the rest of the value, have no terminator, and reject invalid UTF-8")
    func strings() throws {
        try expectBytes(.utf8String, "Bleu", bytes("42 6C 65 75"))
        try expectBytes(.utf8String, "", Data())
        try expectBytes(.utf8String, "°C", bytes("C2 B0 43"))
        expectRejected(.utf8String, bytes("C2"), .valueNotAllowed)
        expectRejected(.utf8String, bytes("FF FE"), .valueNotAllowed)
        expectRejected(.utf8String(maximumLength: 3), bytes("41 42 43 44"), .invalidLength)
        #expect(codecError { () throws(GATTCodecError) in try UTF8StringCodec(maximumLength: 3).encode("ABCD") }?.kind == .invalidLength)
        #expect(codecError { () throws(GATTCodecError) in try UTF8StringCodec().encode(String(repeating: "x", count: 513)) }?.kind == .invalidLength)
    }

    @Test("data is taken as it is, within its allowed lengths")
    func data() throws {
        try expectBytes(.data, bytes("00 01 FF"), bytes("00 01 FF"))
        try expectBytes(.data(count: 2), bytes("AA BB"), bytes("AA BB"))
        expectRejected(.data(count: 2), bytes("AA"), .invalidLength)
        expectRejected(.data(count: 2), bytes("AA BB CC"), .invalidLength)
        expectRejected(.data(lengths: 1...2), Data(), .invalidLength)
        expectRejected(.data, Data(repeating: 0, count: 513), .invalidLength)
    }

    @Test("encoding a value over 512 bytes fails (Core Spec Vol 3 Part F §3.2.9)")
    func attributeLimit() {
        let codec = StructureCodec<Blob>()
        #expect(codecError { () throws(GATTCodecError) in try codec.encode(Blob(count: 513)) }?.kind == .invalidLength)
        #expect((try? codec.encode(Blob(count: 512)))?.count == 512)
    }
}

/// A structure of `count` zero bytes, to reach the attribute value limit.
private struct Blob: GATTStructure {
    var count: Int
    init(count: Int) { self.count = count }
    init(from reader: inout GATTReader) throws(GATTCodecError) { count = reader.readRemainingBytes().count }
    func encode(to writer: inout GATTWriter) throws(GATTCodecError) { writer.writeBytes(Data(count: count)) }
}

@Suite("Range, enumeration and bit-field codecs")
struct ConstrainedCodecTests {
    enum Mode: UInt16, Sendable, CaseIterable { case off = 0, heat = 1, cool = 0x0102 }

    struct Features: OptionSet, Sendable {
        let rawValue: UInt8
        static let a = Features(rawValue: 0x01)
        static let b = Features(rawValue: 0x04)
    }

    @Test("a percentage is 0–100; 101 is not allowed both ways, and the error says so")
    func percentage() throws {
        try expectBytes(.percentage, 0, bytes("00"))
        try expectBytes(.percentage, 100, bytes("64"))
        expectRejected(.percentage, bytes("65"), .valueNotAllowed)
        let error = codecError { () throws(GATTCodecError) in try RangeCheckedCodec(IntegerCodec<UInt8>(), range: 0...100).encode(101) }
        #expect(error?.expected == "0–100")
        #expect(error?.found == "101")
        #expect(error?.attError == .valueNotAllowed)
    }

    @Test("a restricted codec can answer with the error its service names (0xFF Out of Range)")
    func restrictedWithServiceError() {
        expectRejected(IntegerCodec<UInt16>().restricted(to: 1...3600, answering: .outOfRange), bytes("11 0E"), .valueNotAllowed, att: .outOfRange)
    }

    @Test("enumerations use the raw value's width and reject values they do not define")
    func enumeration() throws {
        try expectBytes(.enumeration(Mode.self), .cool, bytes("02 01"))
        try expectBytes(.enumeration(Mode.self), .off, bytes("00 00"))
        expectRejected(.enumeration(Mode.self), bytes("03 00"), .valueNotAllowed)
        expectRejected(.enumeration(Mode.self), bytes("01"), .invalidLength)
        expectRejected(.enumeration(Mode.self, answering: ATTError(0x81)), bytes("03 00"), .valueNotAllowed, att: ATTError(0x81))
        let error = codecError { () throws(GATTCodecError) in try EnumerationCodec(Mode.self).decode(bytes("03 00")) }
        #expect(error?.expected == "one of 0, 1, 258")
        #expect(error?.found == "3, which Mode does not define")
    }

    @Test("bit fields keep undefined bits by default, or reject them on request")
    func bitFields() throws {
        try expectBytes(.bitField(Features([.a, .b])), [.a, .b], bytes("05"))
        try expectBytes(.bitField(Features([.a, .b])), Features(rawValue: 0x85), bytes("85"))
        let strict = BitFieldCodec(defined: Features([.a, .b]), undefinedBits: .reject)
        expectRejected(strict, bytes("85"), .valueNotAllowed)
        #expect(codecError { () throws(GATTCodecError) in try strict.encode(Features(rawValue: 0x02)) }?.kind == .valueNotAllowed)
        #expect(try strict.decode(bytes("04")) == .b)
    }

    @Test("bit fields can clear undefined bits both ways, and take fewer bytes than their raw value")
    func clearedAndNarrowBitFields() throws {
        let cleared = BitFieldCodec(defined: Features([.a, .b]), undefinedBits: .clear)
        #expect(try cleared.decode(bytes("87")) == [.a, .b])
        #expect(try cleared.encode(Features(rawValue: 0x87)) == bytes("05"))
        expectRejected(cleared, bytes(""), .invalidLength)
        // A 24-bit field as a UInt32 set: three bytes each way; bits above them refused unless cleared.
        let wide = BitFieldCodec(defined: Wide.all, byteCount: 3)
        try expectBytes(wide, Wide(rawValue: 0x80_0001), bytes("01 00 80"))
        expectRejected(wide, bytes("01 00"), .invalidLength)
        #expect(codecError { () throws(GATTCodecError) in try wide.encode(Wide(rawValue: 0x0100_0000)) }?.kind == .valueNotAllowed)
        let wideCleared = BitFieldCodec(defined: Wide.all, undefinedBits: .clear, byteCount: 3)
        #expect(try wideCleared.encode(Wide(rawValue: 0xFF80_0001)) == bytes("01 00 80"))
    }

    /// A 24-bit set, bits 0 and 23.
    struct Wide: OptionSet, Sendable, Hashable {
        let rawValue: UInt32
        static let all = Wide(rawValue: 0x80_0001)
    }

    /// An enumeration in two bits of a wider field: decoded with the enumeration codec's error,
    /// named; placed back.
    @Test("packed enumerations read and write their bits, refusing undefined values by name")
    func packedEnumerations() throws {
        typealias Range = BloodPressureMeasurementStatus.PulseRateRange
        let packed = PackedEnumeration<Range>(shift: 3, width: 2, field: "Pulse Rate Range Detection")
        #expect(try packed.decode(from: UInt16(0xFFF7)) == .belowLowerLimit)   // bits 3–4 = 0b10
        #expect(packed.bits(of: .exceedsUpperLimit, as: UInt16.self) == 0x0008)
        let error = codecError { () throws(GATTCodecError) in try packed.decode(from: UInt16(0x0018)) }
        #expect(error?.path == ["Pulse Rate Range Detection"])
        #expect(error?.found == "3, which PulseRateRange does not define")
    }
}

@Suite("Composition")
struct CompositionTests {
    /// A two-field structure written the way the catalogue's are.
    struct Reading: GATTStructure, Equatable {
        var level: UInt8
        var millivolts: UInt16

        init(level: UInt8, millivolts: UInt16) {
            self.level = level
            self.millivolts = millivolts
        }

        init(from reader: inout GATTReader) throws(GATTCodecError) {
            level = try reader.decode(.percentage, field: "Level")
            millivolts = try reader.decode(.uint16, field: "Voltage")
        }

        func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
            try writer.encode(level, with: .percentage, field: "Level")
            try writer.encode(millivolts, with: .uint16, field: "Voltage")
        }
    }

    @Test("a structure writes its fields in order and reads them back")
    func roundTrip() throws {
        try expectBytes(Reading.codec, Reading(level: 42, millivolts: 3300), bytes("2A E4 0C"))
        #expect(try Reading(decoding: bytes("2A E4 0C")) == Reading(level: 42, millivolts: 3300))
        #expect(try Reading(level: 1, millivolts: 2).encoded() == bytes("01 02 00"))
    }

    @Test("errors name the field; short and long input are both invalid lengths")
    func fieldErrors() {
        let short = codecError { () throws(GATTCodecError) in try Reading(decoding: bytes("2A E4")) }
        #expect(short?.path == ["Voltage"])
        #expect(short?.kind == .invalidLength)
        #expect(short?.description.hasPrefix("Voltage: expected 2 bytes (uint16) at offset 1, found only 1 byte") == true)
        let long = codecError { () throws(GATTCodecError) in try Reading(decoding: bytes("2A E4 0C 00")) }
        #expect(long?.kind == .invalidLength)
        #expect(long?.path == [])
        let range = codecError { () throws(GATTCodecError) in try Reading(decoding: bytes("65 E4 0C")) }
        #expect(range?.path == ["Level"])
        #expect(range?.attError == .valueNotAllowed)
        let encode = codecError { () throws(GATTCodecError) in try Reading(level: 200, millivolts: 0).encoded() }
        #expect(encode?.path == ["Level"])
    }

    @Test("the reader reads 1- to 8-byte integers and sign-extends signed ones")
    func reader() throws {
        var reader = GATTReader(bytes("FE FF FF 7F 01 02 03 04 05"))
        #expect(try reader.readInteger(byteCount: 3, as: Int32.self) == -2)
        #expect(try reader.readInteger(byteCount: 1, as: Int8.self) == 127)
        #expect(try reader.readInteger(byteCount: 5, as: UInt64.self) == 0x05_0403_0201)
        #expect(reader.isAtEnd)
        #expect(codecError { () throws(GATTCodecError) in try reader.readByte() }?.found == "the end of the value")
    }
}
