import BleuCore
import Foundation
import Testing
@testable import BleuGATT

/// IEEE 11073-20601 SFLOAT and FLOAT against published examples: the Bluetooth SIG's Personal
/// Health Devices Transcoding white paper ("SFLOAT-Type", "FLOAT-Type": special values and the
/// 114 mmHg and 0.00118 kg/l examples) and the HL7 Personal Health Device implementation
/// guide's table "IEEE 11073 FLOATs and SFLOATs" (the same numbers in both widths).
@Suite("IEEE 11073 SFLOAT and FLOAT")
struct MedicalFloatTests {
    /// (bits, mantissa, exponent, decimal text) from the HL7 PHD guide's SFLOAT table.
    static let sfloatTable: [(UInt16, Int, Int, String)] = [
        (0x0002, 2, 0, "2"), (0xF014, 20, -1, "2.0"), (0xE0C8, 200, -2, "2.00"),
        (0x1002, 2, 1, "20"), (0x2002, 2, 2, "200"), (0x00C8, 200, 0, "200"),
        (0x04D2, 1234, 0, "1234"), (0x0B2E, -1234, 0, "-1234"),
    ]

    /// The same numbers as FLOATs, from the guide's FLOAT table.
    static let floatTable: [(UInt32, Int, Int, String)] = [
        (0x0000_0002, 2, 0, "2"), (0xFF00_0014, 20, -1, "2.0"), (0xFE00_00C8, 200, -2, "2.00"),
        (0x0100_0002, 2, 1, "20"), (0x0200_0002, 2, 2, "200"), (0x0000_00C8, 200, 0, "200"),
        (0x0000_04D2, 1234, 0, "1234"), (0x00FF_FB2E, -1234, 0, "-1234"),
    ]

    @Test("the HL7 PHD guide's SFLOAT and FLOAT examples decode and encode exactly")
    func guideExamples() throws {
        try check(Self.sfloatTable, MedicalFloatCodec<MedFloat16>())
        try check(Self.floatTable, MedicalFloatCodec<MedFloat32>())
    }

    private func check<Float: MedicalFloat>(_ table: [(Float.BitPattern, Int, Int, String)], _ codec: MedicalFloatCodec<Float>) throws {
        for (bits, mantissa, exponent, text) in table {
            let value = try Float(mantissa: mantissa, exponent: exponent)
            #expect(value.bitPattern == bits, "\(text)")
            #expect(value.description == text)
            #expect(Float(bitPattern: bits).mantissa == mantissa && Float(bitPattern: bits).exponent == exponent)
            try expectBytes(codec, value, withUnsafeBytes(of: bits.littleEndian) { Data($0) })
        }
    }

    @Test("the white paper's examples: 114 mmHg is 0x0072, 0.00118 kg/l is 0xB076")
    func whitePaperExamples() throws {
        #expect(try MedFloat16(114, exponent: 0).bitPattern == 0x0072)
        let glucose = MedFloat16(bitPattern: 0xB076)
        #expect(glucose.exponent == -5 && glucose.mantissa == 118)
        #expect(glucose.doubleValue == 0.00118)
        #expect(glucose.description == "0.00118")
        #expect(try MedFloat16(0.00118, exponent: -5) == glucose)
    }

