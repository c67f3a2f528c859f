/// Blood Pressure Measurement (0x2A35), GATT Specification Supplement, "Blood Pressure
/// Measurement":
///
/// | field | size | present |
/// |---|---|---|
/// | Flags | uint8 | always |
/// | Systolic, Diastolic, Mean Arterial Pressure | SFLOAT (medfloat16) each | always; mmHg, or kPa when flags bit 0 is set |
/// | Time Stamp | Date Time, 7 bytes | when flags bit 1 is set |
/// | Pulse Rate | SFLOAT (beats per minute) | when flags bit 2 is set |
/// | User ID | uint8 (255: unknown user) | when flags bit 3 is set |
/// | Measurement Status | uint16 | when flags bit 4 is set |
///
/// Flags bits 5–7 are reserved, written 0 and ignored when read.
public struct BloodPressureMeasurement: GATTStructure, Hashable {
    /// The unit of the three pressures (flags bit 0).
    public enum Unit: Sendable, Hashable {
        /// Millimetres of mercury (flags bit 0 clear).
        case mmHg
        /// Kilopascals (flags bit 0 set).
        case kPa
    }

    /// Systolic pressure, in ``unit``.
    public var systolic: MedFloat16
    /// Diastolic pressure, in ``unit``.
    public var diastolic: MedFloat16
    /// Mean arterial pressure, in ``unit``.
    public var meanArterialPressure: MedFloat16
    /// mmHg or kPa.
    public var unit: Unit
    /// When the measurement was taken, if the monitor says (flags bit 1).
    public var timestamp: DateTime?
    /// The pulse rate in beats per minute, if measured (flags bit 2).
    public var pulseRate: MedFloat16?
    /// The user the measurement belongs to, if the monitor has several (flags bit 3);
    /// ``unknownUser`` (255) when it cannot tell.
    public var userID: UInt8?
    /// What the monitor noticed during the measurement (flags bit 4).
    public var status: BloodPressureMeasurementStatus?

    /// The User ID that means "unknown user".
    public static let unknownUser: UInt8 = 0xFF

    /// A measurement; the flags follow from which fields are given.
    public init(systolic: MedFloat16, diastolic: MedFloat16, meanArterialPressure: MedFloat16, unit: Unit = .mmHg,
                timestamp: DateTime? = nil, pulseRate: MedFloat16? = nil, userID: UInt8? = nil,
                status: BloodPressureMeasurementStatus? = nil) {
        self.systolic = systolic
        self.diastolic = diastolic
        self.meanArterialPressure = meanArterialPressure
        self.unit = unit
        self.timestamp = timestamp
        self.pulseRate = pulseRate
        self.userID = userID
        self.status = status
    }

    enum Flag {
        static let kPa: UInt8 = 0x01
        static let timestamp: UInt8 = 0x02
        static let pulseRate: UInt8 = 0x04
        static let userID: UInt8 = 0x08
        static let status: UInt8 = 0x10
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let flags = try reader.decode(.uint8, field: "Flags")
        unit = flags & Flag.kPa != 0 ? .kPa : .mmHg
        systolic = try reader.decode(.medfloat16, field: "Systolic")
        diastolic = try reader.decode(.medfloat16, field: "Diastolic")
        meanArterialPressure = try reader.decode(.medfloat16, field: "Mean Arterial Pressure")
        timestamp = flags & Flag.timestamp != 0 ? try reader.decode(DateTime.codec, field: "Time Stamp") : nil
        pulseRate = flags & Flag.pulseRate != 0 ? try reader.decode(.medfloat16, field: "Pulse Rate") : nil
        userID = flags & Flag.userID != 0 ? try reader.decode(.uint8, field: "User ID") : nil
        status = flags & Flag.status != 0
            ? try reader.decode(BloodPressureMeasurementStatus.codec, field: "Measurement Status") : nil
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        var flags: UInt8 = 0
        if unit == .kPa { flags |= Flag.kPa }
        if timestamp != nil { flags |= Flag.timestamp }
        if pulseRate != nil { flags |= Flag.pulseRate }
        if userID != nil { flags |= Flag.userID }
        if status != nil { flags |= Flag.status }
        writer.writeInteger(flags)
        try writer.encode(systolic, with: .medfloat16, field: "Systolic")
        try writer.encode(diastolic, with: .medfloat16, field: "Diastolic")
        try writer.encode(meanArterialPressure, with: .medfloat16, field: "Mean Arterial Pressure")
        if let timestamp { try writer.encode(timestamp, with: DateTime.codec, field: "Time Stamp") }
        if let pulseRate { try writer.encode(pulseRate, with: .medfloat16, field: "Pulse Rate") }
        if let userID { writer.writeInteger(userID) }
        if let status { try writer.encode(status, with: BloodPressureMeasurementStatus.codec, field: "Measurement Status") }
    }
}

