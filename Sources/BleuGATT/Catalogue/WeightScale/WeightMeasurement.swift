/// Weight Measurement (0x2A9D), GATT Specification Supplement, "Weight Measurement":
///
/// | field | size | present |
/// |---|---|---|
/// | Flags | uint8 | always |
/// | Weight | uint16 (0.005 kg, or 0.01 lb when flags bit 0 is set) | always |
/// | Time Stamp | Date Time, 7 bytes | when flags bit 1 is set |
/// | User ID | uint8 (255: unknown user) | when flags bit 2 is set |
/// | BMI | uint16 (0.1 kg/m²) | when flags bit 3 is set |
/// | Height | uint16 (0.001 m, or 0.1 in when flags bit 0 is set) | when flags bit 3 is set |
///
/// Flags bits 4–7 are reserved, written 0 and ignored when read.
public struct WeightMeasurement: GATTStructure, Hashable {
    /// A body mass index with the height it was computed from (flags bit 3: both or neither).
    public struct BMIAndHeight: Sendable, Hashable {
        /// Body mass index, in 0.1 kg/m².
        public var bmi: UInt16
        /// Height, in steps of 0.001 m or 0.1 in as the measurement's units say
        /// (``BodyMeasurementUnits/height(_:)`` converts).
        public var height: UInt16

        /// Both fields, raw.
        public init(bmi: UInt16, height: UInt16) {
            self.bmi = bmi
            self.height = height
        }
    }

    /// The weight, in steps of 0.005 kg or 0.01 lb as ``units`` says
    /// (``BodyMeasurementUnits/mass(_:)`` converts); ``measurementUnsuccessful`` (0xFFFF) when
    /// the scale could not weigh.
    public var weight: UInt16
    /// SI (kg, m) or imperial (lb, in).
    public var units: BodyMeasurementUnits
    /// When the measurement was taken, if the scale says (flags bit 1).
    public var timestamp: DateTime?
    /// The user weighed, if the scale has several (flags bit 2); 255 for an unknown user.
    public var userID: UInt8?
    /// The body mass index and height, if the scale computes it (flags bit 3).
    public var bmiAndHeight: BMIAndHeight?

    /// The Weight that means the measurement was unsuccessful.
    public static let measurementUnsuccessful: UInt16 = 0xFFFF

    /// A measurement; the flags follow from which fields are given.
    public init(weight: UInt16, units: BodyMeasurementUnits = .si, timestamp: DateTime? = nil, userID: UInt8? = nil,
                bmiAndHeight: BMIAndHeight? = nil) {
        self.weight = weight
        self.units = units
        self.timestamp = timestamp
        self.userID = userID
        self.bmiAndHeight = bmiAndHeight
    }

    /// The weight in kilograms or pounds (as ``units`` says), or `nil` when unsuccessful.
    public var weightValue: Double? {
        weight == Self.measurementUnsuccessful ? nil : units.mass(weight)
    }

    enum Flag {
        static let imperial: UInt8 = 0x01
        static let timestamp: UInt8 = 0x02
        static let userID: UInt8 = 0x04
        static let bmiAndHeight: UInt8 = 0x08
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let flags = try reader.decode(.uint8, field: "Flags")
        units = flags & Flag.imperial != 0 ? .imperial : .si
        weight = try reader.decode(.uint16, field: "Weight")
        timestamp = flags & Flag.timestamp != 0 ? try reader.decode(DateTime.codec, field: "Time Stamp") : nil
        userID = flags & Flag.userID != 0 ? try reader.decode(.uint8, field: "User ID") : nil
        if flags & Flag.bmiAndHeight != 0 {
            bmiAndHeight = BMIAndHeight(bmi: try reader.decode(.uint16, field: "BMI"),
                                        height: try reader.decode(.uint16, field: "Height"))
        } else {
            bmiAndHeight = nil
        }
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        var flags: UInt8 = 0
        if units == .imperial { flags |= Flag.imperial }
        if timestamp != nil { flags |= Flag.timestamp }
        if userID != nil { flags |= Flag.userID }
        if bmiAndHeight != nil { flags |= Flag.bmiAndHeight }
        writer.writeInteger(flags)
        writer.writeInteger(weight)
        if let timestamp { try writer.encode(timestamp, with: DateTime.codec, field: "Time Stamp") }
        if let userID { writer.writeInteger(userID) }
        if let bmiAndHeight {
            writer.writeInteger(bmiAndHeight.bmi)
            writer.writeInteger(bmiAndHeight.height)
        }
    }
}
