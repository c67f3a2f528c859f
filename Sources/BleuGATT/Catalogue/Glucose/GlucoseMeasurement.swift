/// Glucose Measurement (0x2A18), GATT Specification Supplement, "Glucose Measurement":
///
/// | field | size | present |
/// |---|---|---|
/// | Flags | uint8 | always |
/// | Sequence Number | uint16 | always |
/// | Base Time | Date Time, 7 bytes | always |
/// | Time Offset | sint16 (minutes) | when flags bit 0 is set |
/// | Glucose Concentration | SFLOAT (kg/L, or mol/L when flags bit 2 is set) | when flags bit 1 is set |
/// | Type-Sample Location | uint8: Type in bits 0–3, Sample Location in bits 4–7 | when flags bit 1 is set |
/// | Sensor Status Annunciation | uint16 | when flags bit 3 is set |
///
/// Flags bit 4 says a Glucose Measurement Context with the same sequence number follows;
/// bits 5–7 are reserved, written 0 and ignored when read. Flags bit 2 (the unit) is ignored
/// when read without a concentration.
public struct GlucoseMeasurement: GATTStructure, Hashable {
    /// A glucose concentration with its unit and the sample it was measured in (flags bit 1).
    public struct Concentration: Sendable, Hashable {
        /// The concentration, in ``unit``.
        public var value: MedFloat16
        /// kg/L or mol/L (flags bit 2).
        public var unit: Unit
        /// What the sample was (Type, the low nibble).
        public var type: GlucoseSampleType
        /// Where it was taken (Sample Location, the high nibble).
        public var sampleLocation: GlucoseSampleLocation

        /// A concentration.
        public init(_ value: MedFloat16, unit: Unit, type: GlucoseSampleType, sampleLocation: GlucoseSampleLocation) {
            self.value = value
            self.unit = unit
            self.type = type
            self.sampleLocation = sampleLocation
        }
    }

    /// The unit of a glucose concentration (flags bit 2).
    public enum Unit: Sendable, Hashable {
        /// Kilograms per litre (flags bit 2 clear): 1 mg/dL is 1e-5 kg/L.
        case kilogramsPerLitre
        /// Moles per litre (flags bit 2 set): 1 mmol/L is 1e-3 mol/L.
        case molesPerLitre
    }

    /// The record's sequence number, which a Record Access Control Point selection filters on.
    public var sequenceNumber: UInt16
    /// The time of the measurement, before ``timeOffset``.
    public var baseTime: DateTime
    /// Minutes to add to ``baseTime`` for the user-facing time (flags bit 0).
    public var timeOffset: Int16?
    /// The glucose concentration and sample (flags bit 1).
    public var concentration: Concentration?
    /// What the meter's sensor reported at the time (flags bit 3).
    public var sensorStatus: GlucoseSensorStatus?
    /// Whether a Glucose Measurement Context for this record follows (flags bit 4).
    public var contextInformationFollows: Bool

    /// A measurement; the flags follow from which fields are given.
    public init(sequenceNumber: UInt16, baseTime: DateTime, timeOffset: Int16? = nil, concentration: Concentration? = nil,
                sensorStatus: GlucoseSensorStatus? = nil, contextInformationFollows: Bool = false) {
        self.sequenceNumber = sequenceNumber
        self.baseTime = baseTime
        self.timeOffset = timeOffset
        self.concentration = concentration
        self.sensorStatus = sensorStatus
        self.contextInformationFollows = contextInformationFollows
    }

    enum Flag {
        static let timeOffset: UInt8 = 0x01
        static let concentration: UInt8 = 0x02
        static let molesPerLitre: UInt8 = 0x04
        static let sensorStatus: UInt8 = 0x08
        static let contextFollows: UInt8 = 0x10
    }