/// Measurement Status of a Blood Pressure Measurement, a `uint16` (GATT Specification
/// Supplement, "Blood Pressure Measurement"): bit 0 body movement detected, bit 1 cuff too
/// loose, bit 2 irregular pulse detected, bits 3–4 the pulse rate range (3 is reserved and
/// refused), bit 5 improper measurement position. Bits 6–15 are reserved, written 0 and
/// ignored when read.
public struct BloodPressureMeasurementStatus: GATTStructure, Hashable {
    /// Where the pulse rate lay against the monitor's limits (bits 3–4).
    public enum PulseRateRange: UInt8, Sendable, Hashable, CaseIterable {
        /// 0: within range.
        case withinRange = 0
        /// 1: above the upper limit.
        case exceedsUpperLimit = 1
        /// 2: below the lower limit.
        case belowLowerLimit = 2
    }

    /// The body moved during the measurement (bit 0).
    public var bodyMovementDetected: Bool
    /// The cuff was too loose (bit 1).
    public var cuffTooLoose: Bool
    /// An irregular pulse was detected (bit 2).
    public var irregularPulseDetected: Bool
    /// The pulse rate against the monitor's limits (bits 3–4).
    public var pulseRateRange: PulseRateRange
    /// The measurement position was improper (bit 5).
    public var improperMeasurementPosition: Bool

    /// A status; every condition defaults to "not detected".
    public init(bodyMovementDetected: Bool = false, cuffTooLoose: Bool = false, irregularPulseDetected: Bool = false,
                pulseRateRange: PulseRateRange = .withinRange, improperMeasurementPosition: Bool = false) {
        self.bodyMovementDetected = bodyMovementDetected
        self.cuffTooLoose = cuffTooLoose
        self.irregularPulseDetected = irregularPulseDetected
        self.pulseRateRange = pulseRateRange
        self.improperMeasurementPosition = improperMeasurementPosition
    }

    static let range = PackedEnumeration<PulseRateRange>(shift: 3, width: 2, field: "Pulse Rate Range Detection")

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let raw = try reader.readInteger(UInt16.self)
        bodyMovementDetected = raw & 0x01 != 0
        cuffTooLoose = raw & 0x02 != 0
        irregularPulseDetected = raw & 0x04 != 0
        pulseRateRange = try Self.range.decode(from: raw)
        improperMeasurementPosition = raw & 0x20 != 0
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        var raw: UInt16 = Self.range.bits(of: pulseRateRange)
        if bodyMovementDetected { raw |= 0x01 }
        if cuffTooLoose { raw |= 0x02 }
        if irregularPulseDetected { raw |= 0x04 }
        if improperMeasurementPosition { raw |= 0x20 }
        writer.writeInteger(raw)
    }
}

/// Intermediate Cuff Pressure (0x2A36): the cuff pressure while a measurement is under way, in
/// the Blood Pressure Measurement layout with the Current Cuff Pressure in the Systolic field
/// and the Diastolic and Mean Arterial Pressure fields unused — sent as NaN; when read, any
/// SFLOAT there but the reserved value is accepted and dropped. Blood Pressure Service
/// specification, "Intermediate Cuff Pressure".
public struct IntermediateCuffPressure: GATTStructure, Hashable {
    /// The current cuff pressure, in ``unit``.
    public var cuffPressure: MedFloat16
    /// mmHg or kPa.
    public var unit: BloodPressureMeasurement.Unit
    /// When the pressure was read, if the monitor says (flags bit 1).
    public var timestamp: DateTime?
    /// The pulse rate in beats per minute, if measured (flags bit 2).
    public var pulseRate: MedFloat16?
    /// The user being measured (flags bit 3); ``BloodPressureMeasurement/unknownUser`` when not known.
    public var userID: UInt8?
    /// What the monitor noticed so far (flags bit 4).
    public var status: BloodPressureMeasurementStatus?

    /// An intermediate reading; the flags follow from which fields are given.
    public init(cuffPressure: MedFloat16, unit: BloodPressureMeasurement.Unit = .mmHg, timestamp: DateTime? = nil,
                pulseRate: MedFloat16? = nil, userID: UInt8? = nil, status: BloodPressureMeasurementStatus? = nil) {
        self.cuffPressure = cuffPressure
        self.unit = unit
        self.timestamp = timestamp
        self.pulseRate = pulseRate
        self.userID = userID
        self.status = status
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let layout = try BloodPressureMeasurement(from: &reader)
        self.init(cuffPressure: layout.systolic, unit: layout.unit, timestamp: layout.timestamp,
                  pulseRate: layout.pulseRate, userID: layout.userID, status: layout.status)
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        let layout = BloodPressureMeasurement(systolic: cuffPressure, diastolic: .nan, meanArterialPressure: .nan, unit: unit,
                                              timestamp: timestamp, pulseRate: pulseRate, userID: userID, status: status)
        try layout.encode(to: &writer)
    }
}
