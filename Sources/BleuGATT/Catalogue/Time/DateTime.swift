import Foundation

/// Date Time (0x2A08): a Gregorian calendar date and 24-hour time, 7 bytes — Year (uint16,
/// 1582–9999, 0 not known), Month (uint8, 1–12, 0 not known), Day (uint8, 1–31, 0 not
/// known), Hours (0–23), Minutes (0–59), Seconds (0–59). GATT Specification Supplement, "Date Time".
/// Fields outside these ranges are rejected both ways (``GATTCodecError/Kind/valueNotAllowed``).
public struct DateTime: GATTStructure, Hashable {
    /// 1582–9999, or 0 when not known.
    public var year: UInt16
    /// 1 (January) – 12, or 0 when not known.
    public var month: UInt8
    /// Day of the month, 1–31, or 0 when not known.
    public var day: UInt8
    /// Hours past midnight, 0–23.
    public var hours: UInt8
    /// Minutes past the hour, 0–59.
    public var minutes: UInt8
    /// Seconds past the minute, 0–59 (no leap second).
    public var seconds: UInt8

    /// A date and time from its fields, unchecked: encoding rejects fields out of range.
    public init(year: UInt16, month: UInt8, day: UInt8, hours: UInt8 = 0, minutes: UInt8 = 0, seconds: UInt8 = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    /// The calendar fields of `date` in `timeZone` (whole seconds, rounded down).
    public init(_ date: Date, in timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        self.init(year: UInt16(clamping: parts.year ?? 0), month: UInt8(clamping: parts.month ?? 0),
                  day: UInt8(clamping: parts.day ?? 0), hours: UInt8(clamping: parts.hour ?? 0),
                  minutes: UInt8(clamping: parts.minute ?? 0), seconds: UInt8(clamping: parts.second ?? 0))
    }

    /// The instant these fields name in `timeZone`, or `nil` when the year, month or day is
    /// not known (0) or the fields name no real date (February 30th).
    public func date(in timeZone: TimeZone) -> Date? {
        guard year != 0, month != 0, day != 0 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = DateComponents(year: Int(year), month: Int(month), day: Int(day),
                                   hour: Int(hours), minute: Int(minutes), second: Int(seconds))
        guard parts.isValidDate(in: calendar) else { return nil }
        return calendar.date(from: parts)
    }

    static let yearCodec = RangeOrUnknownCodec<UInt16>(1582...9999, unknown: 0)
    static let monthCodec = IntegerCodec<UInt8>().restricted(to: 0...12)
    static let dayCodec = IntegerCodec<UInt8>().restricted(to: 0...31)
    static let hoursCodec = IntegerCodec<UInt8>().restricted(to: 0...23)
    static let sixtyCodec = IntegerCodec<UInt8>().restricted(to: 0...59)

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        year = try reader.decode(Self.yearCodec, field: "Year")
        month = try reader.decode(Self.monthCodec, field: "Month")
        day = try reader.decode(Self.dayCodec, field: "Day")
        hours = try reader.decode(Self.hoursCodec, field: "Hours")
        minutes = try reader.decode(Self.sixtyCodec, field: "Minutes")
        seconds = try reader.decode(Self.sixtyCodec, field: "Seconds")
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        try writer.encode(year, with: Self.yearCodec, field: "Year")
        try writer.encode(month, with: Self.monthCodec, field: "Month")
        try writer.encode(day, with: Self.dayCodec, field: "Day")
        try writer.encode(hours, with: Self.hoursCodec, field: "Hours")
        try writer.encode(minutes, with: Self.sixtyCodec, field: "Minutes")
        try writer.encode(seconds, with: Self.sixtyCodec, field: "Seconds")
    }
}
