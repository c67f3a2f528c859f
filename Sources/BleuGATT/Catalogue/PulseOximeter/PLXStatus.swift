/// An SpO2 and pulse rate pair, as the PLX measurements send them: two SFLOATs (GATT
/// Specification Supplement, "PLX Spot-Check Measurement" and "PLX Continuous Measurement").
public struct SpO2PulseRate: GATTStructure, Hashable {
    /// Oxygen saturation of haemoglobin, in percent.
    public var spo2: MedFloat16
    /// Pulse rate, in beats per minute.
    public var pulseRate: MedFloat16

    /// A pair.
    public init(spo2: MedFloat16, pulseRate: MedFloat16) {
        self.spo2 = spo2
        self.pulseRate = pulseRate
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        spo2 = try reader.decode(.medfloat16, field: "SpO2")
        pulseRate = try reader.decode(.medfloat16, field: "PR")
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        try writer.encode(spo2, with: .medfloat16, field: "SpO2")
        try writer.encode(pulseRate, with: .medfloat16, field: "PR")
    }
}

/// The Measurement Status of a PLX measurement, a `uint16` (GATT Specification Supplement,
/// "PLX Spot-Check Measurement"); the PLX Features' Measurement Status Support uses the same
/// bits to say which the oximeter sets. Bits 0–4 are reserved, written 0 and ignored when read.
public struct PLXMeasurementStatus: OptionSet, Sendable, Hashable {
    /// The bits as sent.
    public let rawValue: UInt16

    /// The status with these bits.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// Bit 5: Measurement Ongoing.
    public static let measurementOngoing = Self(rawValue: 1 << 5)
    /// Bit 6: Early Estimated Data.
    public static let earlyEstimatedData = Self(rawValue: 1 << 6)
    /// Bit 7: Validated Data.
    public static let validatedData = Self(rawValue: 1 << 7)
    /// Bit 8: Fully Qualified Data.
    public static let fullyQualifiedData = Self(rawValue: 1 << 8)
    /// Bit 9: Data from Measurement Storage.
    public static let dataFromMeasurementStorage = Self(rawValue: 1 << 9)
    /// Bit 10: Data for Demonstration.
    public static let dataForDemonstration = Self(rawValue: 1 << 10)
    /// Bit 11: Data for Testing.
    public static let dataForTesting = Self(rawValue: 1 << 11)
    /// Bit 12: Calibration Ongoing.
    public static let calibrationOngoing = Self(rawValue: 1 << 12)
    /// Bit 13: Measurement Unavailable.
    public static let measurementUnavailable = Self(rawValue: 1 << 13)
    /// Bit 14: Questionable Measurement Detected.
    public static let questionableMeasurementDetected = Self(rawValue: 1 << 14)
    /// Bit 15: Invalid Measurement Detected.
    public static let invalidMeasurementDetected = Self(rawValue: 1 << 15)

    /// Every bit this type defines (5–15).
    public static let all = Self(rawValue: 0xFFE0)

    /// The codec: a `uint16`, reserved bits cleared.
    static let codec = BitFieldCodec(defined: all, undefinedBits: .clear)
}

/// The Device and Sensor Status of a PLX measurement, a `uint24` (GATT Specification
/// Supplement, "PLX Spot-Check Measurement"); the PLX Features' Device and Sensor Status
/// Support uses the same bits. Bits 16–23 are reserved, written 0 and ignored when read.
public struct PLXDeviceAndSensorStatus: OptionSet, Sendable, Hashable {
    /// The bits as sent (the low 24).
    public let rawValue: UInt32

    /// The status with these bits.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Bit 0: Extended Display Update Ongoing.
    public static let extendedDisplayUpdateOngoing = Self(rawValue: 1 << 0)
    /// Bit 1: Equipment Malfunction Detected.
    public static let equipmentMalfunctionDetected = Self(rawValue: 1 << 1)
    /// Bit 2: Signal Processing Irregularity Detected.
    public static let signalProcessingIrregularityDetected = Self(rawValue: 1 << 2)
    /// Bit 3: Inadequate Signal Detected.
    public static let inadequateSignalDetected = Self(rawValue: 1 << 3)
    /// Bit 4: Poor Signal Detected.
    public static let poorSignalDetected = Self(rawValue: 1 << 4)
    /// Bit 5: Low Perfusion Detected.
    public static let lowPerfusionDetected = Self(rawValue: 1 << 5)
    /// Bit 6: Erratic Signal Detected.
    public static let erraticSignalDetected = Self(rawValue: 1 << 6)
    /// Bit 7: Nonpulsatile Signal Detected.
    public static let nonpulsatileSignalDetected = Self(rawValue: 1 << 7)
    /// Bit 8: Questionable Pulse Detected.
    public static let questionablePulseDetected = Self(rawValue: 1 << 8)
    /// Bit 9: Signal Analysis Ongoing.
    public static let signalAnalysisOngoing = Self(rawValue: 1 << 9)
    /// Bit 10: Sensor Interference Detected.
    public static let sensorInterferenceDetected = Self(rawValue: 1 << 10)
    /// Bit 11: Sensor Unconnected to User.
    public static let sensorUnconnectedToUser = Self(rawValue: 1 << 11)
    /// Bit 12: Unknown Sensor Connected.
    public static let unknownSensorConnected = Self(rawValue: 1 << 12)
    /// Bit 13: Sensor Displaced.
    public static let sensorDisplaced = Self(rawValue: 1 << 13)
    /// Bit 14: Sensor Malfunctioning.
    public static let sensorMalfunctioning = Self(rawValue: 1 << 14)
    /// Bit 15: Sensor Disconnected.
    public static let sensorDisconnected = Self(rawValue: 1 << 15)

    /// Every bit this type defines (0–15).
    public static let all = Self(rawValue: 0xFFFF)

    /// The codec: a `uint24`, reserved bits cleared.
    static let codec = BitFieldCodec(defined: all, undefinedBits: .clear, byteCount: 3)
}
