/// Day of Week (0x2A09): 1 Monday … 7 Sunday, 0 not known; 8–255 are rejected.
/// GATT Specification Supplement, "Day of Week".
public enum DayOfWeek: UInt8, Sendable, Hashable, CaseIterable {
    /// 0: the day is not known.
    case unknown = 0
    case monday, tuesday, wednesday, thursday, friday, saturday, sunday
}

/// Day Date Time (0x2A0A): a ``DateTime`` followed by a ``DayOfWeek``, 8 bytes.
/// GATT Specification Supplement, "Day Date Time".
public struct DayDateTime: GATTStructure, Hashable {
    /// The date and time.
    public var dateTime: DateTime
    /// The day of the week, which the date also implies; a server sends both.
    public var dayOfWeek: DayOfWeek

    /// A date, time and day of the week.
    public init(dateTime: DateTime, dayOfWeek: DayOfWeek) {
        self.dateTime = dateTime
        self.dayOfWeek = dayOfWeek
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        dateTime = try reader.decode(DateTime.codec, field: "Date Time")
        dayOfWeek = try reader.decode(.enumeration(DayOfWeek.self), field: "Day of Week")
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        try writer.encode(dateTime, with: DateTime.codec, field: "Date Time")
        try writer.encode(dayOfWeek, with: .enumeration(DayOfWeek.self), field: "Day of Week")
    }
}

/// Exact Time 256 (0x2A0C): a ``DayDateTime`` and Fractions256 (uint8, 1/256 s), 9 bytes.
/// GATT Specification Supplement, "Exact Time 256".
public struct ExactTime256: GATTStructure, Hashable {
    /// The date, time and day of the week.
    public var dayDateTime: DayDateTime
    /// Fractions of a second, in 1/256 s.
    public var fractions256: UInt8

    /// A time to 1/256 s.
    public init(dayDateTime: DayDateTime, fractions256: UInt8 = 0) {
        self.dayDateTime = dayDateTime
        self.fractions256 = fractions256
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        dayDateTime = try reader.decode(DayDateTime.codec, field: "Day Date Time")
        fractions256 = try reader.decode(.uint8, field: "Fractions256")
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        try writer.encode(dayDateTime, with: DayDateTime.codec, field: "Day Date Time")
        writer.writeInteger(fractions256)
    }
}
