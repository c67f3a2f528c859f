/// Cycling Power Vector (0x2A64), GATT Specification Supplement, "Cycling Power Vector": the
/// force or torque measured at points along a crank revolution.
///
/// | field | size | present |
/// |---|---|---|
/// | Flags | uint8 | always |
/// | Cumulative Crank Revolutions, Last Crank Event Time | uint16, uint16 (1/1024 s) | when flags bit 0 is set |
/// | First Crank Measurement Angle | uint16 (degrees) | when flags bit 1 is set |
/// | Instantaneous Force Magnitude Array | sint16 each (N), to the end | when flags bit 2 is set |
/// | Instantaneous Torque Magnitude Array | sint16 each (1/32 N·m), to the end | when flags bit 3 is set |
///
/// Flags bits 4–5 are the Instantaneous Measurement Direction; bits 6–7 are reserved, written 0
/// and ignored when read. Bits 2 and 3 exclude each other: both set is
/// ``GATTCodecError/Kind/valueNotAllowed``.
public struct CyclingPowerVector: GATTStructure, Hashable {
    /// The magnitudes measured along the revolution, starting at the first crank measurement angle.
    public enum Magnitudes: Sendable, Hashable {
        /// Instantaneous Force Magnitude Array, in newtons (flags bit 2).
        case force([Int16])
        /// Instantaneous Torque Magnitude Array, in 1/32 N·m (flags bit 3).
        case torque([Int16])
    }

    /// Instantaneous Measurement Direction (flags bits 4–5): which component of the force or torque
    /// the magnitudes are.
    public enum MeasurementDirection: UInt8, Sendable, Hashable, CaseIterable {
        /// 0: unknown.
        case unknown = 0
        /// 1: the tangential component.
        case tangential = 1
        /// 2: the radial component.
        case radial = 2
        /// 3: the lateral component.
        case lateral = 3
    }

    /// Crank revolutions and the time of the last one, if sent (flags bit 0).
    public var crankRevolutions: CrankRevolutionData?
    /// The crank angle of the first magnitude, in degrees, if sent (flags bit 1).
    public var firstCrankMeasurementAngle: UInt16?
    /// The force or torque magnitudes, if sent (flags bit 2 or 3); at least one value each.
    public var magnitudes: Magnitudes?
    /// Which component the magnitudes are (flags bits 4–5).
    public var direction: MeasurementDirection

    /// A vector; the flags follow from which fields are given.
    public init(crankRevolutions: CrankRevolutionData? = nil, firstCrankMeasurementAngle: UInt16? = nil,
                magnitudes: Magnitudes? = nil, direction: MeasurementDirection = .unknown) {
        self.crankRevolutions = crankRevolutions
        self.firstCrankMeasurementAngle = firstCrankMeasurementAngle
        self.magnitudes = magnitudes
        self.direction = direction
    }

    enum Flag {
        static let crankRevolutions: UInt8 = 0x01
        static let firstCrankMeasurementAngle: UInt8 = 0x02
        static let forceArray: UInt8 = 0x04
        static let torqueArray: UInt8 = 0x08
        static let directionShift: UInt8 = 4
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let flags = try reader.decode(.uint8, field: "Flags")
        guard flags & Flag.forceArray == 0 || flags & Flag.torqueArray == 0 else {
            throw GATTCodecError.valueNotAllowed(expected: "a force or a torque magnitude array, not both",
                                                 found: "flags 0x\(String(flags, radix: 16, uppercase: true))").within("Flags")
        }
        direction = MeasurementDirection(rawValue: (flags >> Flag.directionShift) & 0b11) ?? .unknown
        crankRevolutions = flags & Flag.crankRevolutions != 0
            ? try reader.decode(CrankRevolutionData.codec, field: "Crank Revolution Data") : nil
        firstCrankMeasurementAngle = flags & Flag.firstCrankMeasurementAngle != 0
            ? try reader.decode(.uint16, field: "First Crank Measurement Angle") : nil
        if flags & Flag.forceArray != 0 {
            magnitudes = .force(try Self.readArray(&reader, field: "Instantaneous Force Magnitude Array"))
        } else if flags & Flag.torqueArray != 0 {
            magnitudes = .torque(try Self.readArray(&reader, field: "Instantaneous Torque Magnitude Array"))
        } else {
            magnitudes = nil
        }
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        var flags = direction.rawValue << Flag.directionShift
        if crankRevolutions != nil { flags |= Flag.crankRevolutions }
        if firstCrankMeasurementAngle != nil { flags |= Flag.firstCrankMeasurementAngle }
        let array: [Int16]
        switch magnitudes {
        case .force(let values): flags |= Flag.forceArray; array = values
        case .torque(let values): flags |= Flag.torqueArray; array = values
        case nil: array = []
        }
        if magnitudes != nil, array.isEmpty {
            throw GATTCodecError.valueNotAllowed(expected: "one or more magnitudes", found: "none").within("Magnitudes")
        }
        writer.writeInteger(flags)
        if let crankRevolutions { try crankRevolutions.encode(to: &writer) }
        if let firstCrankMeasurementAngle { writer.writeInteger(firstCrankMeasurementAngle) }
        for value in array { writer.writeInteger(value) }
    }

    /// One or more `sint16`s, to the end of the value.
    private static func readArray(_ reader: inout GATTReader, field: String) throws(GATTCodecError) -> [Int16] {
        guard reader.remainingCount >= 2, reader.remainingCount.isMultiple(of: 2) else {
            throw GATTCodecError.invalidLength(expected: "one or more 2-byte magnitudes", found: bytesText(reader.remainingCount))
                .within(field)
        }
        var values: [Int16] = []
        while !reader.isAtEnd { values.append(try reader.decode(.sint16, field: field)) }
        return values
    }
}
