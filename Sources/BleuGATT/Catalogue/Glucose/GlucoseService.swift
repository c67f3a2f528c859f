import BleuCore

/// The Glucose Service (0x1808): a glucose meter's stored measurements, each with an optional
/// context, reported on request through the Record Access Control Point.
public enum GlucoseService: GATTService {
    /// 0x1808, the Glucose Service.
    public static let uuid = BluetoothUUID.Service.glucose

    /// The application error a server answers a Record Access Control Point write with while a
    /// procedure is under way: 0x80, Procedure Already In Progress (Glucose Service
    /// specification, "Record Access Control Point").
    public static let procedureAlreadyInProgress = ATTError(0x80)

    /// The application error a server answers a Record Access Control Point write with when the
    /// central has not enabled its indications: 0x81, Client Characteristic Configuration
    /// Descriptor Improperly Configured.
    public static let clientCharacteristicConfigurationImproperlyConfigured = ATTError(0x81)

    /// Glucose Measurement (0x2A18): notify only; sent for each record a report selects.
    public static let measurement = Characteristic<GlucoseMeasurement>(
        BluetoothUUID.Characteristic.glucoseMeasurement, codec: GlucoseMeasurement.codec, properties: [.notify])

    /// Glucose Measurement Context (0x2A34): notify only; follows a measurement that says so.
    public static let measurementContext = Characteristic<GlucoseMeasurementContext>(
        BluetoothUUID.Characteristic.glucoseMeasurementContext, codec: GlucoseMeasurementContext.codec, properties: [.notify])

    /// Glucose Feature (0x2A51): read. What the meter detects.
    public static let feature = Characteristic<GlucoseFeature>(
        BluetoothUUID.Characteristic.glucoseFeature, codec: .bitField(GlucoseFeature.all, undefinedBits: .clear),
        properties: [.read])

    /// Record Access Control Point (0x2A52): write and indicate. Requests are written; the
    /// Number of Stored Records and Response Code answers are indicated.
    public static let recordAccessControlPoint = Characteristic<RecordAccessControlPoint>(
        BluetoothUUID.Characteristic.recordAccessControlPoint, codec: RecordAccessControlPoint.codec,
        properties: [.write, .indicate])

    /// Glucose Measurement, Glucose Measurement Context, Glucose Feature and Record Access
    /// Control Point, in the specification's order.
    public static var characteristics: [CharacteristicDeclaration] {
        measurement
        measurementContext
        feature
        recordAccessControlPoint
    }
}

/// Glucose Feature (0x2A51), a `uint16` of what the meter supports (GATT Specification
/// Supplement, "Glucose Feature"). Bits 11–15 are reserved, written 0 and ignored when read.
public struct GlucoseFeature: OptionSet, Sendable, Hashable {
    /// The bits as sent.
    public let rawValue: UInt16

    /// The features with these bits.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// Bit 0: low battery detection during measurement.
    public static let lowBatteryDetection = Self(rawValue: 1 << 0)
    /// Bit 1: sensor malfunction detection.
    public static let sensorMalfunctionDetection = Self(rawValue: 1 << 1)
    /// Bit 2: sensor sample size.
    public static let sensorSampleSize = Self(rawValue: 1 << 2)
    /// Bit 3: sensor strip insertion error detection.
    public static let stripInsertionErrorDetection = Self(rawValue: 1 << 3)
    /// Bit 4: sensor strip type error detection.
    public static let stripTypeErrorDetection = Self(rawValue: 1 << 4)
    /// Bit 5: sensor result high-low detection.
    public static let resultHighLowDetection = Self(rawValue: 1 << 5)
    /// Bit 6: sensor temperature high-low detection.
    public static let temperatureHighLowDetection = Self(rawValue: 1 << 6)
    /// Bit 7: sensor read interrupt detection.
    public static let readInterruptDetection = Self(rawValue: 1 << 7)
    /// Bit 8: general device fault.
    public static let generalDeviceFault = Self(rawValue: 1 << 8)
    /// Bit 9: time fault.
    public static let timeFault = Self(rawValue: 1 << 9)
    /// Bit 10: multiple bonds.
    public static let multipleBonds = Self(rawValue: 1 << 10)

    /// Every bit this type defines (0–10).
    public static let all = Self(rawValue: 0x07FF)
}