    static let typeBits = PackedEnumeration<GlucoseSampleType>(shift: 0, width: 4, field: "Type")
    static let locationBits = PackedEnumeration<GlucoseSampleLocation>(shift: 4, width: 4, field: "Sample Location")
    static let sensorStatusCodec = BitFieldCodec(defined: GlucoseSensorStatus.all, undefinedBits: .clear)

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let flags = try reader.decode(.uint8, field: "Flags")
        sequenceNumber = try reader.decode(.uint16, field: "Sequence Number")
        baseTime = try reader.decode(DateTime.codec, field: "Base Time")
        timeOffset = flags & Flag.timeOffset != 0 ? try reader.decode(.sint16, field: "Time Offset") : nil
        if flags & Flag.concentration != 0 {
            let value = try reader.decode(.medfloat16, field: "Glucose Concentration")
            let typeAndLocation = try reader.decode(.uint8, field: "Type-Sample Location")
            do {
                concentration = Concentration(value, unit: flags & Flag.molesPerLitre != 0 ? .molesPerLitre : .kilogramsPerLitre,
                                              type: try Self.typeBits.decode(from: typeAndLocation),
                                              sampleLocation: try Self.locationBits.decode(from: typeAndLocation))
            } catch {
                throw error.within("Type-Sample Location")
            }
        } else {
            concentration = nil
        }
        sensorStatus = flags & Flag.sensorStatus != 0
            ? try reader.decode(Self.sensorStatusCodec, field: "Sensor Status Annunciation") : nil
        contextInformationFollows = flags & Flag.contextFollows != 0
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        var flags: UInt8 = 0
        if timeOffset != nil { flags |= Flag.timeOffset }
        if let concentration {
            flags |= Flag.concentration
            if concentration.unit == .molesPerLitre { flags |= Flag.molesPerLitre }
        }
        if sensorStatus != nil { flags |= Flag.sensorStatus }
        if contextInformationFollows { flags |= Flag.contextFollows }
        writer.writeInteger(flags)
        writer.writeInteger(sequenceNumber)
        try writer.encode(baseTime, with: DateTime.codec, field: "Base Time")
        if let timeOffset { writer.writeInteger(timeOffset) }
        if let concentration {
            try writer.encode(concentration.value, with: .medfloat16, field: "Glucose Concentration")
            writer.writeInteger(Self.typeBits.bits(of: concentration.type, as: UInt8.self)
                                | Self.locationBits.bits(of: concentration.sampleLocation, as: UInt8.self))
        }
        if let sensorStatus { try writer.encode(sensorStatus, with: Self.sensorStatusCodec, field: "Sensor Status Annunciation") }
    }
}

/// The Type nibble of a Glucose Measurement: what the sample was. 0 and 11–15 are reserved
/// and refused. GATT Specification Supplement, "Glucose Measurement".
public enum GlucoseSampleType: UInt8, Sendable, Hashable, CaseIterable {
    /// 1: capillary whole blood.
    case capillaryWholeBlood = 1
    /// 2: capillary plasma.
    case capillaryPlasma = 2
    /// 3: venous whole blood.
    case venousWholeBlood = 3
    /// 4: venous plasma.
    case venousPlasma = 4
    /// 5: arterial whole blood.
    case arterialWholeBlood = 5
    /// 6: arterial plasma.
    case arterialPlasma = 6
    /// 7: undetermined whole blood.
    case undeterminedWholeBlood = 7
    /// 8: undetermined plasma.
    case undeterminedPlasma = 8
    /// 9: interstitial fluid (ISF).
    case interstitialFluid = 9
    /// 10: control solution.
    case controlSolution = 10
}

/// The Sample Location nibble of a Glucose Measurement. 0 and 5–14 are reserved and refused.
/// GATT Specification Supplement, "Glucose Measurement".
public enum GlucoseSampleLocation: UInt8, Sendable, Hashable, CaseIterable {
    /// 1: finger.
    case finger = 1
    /// 2: alternate site test (AST).
    case alternateSiteTest = 2
    /// 3: earlobe.
    case earlobe = 3
    /// 4: control solution.
    case controlSolution = 4
    /// 15: sample location value not available.
    case notAvailable = 15
}

/// Sensor Status Annunciation of a Glucose Measurement, a `uint16`: what went wrong at the
/// time of the measurement. Bits 12–15 are reserved, written 0 and ignored when read. GATT
/// Specification Supplement, "Glucose Measurement".
public struct GlucoseSensorStatus: OptionSet, Sendable, Hashable {
    /// The bits as sent.
    public let rawValue: UInt16

    /// The status with these bits.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// Bit 0: device battery low.
    public static let batteryLow = Self(rawValue: 1 << 0)
    /// Bit 1: sensor malfunction or faulting.
    public static let sensorMalfunction = Self(rawValue: 1 << 1)
    /// Bit 2: sample size for blood or control solution insufficient.
    public static let sampleSizeInsufficient = Self(rawValue: 1 << 2)
    /// Bit 3: strip insertion error.
    public static let stripInsertionError = Self(rawValue: 1 << 3)
    /// Bit 4: strip type incorrect for the device.
    public static let stripTypeIncorrect = Self(rawValue: 1 << 4)
    /// Bit 5: sensor result higher than the device can process.
    public static let resultTooHigh = Self(rawValue: 1 << 5)
    /// Bit 6: sensor result lower than the device can process.
    public static let resultTooLow = Self(rawValue: 1 << 6)
    /// Bit 7: sensor temperature too high for a valid result.
    public static let temperatureTooHigh = Self(rawValue: 1 << 7)
    /// Bit 8: sensor temperature too low for a valid result.
    public static let temperatureTooLow = Self(rawValue: 1 << 8)
    /// Bit 9: sensor read interrupted because the strip was pulled too soon.
    public static let readInterrupted = Self(rawValue: 1 << 9)
    /// Bit 10: general device fault in the sensor.
    public static let generalDeviceFault = Self(rawValue: 1 << 10)
    /// Bit 11: time fault in the sensor; the time may be inaccurate.
    public static let timeFault = Self(rawValue: 1 << 11)

    /// Every bit this type defines (0–11).
    public static let all = Self(rawValue: 0x0FFF)
}
