/// Body Composition Measurement (0x2A9C), GATT Specification Supplement, "Body Composition
/// Measurement". After a `uint16` Flags field and the Body Fat Percentage, each field is
/// present when its flag is set, in this order:
///
/// | field | size | flags bit |
/// |---|---|---|
/// | Body Fat Percentage | uint16 (0.1 %) | always |
/// | Time Stamp | Date Time, 7 bytes | 1 |
/// | User ID | uint8 (255: unknown user) | 2 |
/// | Basal Metabolism | uint16 (kJ) | 3 |
/// | Muscle Percentage | uint16 (0.1 %) | 4 |
/// | Muscle Mass | uint16 (mass) | 5 |
/// | Fat Free Mass | uint16 (mass) | 6 |
/// | Soft Lean Mass | uint16 (mass) | 7 |
/// | Body Water Mass | uint16 (mass) | 8 |
/// | Impedance | uint16 (0.1 Ω) | 9 |
/// | Weight | uint16 (mass) | 10 |
/// | Height | uint16 (0.001 m or 0.1 in) | 11 |
///
/// Flags bit 0 selects the units (masses in 0.005 kg, or 0.01 lb when set; see
/// ``BodyMeasurementUnits``); bit 12 marks a measurement split over several indications
/// (Multiple Packet Measurement). Bits 13–15 are reserved, written 0 and ignored when read.
public struct BodyCompositionMeasurement: GATTStructure, Hashable {
    /// Body fat, in 0.1 %; ``measurementUnsuccessful`` (0xFFFF) when the measurement failed.
    public var bodyFatPercentage: UInt16
    /// SI (kg, m) or imperial (lb, in), for every mass and the height.
    public var units: BodyMeasurementUnits
    /// When the measurement was taken (flags bit 1).
    public var timestamp: DateTime?
    /// The user measured (flags bit 2); 255 for an unknown user.
    public var userID: UInt8?
    /// Basal metabolism, in kJ (flags bit 3).
    public var basalMetabolism: UInt16?
    /// Muscle, in 0.1 % (flags bit 4).
    public var musclePercentage: UInt16?
    /// Muscle mass, in 0.005 kg or 0.01 lb (flags bit 5).
    public var muscleMass: UInt16?
    /// Fat-free mass, in 0.005 kg or 0.01 lb (flags bit 6).
    public var fatFreeMass: UInt16?
    /// Soft lean mass, in 0.005 kg or 0.01 lb (flags bit 7).
    public var softLeanMass: UInt16?
    /// Body water mass, in 0.005 kg or 0.01 lb (flags bit 8).
    public var bodyWaterMass: UInt16?
    /// Impedance, in 0.1 Ω (flags bit 9).
    public var impedance: UInt16?
    /// Weight, in 0.005 kg or 0.01 lb (flags bit 10).
    public var weight: UInt16?
    /// Height, in 0.001 m or 0.1 in (flags bit 11).
    public var height: UInt16?
    /// Whether this value is one of several indications that make up one measurement (flags
    /// bit 12, Multiple Packet Measurement): a server splits a measurement too long for the
    /// link's MTU, each part with the flags of the fields it carries.
    public var isMultiplePacketMeasurement: Bool

    /// The Body Fat Percentage that means the measurement was unsuccessful.
    public static let measurementUnsuccessful: UInt16 = 0xFFFF

    /// A measurement; the flags follow from which fields are given.
    public init(bodyFatPercentage: UInt16, units: BodyMeasurementUnits = .si, timestamp: DateTime? = nil,
                userID: UInt8? = nil, basalMetabolism: UInt16? = nil, musclePercentage: UInt16? = nil,
                muscleMass: UInt16? = nil, fatFreeMass: UInt16? = nil, softLeanMass: UInt16? = nil,
                bodyWaterMass: UInt16? = nil, impedance: UInt16? = nil, weight: UInt16? = nil, height: UInt16? = nil,
                isMultiplePacketMeasurement: Bool = false) {
        self.bodyFatPercentage = bodyFatPercentage
        self.units = units
        self.timestamp = timestamp
        self.userID = userID
        self.basalMetabolism = basalMetabolism
        self.musclePercentage = musclePercentage
        self.muscleMass = muscleMass
        self.fatFreeMass = fatFreeMass
        self.softLeanMass = softLeanMass
        self.bodyWaterMass = bodyWaterMass
        self.impedance = impedance
        self.weight = weight
        self.height = height
        self.isMultiplePacketMeasurement = isMultiplePacketMeasurement
    }

    enum Flag {
        static let imperial: UInt16 = 1 << 0
        static let timestamp: UInt16 = 1 << 1
        static let userID: UInt16 = 1 << 2
        static let multiplePacket: UInt16 = 1 << 12
    }

    /// The `uint16` fields after the User ID, in order, with their flags (bits 3–11).
    private static var optionalFields: [(flag: UInt16, name: String, value: WritableKeyPath<Self, UInt16?>)] {
        [(1 << 3, "Basal Metabolism", \.basalMetabolism), (1 << 4, "Muscle Percentage", \.musclePercentage),
         (1 << 5, "Muscle Mass", \.muscleMass), (1 << 6, "Fat Free Mass", \.fatFreeMass),
         (1 << 7, "Soft Lean Mass", \.softLeanMass), (1 << 8, "Body Water Mass", \.bodyWaterMass),
         (1 << 9, "Impedance", \.impedance), (1 << 10, "Weight", \.weight), (1 << 11, "Height", \.height)]
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let flags = try reader.decode(.uint16, field: "Flags")
        self.init(bodyFatPercentage: try reader.decode(.uint16, field: "Body Fat Percentage"),
                  units: flags & Flag.imperial != 0 ? .imperial : .si,
                  isMultiplePacketMeasurement: flags & Flag.multiplePacket != 0)
        timestamp = flags & Flag.timestamp != 0 ? try reader.decode(DateTime.codec, field: "Time Stamp") : nil
        userID = flags & Flag.userID != 0 ? try reader.decode(.uint8, field: "User ID") : nil
        for field in Self.optionalFields where flags & field.flag != 0 {
            self[keyPath: field.value] = try reader.decode(.uint16, field: field.name)
        }
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        var flags: UInt16 = 0
        if units == .imperial { flags |= Flag.imperial }
        if timestamp != nil { flags |= Flag.timestamp }
        if userID != nil { flags |= Flag.userID }
        if isMultiplePacketMeasurement { flags |= Flag.multiplePacket }
        for field in Self.optionalFields where self[keyPath: field.value] != nil { flags |= field.flag }
        writer.writeInteger(flags)
        writer.writeInteger(bodyFatPercentage)
        if let timestamp { try writer.encode(timestamp, with: DateTime.codec, field: "Time Stamp") }
        if let userID { writer.writeInteger(userID) }
        for field in Self.optionalFields {
            if let value = self[keyPath: field.value] { writer.writeInteger(value) }
        }
    }
}
