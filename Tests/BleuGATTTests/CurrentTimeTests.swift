import BleuCore
import Foundation
import Testing
@testable import BleuGATT

/// Current Time against bytes built by hand from the GATT Specification Supplement's field
/// tables ("Current Time" = "Exact Time 256" + Adjust Reason; "Exact Time 256" = "Day Date
/// Time" + Fractions256; "Day Date Time" = "Date Time" + "Day of Week").
@Suite("Catalogue: Current Time")
struct CurrentTimeTests {
    // Year 2025 = 0x07E9, Month 12, Day 31, Hours 23, Minutes 59, Seconds 59 (Date Time, 7
    // bytes); Day of Week 3 = Wednesday; Fractions256 0x80 = 0.5 s; Adjust Reason 0x03 =
    // manual time update (bit 0) + external reference time update (bit 1). 10 bytes.
    @Test("every field")
    func everyField() throws {
        let data = bytes("E9 07 0C 1F 17 3B 3B 03 80 03")
        let value = CurrentTime(
            exactTime256: ExactTime256(
                dayDateTime: DayDateTime(dateTime: DateTime(year: 2025, month: 12, day: 31, hours: 23, minutes: 59, seconds: 59),
                                         dayOfWeek: .wednesday),
                fractions256: 0x80),
            adjustReason: [.manualTimeUpdate, .externalReferenceTimeUpdate])
        try expectBytes(CurrentTimeService.currentTime.codec, value, data)
    }

    // Adjust Reason bits 2 (change of time zone) and 3 (change of DST) = 0x0C; reserved bits
    // 4–7 are kept as they came (0xF0 here) so the value round-trips.
    @Test("adjust reason bits, reserved bits kept")
    func adjustReason() throws {
        let reasons = try CurrentTimeService.currentTime.decode(bytes("E9 07 0C 1F 17 3B 3B 03 80 FC")).adjustReason
        #expect(reasons.contains(.changeOfTimeZone) && reasons.contains(.changeOfDST))
        #expect(!reasons.contains(.manualTimeUpdate))
        #expect(reasons.rawValue == 0xFC)
    }

    // GSS "Day of Week": 1 Monday … 7 Sunday, 0 not known, 8–255 not allowed.
    @Test("day of week 8, seconds 60 and a short or long value are rejected")
    func malformed() {
        let codec = CurrentTimeService.currentTime.codec
        expectRejected(codec, bytes("E9 07 0C 1F 17 3B 3B 08 80 03"), .valueNotAllowed)
        expectRejected(codec, bytes("E9 07 0C 1F 17 3B 3C 03 80 03"), .valueNotAllowed)
        expectRejected(codec, bytes("E9 07 0C 1F 17 3B 3B 03 80"), .invalidLength)
        expectRejected(codec, bytes("E9 07 0C 1F 17 3B 3B 03 80 03 00"), .invalidLength)
        let error = codecError { () throws(GATTCodecError) in try CurrentTimeService.currentTime.decode(bytes("E9 07 0C 1F 17 3B 3B 08 80 03")) }
        #expect(error?.path == ["Current Time", "Exact Time 256", "Day Date Time", "Day of Week"])
    }
}
