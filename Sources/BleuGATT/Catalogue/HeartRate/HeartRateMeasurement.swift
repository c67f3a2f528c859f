/// Heart Rate Measurement (0x2A37), GATT Specification Supplement, "Heart Rate Measurement":
///
/// | field | size | present |
/// |---|---|---|
/// | Flags | uint8 | always |
/// | Heart Rate Measurement Value | uint8 or uint16 (bpm) | always; uint16 when flags bit 0 is set |
/// | Energy Expended | uint16 (kJ) | when flags bit 3 is set |
/// | RR-Interval | uint16 each (1/1024 s), one or more, to the end | when flags bit 4 is set |
///
/// Flags bits 1–2 are the Sensor Contact Status (0 or 1: not supported; 2: supported, not
/// detected; 3: supported and detected); bits 5–7 are reserved, written 0 and ignored when read.
public struct HeartRateMeasurement: GATTStructure, Hashable {
    /// The width of the heart rate field.
    public enum ValueFormat: Sendable, Hashable {
        /// One byte, 0–255 bpm (flags bit 0 clear).
        case uint8
        /// Two bytes, for rates over 255 bpm (flags bit 0 set).
        case uint16
    }

    /// Whether the sensor reports skin contact, and what.
    public enum SensorContact: Sendable, Hashable {
        /// The sensor cannot tell (status 0 or 1).
        case notSupported
        /// Supported, and the sensor is not touching the skin (status 2).
        case notDetected
        /// Supported, and the sensor is in contact (status 3).
        case detected
    }

    /// Beats per minute. More than 255 needs ``ValueFormat/uint16``.
    public var heartRate: UInt16
    /// How wide the heart rate goes on air; encoding a rate over 255 as ``ValueFormat/uint8`` fails.
    public var valueFormat: ValueFormat
    /// Whether the sensor reports skin contact (flags bits 1–2).
    public var sensorContact: SensorContact
    /// Kilojoules expended since the last reset; 0xFFFF means at least that much.
    public var energyExpended: UInt16?
    /// RR intervals, oldest first, in 1/1024 s.
    public var rrIntervals: [UInt16]

    /// A measurement; the value format defaults to the narrowest that holds `heartRate`.
    public init(heartRate: UInt16, valueFormat: ValueFormat? = nil, sensorContact: SensorContact = .notSupported,
                energyExpended: UInt16? = nil, rrIntervals: [UInt16] = []) {
        self.heartRate = heartRate
        self.valueFormat = valueFormat ?? (heartRate > UInt16(UInt8.max) ? .uint16 : .uint8)
        self.sensorContact = sensorContact
        self.energyExpended = energyExpended
        self.rrIntervals = rrIntervals
    }

    /// The RR intervals in seconds.
    public var rrIntervalSeconds: [Double] {
        rrIntervals.map { Double($0) / 1024 }
    }

    enum Flag {
        static let uint16Value: UInt8 = 0x01
        static let contactShift: UInt8 = 1
        static let energyExpended: UInt8 = 0x08
        static let rrIntervals: UInt8 = 0x10
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let flags = try reader.decode(.uint8, field: "Flags")
        if flags & Flag.uint16Value != 0 {
            valueFormat = .uint16
            heartRate = try reader.decode(.uint16, field: "Heart Rate Measurement Value")
        } else {
            valueFormat = .uint8
            heartRate = UInt16(try reader.decode(.uint8, field: "Heart Rate Measurement Value"))
        }
        switch (flags >> Flag.contactShift) & 0b11 {
        case 2: sensorContact = .notDetected
        case 3: sensorContact = .detected
        default: sensorContact = .notSupported
        }
        energyExpended = flags & Flag.energyExpended != 0 ? try reader.decode(.uint16, field: "Energy Expended") : nil
        rrIntervals = []
        if flags & Flag.rrIntervals != 0 {
            guard reader.remainingCount >= 2, reader.remainingCount.isMultiple(of: 2) else {
                throw GATTCodecError.invalidLength(expected: "one or more 2-byte intervals", found: bytesText(reader.remainingCount))
                    .within("RR-Interval")
            }
            while !reader.isAtEnd {
                rrIntervals.append(try reader.decode(.uint16, field: "RR-Interval"))
            }
        }
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        var flags: UInt8 = 0
        if valueFormat == .uint16 { flags |= Flag.uint16Value }
        switch sensorContact {
        case .notSupported: break
        case .notDetected: flags |= 2 << Flag.contactShift
        case .detected: flags |= 3 << Flag.contactShift
        }
        if energyExpended != nil { flags |= Flag.energyExpended }
        if !rrIntervals.isEmpty { flags |= Flag.rrIntervals }
        writer.writeInteger(flags)
        switch valueFormat {
        case .uint16:
            writer.writeInteger(heartRate)
        case .uint8:
            guard let narrow = UInt8(exactly: heartRate) else {
                throw GATTCodecError.valueNotAllowed(expected: "0–255 bpm in the uint8 format", found: "\(heartRate)")
                    .within("Heart Rate Measurement Value")
            }
            writer.writeInteger(narrow)
        }
        if let energyExpended { writer.writeInteger(energyExpended) }
        for interval in rrIntervals { writer.writeInteger(interval) }
    }
}
