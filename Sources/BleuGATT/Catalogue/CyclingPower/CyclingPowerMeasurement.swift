/// Cycling Power Measurement (0x2A63), GATT Specification Supplement, "Cycling Power
/// Measurement":
///
/// | field | size | present |
/// |---|---|---|
/// | Flags | uint16 | always |
/// | Instantaneous Power | sint16 (W) | always |
/// | Pedal Power Balance | uint8 (1/2 %) | when flags bit 0 is set |
/// | Accumulated Torque | uint16 (1/32 N·m) | when flags bit 2 is set |
/// | Cumulative Wheel Revolutions, Last Wheel Event Time | uint32, uint16 (1/2048 s) | when flags bit 4 is set |
/// | Cumulative Crank Revolutions, Last Crank Event Time | uint16, uint16 (1/1024 s) | when flags bit 5 is set |
/// | Maximum, Minimum Force Magnitude | sint16, sint16 (N) | when flags bit 6 is set |
/// | Maximum, Minimum Torque Magnitude | sint16, sint16 (1/32 N·m) | when flags bit 7 is set |
/// | Maximum Angle, Minimum Angle | uint12, uint12 (degrees), 3 bytes | when flags bit 8 is set |
/// | Top Dead Spot Angle | uint16 (degrees) | when flags bit 9 is set |
/// | Bottom Dead Spot Angle | uint16 (degrees) | when flags bit 10 is set |
/// | Accumulated Energy | uint16 (kJ) | when flags bit 11 is set |
///
/// Flags bit 1 is the Pedal Power Balance Reference (0 unknown, 1 left), bit 3 the Accumulated
/// Torque Source (0 wheel based, 1 crank based), bit 12 the Offset Compensation Indicator; bits
/// 13–15 are reserved, written 0 and ignored when read. Bits 1 and 3 are only read with the field
/// they describe.
public struct CyclingPowerMeasurement: GATTStructure, Hashable {
    /// Pedal Power Balance: the share of the power from the reference pedal.
    public struct PedalPowerBalance: Sendable, Hashable {
        /// Which pedal the balance refers to (flags bit 1).
        public enum Reference: Sendable, Hashable {
            /// Unknown (bit 1 clear).
            case unknown
            /// The left pedal (bit 1 set).
            case left
        }

        /// The share, in 1/2 % (0–200 for 0–100 %).
        public var value: UInt8
        /// Which pedal it is the share of.
        public var reference: Reference

        /// A balance.
        public init(value: UInt8, reference: Reference = .unknown) {
            self.value = value
            self.reference = reference
        }

        /// The share in percent.
        public var percent: Double { Double(value) / 2 }
    }

    /// Accumulated Torque: the torque summed since the sensor started.
    public struct AccumulatedTorque: Sendable, Hashable {
        /// Where the torque is measured (flags bit 3).
        public enum Source: Sendable, Hashable {
            /// At the wheel (bit 3 clear).
            case wheel
            /// At the crank (bit 3 set).
            case crank
        }

        /// The torque, in 1/32 N·m; wraps at 2¹⁶.
        public var value: UInt16
        /// Where it is measured.
        public var source: Source

        /// Accumulated torque.
        public init(value: UInt16, source: Source = .wheel) {
            self.value = value
            self.source = source
        }
    }

    /// The largest and smallest magnitude during the last crank revolution: Extreme Force
    /// Magnitudes in newtons, or Extreme Torque Magnitudes in 1/32 N·m.
    public struct ExtremeMagnitudes: Sendable, Hashable {
        /// The maximum magnitude.
        public var maximum: Int16
        /// The minimum magnitude.
        public var minimum: Int16

        /// Extreme magnitudes.
        public init(maximum: Int16, minimum: Int16) {
            self.maximum = maximum
            self.minimum = minimum
        }
    }

