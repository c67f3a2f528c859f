/// PLX Spot-Check Measurement (0x2A5E), GATT Specification Supplement, "PLX Spot-Check
/// Measurement":
///
/// | field | size | present |
/// |---|---|---|
/// | Flags | uint8 | always |
/// | SpO2PR-Spot-Check | SpO2 and PR, SFLOAT each (%, bpm) | always |
/// | Timestamp | Date Time, 7 bytes | when flags bit 0 is set |
/// | Measurement Status | uint16 | when flags bit 1 is set |
/// | Device and Sensor Status | uint24 | when flags bit 2 is set |
/// | Pulse Amplitude Index | SFLOAT (%) | when flags bit 3 is set |
///
/// Flags bit 4 says the device clock is not set; bits 5–7 are reserved, written 0 and ignored
/// when read.
public struct PLXSpotCheckMeasurement: GATTStructure, Hashable {
    /// The spot-check SpO2 and pulse rate.
    public var spotCheck: SpO2PulseRate
    /// When the measurement was taken (flags bit 0).
    public var timestamp: DateTime?
    /// The measurement's status (flags bit 1).
    public var measurementStatus: PLXMeasurementStatus?
    /// The device's and sensor's status (flags bit 2).
    public var deviceAndSensorStatus: PLXDeviceAndSensorStatus?
    /// The pulse amplitude index, in percent (flags bit 3).
    public var pulseAmplitudeIndex: MedFloat16?
    /// Whether the oximeter's clock has not been set (flags bit 4), so ``timestamp`` is not a
    /// real date and time.
    public var isDeviceClockNotSet: Bool

    /// A measurement; the flags follow from which fields are given.
    public init(spotCheck: SpO2PulseRate, timestamp: DateTime? = nil, measurementStatus: PLXMeasurementStatus? = nil,
                deviceAndSensorStatus: PLXDeviceAndSensorStatus? = nil, pulseAmplitudeIndex: MedFloat16? = nil,
                isDeviceClockNotSet: Bool = false) {
        self.spotCheck = spotCheck
        self.timestamp = timestamp
        self.measurementStatus = measurementStatus
        self.deviceAndSensorStatus = deviceAndSensorStatus
        self.pulseAmplitudeIndex = pulseAmplitudeIndex
        self.isDeviceClockNotSet = isDeviceClockNotSet
    }

    enum Flag {
        static let timestamp: UInt8 = 0x01
        static let statusShift: UInt8 = 1
        static let deviceClockNotSet: UInt8 = 0x10
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let flags = try reader.decode(.uint8, field: "Flags")
        spotCheck = try reader.decode(SpO2PulseRate.codec, field: "SpO2PR-Spot-Check")
        timestamp = flags & Flag.timestamp != 0 ? try reader.decode(DateTime.codec, field: "Timestamp") : nil
        let status = try PLXStatusFields(from: &reader, flags: flags >> Flag.statusShift)
        measurementStatus = status.measurementStatus
        deviceAndSensorStatus = status.deviceAndSensorStatus
        pulseAmplitudeIndex = status.pulseAmplitudeIndex
        isDeviceClockNotSet = flags & Flag.deviceClockNotSet != 0
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        let status = PLXStatusFields(measurementStatus, deviceAndSensorStatus, pulseAmplitudeIndex)
        var flags = status.flags << Flag.statusShift
        if timestamp != nil { flags |= Flag.timestamp }
        if isDeviceClockNotSet { flags |= Flag.deviceClockNotSet }
        writer.writeInteger(flags)
        try writer.encode(spotCheck, with: SpO2PulseRate.codec, field: "SpO2PR-Spot-Check")
        if let timestamp { try writer.encode(timestamp, with: DateTime.codec, field: "Timestamp") }
        try status.encode(to: &writer)
    }
}

/// PLX Continuous Measurement (0x2A5F), GATT Specification Supplement, "PLX Continuous
/// Measurement":
///
/// | field | size | present |
/// |---|---|---|
/// | Flags | uint8 | always |
/// | SpO2PR-Normal | SpO2 and PR, SFLOAT each (%, bpm) | always |
/// | SpO2PR-Fast | SpO2 and PR | when flags bit 0 is set |
/// | SpO2PR-Slow | SpO2 and PR | when flags bit 1 is set |
/// | Measurement Status | uint16 | when flags bit 2 is set |
/// | Device and Sensor Status | uint24 | when flags bit 3 is set |
/// | Pulse Amplitude Index | SFLOAT (%) | when flags bit 4 is set |
///
/// Flags bits 5–7 are reserved, written 0 and ignored when read.
public struct PLXContinuousMeasurement: GATTStructure, Hashable {
    /// SpO2 and pulse rate at the normal averaging.
    public var normal: SpO2PulseRate
    /// SpO2 and pulse rate with fast responsiveness (flags bit 0).
    public var fast: SpO2PulseRate?
    /// SpO2 and pulse rate with slow responsiveness (flags bit 1).
    public var slow: SpO2PulseRate?
    /// The measurement's status (flags bit 2).
    public var measurementStatus: PLXMeasurementStatus?
    /// The device's and sensor's status (flags bit 3).
    public var deviceAndSensorStatus: PLXDeviceAndSensorStatus?
    /// The pulse amplitude index, in percent (flags bit 4).
    public var pulseAmplitudeIndex: MedFloat16?