    @Test("the special values have the white paper's bit patterns and Double meanings")
    func specials() throws {
        let sfloat: [(MedicalFloatSpecialValue, UInt16)] = [
            (.nan, 0x07FF), (.nres, 0x0800), (.positiveInfinity, 0x07FE), (.negativeInfinity, 0x0802), (.reserved, 0x0801),
        ]
        for (special, bits) in sfloat {
            #expect(MedFloat16(special).bitPattern == bits)
            #expect(MedFloat16(bitPattern: bits).special == special)
        }
        let float: [(MedicalFloatSpecialValue, UInt32)] = [
            (.nan, 0x007F_FFFF), (.nres, 0x0080_0000), (.positiveInfinity, 0x007F_FFFE),
            (.negativeInfinity, 0x0080_0002), (.reserved, 0x0080_0001),
        ]
        for (special, bits) in float {
            #expect(MedFloat32(special).bitPattern == bits)
            #expect(MedFloat32(bitPattern: bits).special == special)
        }
        #expect(MedFloat16.positiveInfinity.doubleValue == .infinity)
        #expect(MedFloat32.negativeInfinity.doubleValue == -.infinity)
        #expect(MedFloat16.nan.doubleValue.isNaN && MedFloat16.nres.doubleValue.isNaN)
        #expect(MedFloat16.nres.description == "NRes")
        try expectBytes(.medfloat16, .nan, bytes("FF 07"))
        try expectBytes(.medfloat32, .nres, bytes("00 00 80 00"))
        try expectBytes(.medfloat32, .negativeInfinity, bytes("02 00 80 00"))
        // Only exponent 0 holds special values: 0x17FF is 2047 × 10¹.
        #expect(MedFloat16(bitPattern: 0x17FF).special == nil)
        #expect(MedFloat16(bitPattern: 0x17FF).doubleValue == 20470)
    }

    @Test("the reserved value is rejected unless allowed")
    func reserved() throws {
        expectRejected(.medfloat16, bytes("01 08"), .valueNotAllowed)
        expectRejected(.medfloat32, bytes("01 00 80 00"), .valueNotAllowed)
        #expect(try MedicalFloatCodec(MedFloat16.self, allowsReserved: true).decode(bytes("01 08")).special == .reserved)
        #expect(codecError { () throws(GATTCodecError) in try MedicalFloatCodec<MedFloat16>().encode(MedFloat16(.reserved)) }?.kind == .valueNotAllowed)
    }

    @Test("Doubles map to the nearest value at an exponent; NaN and infinities to the specials")
    func fromDouble() throws {
        #expect(try MedFloat32(36.44, exponent: -1).description == "36.4")
        #expect(try MedFloat32(36.4, exponent: -1).doubleValue == 36.4)
        #expect(try MedFloat16(-1.25, exponent: -2).bitPattern == 0xE000 | UInt16(bitPattern: -125) & 0x0FFF)
        #expect(try MedFloat16(.nan, exponent: -1) == .nan)
        #expect(try MedFloat16(.infinity, exponent: 0) == .positiveInfinity)
        #expect(try MedFloat32(-.infinity, exponent: 0) == .negativeInfinity)
        #expect(try MedFloat16(1500, exponent: 2).description == "1500")
    }

    @Test("numbers that do not fit are rejected, as are special mantissas at exponent 0")
    func outOfRange() {
        func rejected(_ body: () throws(GATTCodecError) -> some Any) -> Bool {
            codecError(body)?.kind == .valueNotAllowed
        }
        #expect(rejected { () throws(GATTCodecError) in try MedFloat16(mantissa: 2048, exponent: 1) })
        #expect(rejected { () throws(GATTCodecError) in try MedFloat16(mantissa: 1, exponent: 8) })
        #expect(rejected { () throws(GATTCodecError) in try MedFloat16(mantissa: 2046, exponent: 0) })
        #expect(rejected { () throws(GATTCodecError) in try MedFloat16(mantissa: -2046, exponent: 0) })
        #expect(rejected { () throws(GATTCodecError) in try MedFloat16(4000, exponent: 0) })
        #expect(rejected { () throws(GATTCodecError) in try MedFloat32(mantissa: 8_388_608, exponent: -1) })
        #expect(rejected { () throws(GATTCodecError) in try MedFloat32(mantissa: 1, exponent: -129) })
        #expect((try? MedFloat16(mantissa: 2047, exponent: 1))?.bitPattern == 0x17FF)
        #expect((try? MedFloat16(mantissa: -2045, exponent: 0)) != nil)
    }
}