    /// Instantaneous power, in watts.
    public var instantaneousPower: Int16
    /// Pedal Power Balance and its reference, if sent (flags bits 0–1).
    public var pedalPowerBalance: PedalPowerBalance?
    /// Accumulated Torque and its source, if sent (flags bits 2–3).
    public var accumulatedTorque: AccumulatedTorque?
    /// Wheel revolutions, the last event time in 1/2048 s, if sent (flags bit 4).
    public var wheelRevolutions: WheelRevolutionData?
    /// Crank revolutions, the last event time in 1/1024 s, if sent (flags bit 5).
    public var crankRevolutions: CrankRevolutionData?
    /// Extreme Force Magnitudes in newtons, if sent (flags bit 6).
    public var extremeForceMagnitudes: ExtremeMagnitudes?
    /// Extreme Torque Magnitudes in 1/32 N·m, if sent (flags bit 7).
    public var extremeTorqueMagnitudes: ExtremeMagnitudes?
    /// The crank angles of the extreme magnitudes, if sent (flags bit 8).
    public var extremeAngles: ExtremeAngles?
    /// Top Dead Spot Angle, in degrees, if sent (flags bit 9).
    public var topDeadSpotAngle: UInt16?
    /// Bottom Dead Spot Angle, in degrees, if sent (flags bit 10).
    public var bottomDeadSpotAngle: UInt16?
    /// Accumulated Energy, in kilojoules, if sent (flags bit 11).
    public var accumulatedEnergy: UInt16?
    /// Offset Compensation Indicator (flags bit 12): the sensor is compensating its offset, and
    /// the fields carry the values the Cycling Power Service specification gives for that.
    public var offsetCompensationIndicator: Bool

    /// A measurement; the flags follow from which fields are given.
    public init(instantaneousPower: Int16, pedalPowerBalance: PedalPowerBalance? = nil,
                accumulatedTorque: AccumulatedTorque? = nil, wheelRevolutions: WheelRevolutionData? = nil,
                crankRevolutions: CrankRevolutionData? = nil, extremeForceMagnitudes: ExtremeMagnitudes? = nil,
                extremeTorqueMagnitudes: ExtremeMagnitudes? = nil, extremeAngles: ExtremeAngles? = nil,
                topDeadSpotAngle: UInt16? = nil, bottomDeadSpotAngle: UInt16? = nil, accumulatedEnergy: UInt16? = nil,
                offsetCompensationIndicator: Bool = false) {
        self.instantaneousPower = instantaneousPower
        self.pedalPowerBalance = pedalPowerBalance
        self.accumulatedTorque = accumulatedTorque
        self.wheelRevolutions = wheelRevolutions
        self.crankRevolutions = crankRevolutions
        self.extremeForceMagnitudes = extremeForceMagnitudes
        self.extremeTorqueMagnitudes = extremeTorqueMagnitudes
        self.extremeAngles = extremeAngles
        self.topDeadSpotAngle = topDeadSpotAngle
        self.bottomDeadSpotAngle = bottomDeadSpotAngle
        self.accumulatedEnergy = accumulatedEnergy
        self.offsetCompensationIndicator = offsetCompensationIndicator
    }

