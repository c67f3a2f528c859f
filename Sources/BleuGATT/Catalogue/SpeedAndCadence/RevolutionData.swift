/// Wheel Revolution Data, as the CSC Measurement and the Cycling Power Measurement carry it
/// (GATT Specification Supplement, "CSC Measurement" and "Cycling Power Measurement"):
///
/// | field | size |
/// |---|---|
/// | Cumulative Wheel Revolutions | uint32 |
/// | Last Wheel Event Time | uint16 |
///
/// The event time's unit depends on the characteristic: 1/1024 s in a CSC Measurement, 1/2048 s
/// in a Cycling Power Measurement. Both fields wrap around; speed comes from the difference of two
/// measurements.
public struct WheelRevolutionData: GATTStructure, Hashable {
    /// Revolutions counted since the sensor started (or since a Set Cumulative Value); wraps at 2³².
    public var cumulativeRevolutions: UInt32
    /// When the last revolution ended, in 1/1024 s (CSC) or 1/2048 s (Cycling Power); wraps at 2¹⁶.
    public var lastEventTime: UInt16

    /// Wheel revolution data.
    public init(cumulativeRevolutions: UInt32, lastEventTime: UInt16) {
        self.cumulativeRevolutions = cumulativeRevolutions
        self.lastEventTime = lastEventTime
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        cumulativeRevolutions = try reader.decode(.uint32, field: "Cumulative Wheel Revolutions")
        lastEventTime = try reader.decode(.uint16, field: "Last Wheel Event Time")
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeInteger(cumulativeRevolutions)
        writer.writeInteger(lastEventTime)
    }
}

/// Crank Revolution Data, as the CSC Measurement and the Cycling Power Measurement and Vector
/// carry it (GATT Specification Supplement):
///
/// | field | size |
/// |---|---|
/// | Cumulative Crank Revolutions | uint16 |
/// | Last Crank Event Time | uint16 (1/1024 s) |
///
/// Both fields wrap around; cadence comes from the difference of two measurements.
public struct CrankRevolutionData: GATTStructure, Hashable {
    /// Crank revolutions counted since the sensor started; wraps at 2¹⁶.
    public var cumulativeRevolutions: UInt16
    /// When the last crank revolution ended, in 1/1024 s; wraps at 2¹⁶.
    public var lastEventTime: UInt16

    /// Crank revolution data.
    public init(cumulativeRevolutions: UInt16, lastEventTime: UInt16) {
        self.cumulativeRevolutions = cumulativeRevolutions
        self.lastEventTime = lastEventTime
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        cumulativeRevolutions = try reader.decode(.uint16, field: "Cumulative Crank Revolutions")
        lastEventTime = try reader.decode(.uint16, field: "Last Crank Event Time")
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeInteger(cumulativeRevolutions)
        writer.writeInteger(lastEventTime)
    }
}
