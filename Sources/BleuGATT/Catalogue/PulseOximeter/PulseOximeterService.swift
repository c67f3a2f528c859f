import BleuCore

/// The Pulse Oximeter Service (0x1822): blood oxygen saturation (SpO2) and pulse rate from a
/// pulse oximeter, as spot checks, a continuous stream, or both.
public enum PulseOximeterService: GATTService {
    /// 0x1822, the Pulse Oximeter Service.
    public static let uuid = BluetoothUUID.Service.pulseOximeter

    /// PLX Spot-Check Measurement (0x2A5E): indicate only.
    public static let spotCheckMeasurement = Characteristic<PLXSpotCheckMeasurement>(
        BluetoothUUID.Characteristic.plxSpotCheckMeasurement, codec: PLXSpotCheckMeasurement.codec, properties: [.indicate])

    /// PLX Continuous Measurement (0x2A5F): notify only.
    public static let continuousMeasurement = Characteristic<PLXContinuousMeasurement>(
        BluetoothUUID.Characteristic.plxContinuousMeasurement, codec: PLXContinuousMeasurement.codec, properties: [.notify])

    /// PLX Features (0x2A60): read.
    public static let features = Characteristic<PLXFeatures>(
        BluetoothUUID.Characteristic.plxFeatures, codec: PLXFeatures.codec, properties: [.read])

    /// PLX Spot-Check Measurement, PLX Continuous Measurement and PLX Features.
    public static var characteristics: [CharacteristicDeclaration] {
        spotCheckMeasurement
        continuousMeasurement
        features
    }
}

/// PLX Features (0x2A60), GATT Specification Supplement, "PLX Features":
///
/// | field | size | present |
/// |---|---|---|
/// | Supported Features | uint16 | always |
/// | Measurement Status Support | uint16 | when Supported Features bit 0 is set |
/// | Device and Sensor Status Support | uint24 | when Supported Features bit 1 is set |
///
/// Supported Features bits 8–15 are reserved, written 0 and ignored when read; so are the
/// reserved bits of the two support fields.
public struct PLXFeatures: GATTStructure, Hashable {
    /// Supported Features bits 2–7 (bits 0 and 1 are the presence of
    /// ``PLXFeatures/measurementStatusSupport`` and ``PLXFeatures/deviceAndSensorStatusSupport``).
    public struct Supported: OptionSet, Sendable, Hashable {
        /// The bits as sent.
        public let rawValue: UInt16

        /// The features with these bits.
        public init(rawValue: UInt16) {
            self.rawValue = rawValue
        }

        /// Bit 2: spot-check measurements are stored.
        public static let measurementStorageForSpotCheck = Self(rawValue: 1 << 2)
        /// Bit 3: spot-check measurements carry a timestamp.
        public static let timestampForSpotCheck = Self(rawValue: 1 << 3)
        /// Bit 4: the SpO2PR-Fast metric.
        public static let spo2PRFast = Self(rawValue: 1 << 4)
        /// Bit 5: the SpO2PR-Slow metric.
        public static let spo2PRSlow = Self(rawValue: 1 << 5)
        /// Bit 6: the Pulse Amplitude Index field.
        public static let pulseAmplitudeIndex = Self(rawValue: 1 << 6)
        /// Bit 7: multiple bonds.
        public static let multipleBonds = Self(rawValue: 1 << 7)

        /// Every bit this type defines (2–7).
        public static let all = Self(rawValue: 0xFC)
    }

    /// The features supported.
    public var supported: Supported
    /// Which Measurement Status bits the oximeter sets, if it sends the field (bit 0).
    public var measurementStatusSupport: PLXMeasurementStatus?
    /// Which Device and Sensor Status bits the oximeter sets, if it sends the field (bit 1).
    public var deviceAndSensorStatusSupport: PLXDeviceAndSensorStatus?

    /// The features; Supported Features bits 0 and 1 follow from which support fields are given.
    public init(supported: Supported = [], measurementStatusSupport: PLXMeasurementStatus? = nil,
                deviceAndSensorStatusSupport: PLXDeviceAndSensorStatus? = nil) {
        self.supported = supported
        self.measurementStatusSupport = measurementStatusSupport
        self.deviceAndSensorStatusSupport = deviceAndSensorStatusSupport
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let raw = try reader.decode(.uint16, field: "Supported Features")
        supported = Supported(rawValue: raw & Supported.all.rawValue)
        measurementStatusSupport = raw & 0x01 != 0
            ? try reader.decode(PLXMeasurementStatus.codec, field: "Measurement Status Support") : nil
        deviceAndSensorStatusSupport = raw & 0x02 != 0
            ? try reader.decode(PLXDeviceAndSensorStatus.codec, field: "Device and Sensor Status Support") : nil
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        var raw = supported.rawValue & Supported.all.rawValue
        if measurementStatusSupport != nil { raw |= 0x01 }
        if deviceAndSensorStatusSupport != nil { raw |= 0x02 }
        writer.writeInteger(raw)
        if let measurementStatusSupport {
            try writer.encode(measurementStatusSupport, with: PLXMeasurementStatus.codec, field: "Measurement Status Support")
        }
        if let deviceAndSensorStatusSupport {
            try writer.encode(deviceAndSensorStatusSupport, with: PLXDeviceAndSensorStatus.codec,
                              field: "Device and Sensor Status Support")
        }
    }
}
