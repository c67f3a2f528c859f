/// RSC Measurement (0x2A53), GATT Specification Supplement, "RSC Measurement":
///
/// | field | size | present |
/// |---|---|---|
/// | Flags | uint8 | always |
/// | Instantaneous Speed | uint16 (1/256 m/s) | always |
/// | Instantaneous Cadence | uint8 (1/min) | always |
/// | Instantaneous Stride Length | uint16 (1/100 m) | when flags bit 0 is set |
/// | Total Distance | uint32 (1/10 m) | when flags bit 1 is set |
///
/// Flags bit 2 is the Walking or Running Status (0 walking, 1 running); bits 3–7 are reserved,
/// written 0 and ignored when read.
public struct RSCMeasurement: GATTStructure, Hashable {
    /// Whether the user walks or runs (flags bit 2).
    public enum Motion: Sendable, Hashable {
        /// Walking (bit 2 clear).
        case walking
        /// Running (bit 2 set).
        case running
    }

    /// Speed, in 1/256 m/s.
    public var instantaneousSpeed: UInt16
    /// Steps per minute (1/min).
    public var instantaneousCadence: UInt8
    /// Stride length, in 1/100 m (centimetres), if sent (flags bit 0).
    public var instantaneousStrideLength: UInt16?
    /// Distance since the sensor started or since a Set Cumulative Value, in 1/10 m, if sent
    /// (flags bit 1).
    public var totalDistance: UInt32?
    /// Walking or running (flags bit 2); a sensor that cannot tell sends walking.
    public var motion: Motion

    /// A measurement; the flags follow from which fields are given.
    public init(instantaneousSpeed: UInt16, instantaneousCadence: UInt8, instantaneousStrideLength: UInt16? = nil,
                totalDistance: UInt32? = nil, motion: Motion = .walking) {
        self.instantaneousSpeed = instantaneousSpeed
        self.instantaneousCadence = instantaneousCadence
        self.instantaneousStrideLength = instantaneousStrideLength
        self.totalDistance = totalDistance
        self.motion = motion
    }

    /// The speed in metres per second.
    public var metersPerSecond: Double {
        Double(instantaneousSpeed) / 256
    }

    enum Flag {
        static let strideLength: UInt8 = 0x01
        static let totalDistance: UInt8 = 0x02
        static let running: UInt8 = 0x04
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let flags = try reader.decode(.uint8, field: "Flags")
        motion = flags & Flag.running != 0 ? .running : .walking
        instantaneousSpeed = try reader.decode(.uint16, field: "Instantaneous Speed")
        instantaneousCadence = try reader.decode(.uint8, field: "Instantaneous Cadence")
        instantaneousStrideLength = flags & Flag.strideLength != 0
            ? try reader.decode(.uint16, field: "Instantaneous Stride Length") : nil
        totalDistance = flags & Flag.totalDistance != 0 ? try reader.decode(.uint32, field: "Total Distance") : nil
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        var flags: UInt8 = 0
        if instantaneousStrideLength != nil { flags |= Flag.strideLength }
        if totalDistance != nil { flags |= Flag.totalDistance }
        if motion == .running { flags |= Flag.running }
        writer.writeInteger(flags)
        writer.writeInteger(instantaneousSpeed)
        writer.writeInteger(instantaneousCadence)
        if let instantaneousStrideLength { writer.writeInteger(instantaneousStrideLength) }
        if let totalDistance { writer.writeInteger(totalDistance) }
    }
}

/// RSC Feature (0x2A54): what a Running Speed and Cadence sensor supports, a 16-bit field.
/// Bits 5–15 are reserved: written 0 and dropped when read. GATT Specification Supplement,
/// "RSC Feature".
public struct RSCFeature: OptionSet, Sendable, Hashable {
    /// The feature bits the specification defines.
    public let rawValue: UInt16

    /// The features these bits say.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// Bit 0: Instantaneous Stride Length Measurement Supported.
    public static let instantaneousStrideLength = RSCFeature(rawValue: 0x0001)
    /// Bit 1: Total Distance Measurement Supported.
    public static let totalDistance = RSCFeature(rawValue: 0x0002)
    /// Bit 2: Walking or Running Status Supported.
    public static let walkingOrRunningStatus = RSCFeature(rawValue: 0x0004)
    /// Bit 3: Sensor Calibration Procedure Supported.
    public static let sensorCalibrationProcedure = RSCFeature(rawValue: 0x0008)
    /// Bit 4: Multiple Sensor Locations Supported.
    public static let multipleSensorLocations = RSCFeature(rawValue: 0x0010)

    /// The bits the specification defines.
    public static let defined: RSCFeature = [.instantaneousStrideLength, .totalDistance, .walkingOrRunningStatus,
                                             .sensorCalibrationProcedure, .multipleSensorLocations]

    /// Two bytes; reserved bits are written 0 and dropped when read.
    public static var codec: BitFieldCodec<RSCFeature> { .bitField(defined, undefinedBits: .clear) }
}