    enum Flag {
        static let pedalPowerBalance: UInt16 = 1 << 0
        static let balanceReferenceLeft: UInt16 = 1 << 1
        static let accumulatedTorque: UInt16 = 1 << 2
        static let torqueSourceCrank: UInt16 = 1 << 3
        static let wheelRevolutions: UInt16 = 1 << 4
        static let crankRevolutions: UInt16 = 1 << 5
        static let extremeForceMagnitudes: UInt16 = 1 << 6
        static let extremeTorqueMagnitudes: UInt16 = 1 << 7
        static let extremeAngles: UInt16 = 1 << 8
        static let topDeadSpotAngle: UInt16 = 1 << 9
        static let bottomDeadSpotAngle: UInt16 = 1 << 10
        static let accumulatedEnergy: UInt16 = 1 << 11
        static let offsetCompensationIndicator: UInt16 = 1 << 12
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let flags = try reader.decode(.uint16, field: "Flags")
        func has(_ flag: UInt16) -> Bool { flags & flag != 0 }
        instantaneousPower = try reader.decode(.sint16, field: "Instantaneous Power")
        pedalPowerBalance = has(Flag.pedalPowerBalance)
            ? PedalPowerBalance(value: try reader.decode(.uint8, field: "Pedal Power Balance"),
                                reference: has(Flag.balanceReferenceLeft) ? .left : .unknown) : nil
        accumulatedTorque = has(Flag.accumulatedTorque)
            ? AccumulatedTorque(value: try reader.decode(.uint16, field: "Accumulated Torque"),
                                source: has(Flag.torqueSourceCrank) ? .crank : .wheel) : nil
        wheelRevolutions = has(Flag.wheelRevolutions)
            ? try reader.decode(WheelRevolutionData.codec, field: "Wheel Revolution Data") : nil
        crankRevolutions = has(Flag.crankRevolutions)
            ? try reader.decode(CrankRevolutionData.codec, field: "Crank Revolution Data") : nil
        extremeForceMagnitudes = has(Flag.extremeForceMagnitudes)
            ? ExtremeMagnitudes(maximum: try reader.decode(.sint16, field: "Maximum Force Magnitude"),
                                minimum: try reader.decode(.sint16, field: "Minimum Force Magnitude")) : nil
        extremeTorqueMagnitudes = has(Flag.extremeTorqueMagnitudes)
            ? ExtremeMagnitudes(maximum: try reader.decode(.sint16, field: "Maximum Torque Magnitude"),
                                minimum: try reader.decode(.sint16, field: "Minimum Torque Magnitude")) : nil
        extremeAngles = has(Flag.extremeAngles) ? try reader.decode(ExtremeAngles.codec, field: "Extreme Angles") : nil
        topDeadSpotAngle = has(Flag.topDeadSpotAngle) ? try reader.decode(.uint16, field: "Top Dead Spot Angle") : nil
        bottomDeadSpotAngle = has(Flag.bottomDeadSpotAngle) ? try reader.decode(.uint16, field: "Bottom Dead Spot Angle") : nil
        accumulatedEnergy = has(Flag.accumulatedEnergy) ? try reader.decode(.uint16, field: "Accumulated Energy") : nil
        offsetCompensationIndicator = has(Flag.offsetCompensationIndicator)
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        var flags: UInt16 = 0
        func set(_ flag: UInt16, _ condition: Bool) { if condition { flags |= flag } }
        set(Flag.pedalPowerBalance, pedalPowerBalance != nil)
        set(Flag.balanceReferenceLeft, pedalPowerBalance?.reference == .left)
        set(Flag.accumulatedTorque, accumulatedTorque != nil)
        set(Flag.torqueSourceCrank, accumulatedTorque?.source == .crank)
        set(Flag.wheelRevolutions, wheelRevolutions != nil)
        set(Flag.crankRevolutions, crankRevolutions != nil)
        set(Flag.extremeForceMagnitudes, extremeForceMagnitudes != nil)
        set(Flag.extremeTorqueMagnitudes, extremeTorqueMagnitudes != nil)
        set(Flag.extremeAngles, extremeAngles != nil)
        set(Flag.topDeadSpotAngle, topDeadSpotAngle != nil)
        set(Flag.bottomDeadSpotAngle, bottomDeadSpotAngle != nil)
        set(Flag.accumulatedEnergy, accumulatedEnergy != nil)
        set(Flag.offsetCompensationIndicator, offsetCompensationIndicator)
        writer.writeInteger(flags)
        writer.writeInteger(instantaneousPower)
        if let pedalPowerBalance { writer.writeInteger(pedalPowerBalance.value) }
        if let accumulatedTorque { writer.writeInteger(accumulatedTorque.value) }
        if let wheelRevolutions { try wheelRevolutions.encode(to: &writer) }
        if let crankRevolutions { try crankRevolutions.encode(to: &writer) }
        for magnitudes in [extremeForceMagnitudes, extremeTorqueMagnitudes].compactMap({ $0 }) {
            writer.writeInteger(magnitudes.maximum)
            writer.writeInteger(magnitudes.minimum)
        }
        if let extremeAngles { try writer.encode(extremeAngles, with: ExtremeAngles.codec, field: "Extreme Angles") }
        for value in [topDeadSpotAngle, bottomDeadSpotAngle, accumulatedEnergy].compactMap({ $0 }) {
            writer.writeInteger(value)
        }
    }
}

/// Extreme Angles of a Cycling Power Measurement: the crank angles, in degrees, at which the
/// extreme force or torque magnitudes were measured, two 12-bit fields packed in three bytes
/// (GATT Specification Supplement, "Cycling Power Measurement"): Maximum Angle in the low 12
/// bits, Minimum Angle in the high 12 bits, little-endian.
public struct ExtremeAngles: GATTStructure, Hashable {
    /// The angle of the maximum magnitude, 0–4095 degrees.
    public var maximum: UInt16
    /// The angle of the minimum magnitude, 0–4095 degrees.
    public var minimum: UInt16

    /// Extreme angles; each must fit 12 bits to encode.
    public init(maximum: UInt16, minimum: UInt16) {
        self.maximum = maximum
        self.minimum = minimum
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let packed = try reader.decode(.uint24)
        maximum = UInt16(packed & 0xFFF)
        minimum = UInt16(packed >> 12)
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        for (angle, field) in [(maximum, "Maximum Angle"), (minimum, "Minimum Angle")] where angle > 0xFFF {
            throw GATTCodecError.valueNotAllowed(expected: "a uint12 (0–4095 degrees)", found: "\(angle)").within(field)
        }
        try writer.encode(UInt32(maximum) | UInt32(minimum) << 12, with: .uint24)
    }
}
