/// CSC Measurement (0x2A5B), GATT Specification Supplement, "CSC Measurement":
///
/// | field | size | present |
/// |---|---|---|
/// | Flags | uint8 | always |
/// | Cumulative Wheel Revolutions | uint32 | when flags bit 0 is set |
/// | Last Wheel Event Time | uint16 (1/1024 s) | when flags bit 0 is set |
/// | Cumulative Crank Revolutions | uint16 | when flags bit 1 is set |
/// | Last Crank Event Time | uint16 (1/1024 s) | when flags bit 1 is set |
///
/// Flags bits 2–7 are reserved, written 0 and ignored when read.
public struct CSCMeasurement: GATTStructure, Hashable {
    /// Wheel revolutions and the time of the last one (its event time in 1/1024 s), if sent
    /// (flags bit 0).
    public var wheelRevolutions: WheelRevolutionData?
    /// Crank revolutions and the time of the last one, if sent (flags bit 1).
    public var crankRevolutions: CrankRevolutionData?

    /// A measurement; the flags follow from which data are given.
    public init(wheelRevolutions: WheelRevolutionData? = nil, crankRevolutions: CrankRevolutionData? = nil) {
        self.wheelRevolutions = wheelRevolutions
        self.crankRevolutions = crankRevolutions
    }

    enum Flag {
        static let wheelRevolutions: UInt8 = 0x01
        static let crankRevolutions: UInt8 = 0x02
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let flags = try reader.decode(.uint8, field: "Flags")
        wheelRevolutions = flags & Flag.wheelRevolutions != 0
            ? try reader.decode(WheelRevolutionData.codec, field: "Wheel Revolution Data") : nil
        crankRevolutions = flags & Flag.crankRevolutions != 0
            ? try reader.decode(CrankRevolutionData.codec, field: "Crank Revolution Data") : nil
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        var flags: UInt8 = 0
        if wheelRevolutions != nil { flags |= Flag.wheelRevolutions }
        if crankRevolutions != nil { flags |= Flag.crankRevolutions }
        writer.writeInteger(flags)
        if let wheelRevolutions { try wheelRevolutions.encode(to: &writer) }
        if let crankRevolutions { try crankRevolutions.encode(to: &writer) }
    }
}

/// CSC Feature (0x2A5C): what a Cycling Speed and Cadence sensor supports, a 16-bit field.
/// Bits 3–15 are reserved: written 0 and dropped when read. GATT Specification Supplement,
/// "CSC Feature".
public struct CSCFeature: OptionSet, Sendable, Hashable {
    /// The feature bits the specification defines.
    public let rawValue: UInt16

    /// The features these bits say.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// Bit 0: Wheel Revolution Data Supported.
    public static let wheelRevolutionData = CSCFeature(rawValue: 0x0001)
    /// Bit 1: Crank Revolution Data Supported.
    public static let crankRevolutionData = CSCFeature(rawValue: 0x0002)
    /// Bit 2: Multiple Sensor Locations Supported.
    public static let multipleSensorLocations = CSCFeature(rawValue: 0x0004)

    /// The bits the specification defines.
    public static let defined: CSCFeature = [.wheelRevolutionData, .crankRevolutionData, .multipleSensorLocations]

    /// Two bytes; reserved bits are written 0 and dropped when read.
    public static var codec: BitFieldCodec<CSCFeature> { .bitField(defined, undefinedBits: .clear) }
}