    /// A measurement; the flags follow from which fields are given.
    public init(normal: SpO2PulseRate, fast: SpO2PulseRate? = nil, slow: SpO2PulseRate? = nil,
                measurementStatus: PLXMeasurementStatus? = nil, deviceAndSensorStatus: PLXDeviceAndSensorStatus? = nil,
                pulseAmplitudeIndex: MedFloat16? = nil) {
        self.normal = normal
        self.fast = fast
        self.slow = slow
        self.measurementStatus = measurementStatus
        self.deviceAndSensorStatus = deviceAndSensorStatus
        self.pulseAmplitudeIndex = pulseAmplitudeIndex
    }

    enum Flag {
        static let fast: UInt8 = 0x01
        static let slow: UInt8 = 0x02
        static let statusShift: UInt8 = 2
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let flags = try reader.decode(.uint8, field: "Flags")
        normal = try reader.decode(SpO2PulseRate.codec, field: "SpO2PR-Normal")
        fast = flags & Flag.fast != 0 ? try reader.decode(SpO2PulseRate.codec, field: "SpO2PR-Fast") : nil
        slow = flags & Flag.slow != 0 ? try reader.decode(SpO2PulseRate.codec, field: "SpO2PR-Slow") : nil
        let status = try PLXStatusFields(from: &reader, flags: flags >> Flag.statusShift)
        measurementStatus = status.measurementStatus
        deviceAndSensorStatus = status.deviceAndSensorStatus
        pulseAmplitudeIndex = status.pulseAmplitudeIndex
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        let status = PLXStatusFields(measurementStatus, deviceAndSensorStatus, pulseAmplitudeIndex)
        var flags = status.flags << Flag.statusShift
        if fast != nil { flags |= Flag.fast }
        if slow != nil { flags |= Flag.slow }
        writer.writeInteger(flags)
        try writer.encode(normal, with: SpO2PulseRate.codec, field: "SpO2PR-Normal")
        if let fast { try writer.encode(fast, with: SpO2PulseRate.codec, field: "SpO2PR-Fast") }
        if let slow { try writer.encode(slow, with: SpO2PulseRate.codec, field: "SpO2PR-Slow") }
        try status.encode(to: &writer)
    }
}

/// The three trailing fields both PLX measurements share, in order — Measurement Status,
/// Device and Sensor Status, Pulse Amplitude Index — with their presence as three flag bits
/// (bit 0, 1, 2 here; shifted into place by each measurement).
struct PLXStatusFields {
    var measurementStatus: PLXMeasurementStatus?
    var deviceAndSensorStatus: PLXDeviceAndSensorStatus?
    var pulseAmplitudeIndex: MedFloat16?

    init(_ measurementStatus: PLXMeasurementStatus?, _ deviceAndSensorStatus: PLXDeviceAndSensorStatus?,
         _ pulseAmplitudeIndex: MedFloat16?) {
        self.measurementStatus = measurementStatus
        self.deviceAndSensorStatus = deviceAndSensorStatus
        self.pulseAmplitudeIndex = pulseAmplitudeIndex
    }

    /// Reads the fields `flags` (bits 0–2) say are present.
    init(from reader: inout GATTReader, flags: UInt8) throws(GATTCodecError) {
        measurementStatus = flags & 0x01 != 0 ? try reader.decode(PLXMeasurementStatus.codec, field: "Measurement Status") : nil
        deviceAndSensorStatus = flags & 0x02 != 0
            ? try reader.decode(PLXDeviceAndSensorStatus.codec, field: "Device and Sensor Status") : nil
        pulseAmplitudeIndex = flags & 0x04 != 0 ? try reader.decode(.medfloat16, field: "Pulse Amplitude Index") : nil
    }

    /// Bits 0–2: which fields are present.
    var flags: UInt8 {
        (measurementStatus != nil ? 0x01 : 0) | (deviceAndSensorStatus != nil ? 0x02 : 0) | (pulseAmplitudeIndex != nil ? 0x04 : 0)
    }

    func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        if let measurementStatus { try writer.encode(measurementStatus, with: PLXMeasurementStatus.codec, field: "Measurement Status") }
        if let deviceAndSensorStatus {
            try writer.encode(deviceAndSensorStatus, with: PLXDeviceAndSensorStatus.codec, field: "Device and Sensor Status")
        }
        if let pulseAmplitudeIndex { try writer.encode(pulseAmplitudeIndex, with: .medfloat16, field: "Pulse Amplitude Index") }
    }
}
