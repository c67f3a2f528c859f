import BleuCore
import Foundation

/// The SIG characteristics BleuGATT types, looked up by UUID: what a tool that meets an unknown
/// peripheral (`bleu gatt`) uses to say what a value it read means.
public enum SIGCatalogue {
    /// A readable description of `value` as the characteristic `uuid` defines it, decoded with the
    /// catalogue's own codec: `"87 %"` for a Battery Level, `"21.5 °C"` for a Temperature,
    /// `"\"Acme\""` (quoted) for a string, `"0x00C1 (Watch: Sports Watch)"` for an Appearance (its
    /// category and subcategory named, see `Appearance`), the decoded value's own
    /// description for a structure (a Heart Rate Measurement, a PnP ID, …).
    ///
    /// Knows the GAP Device Name and Appearance and every readable or notified characteristic of
    /// the catalogue's services (Battery, Device Information, Heart Rate, Health Thermometer,
    /// Current Time, Environmental Sensing, Link Loss, Tx Power, Blood Pressure, Weight Scale,
    /// Body Composition, Pulse Oximeter, Glucose, Cycling Speed and Cadence, Running Speed and
    /// Cadence, Cycling Power, Fitness Machine's indoor bike; Sensor Location once, shared).
    ///
    /// - Returns: the description, or `nil` when the catalogue does not know `uuid`.
    /// - Throws: ``GATTCodecError`` when the UUID is known but the bytes do not decode as its
    ///   value (wrong length, a value the specification does not allow); the error names the
    ///   characteristic and says what was expected.
    public static func describe(_ value: Data, of uuid: BluetoothUUID) throws(GATTCodecError) -> String? {
        guard let describe = describers[uuid] else { return nil }
        return try describe(value)
    }

    private typealias Describer = @Sendable (Data) throws(GATTCodecError) -> String

    /// Decodes with `characteristic`'s codec and prints the value with `text`.
    private static func entry<Value>(_ characteristic: Characteristic<Value>,
                                     _ text: @escaping @Sendable (Value) -> String = { String(describing: $0) })
        -> (BluetoothUUID, Describer) {
        (characteristic.uuid, { (data: Data) throws(GATTCodecError) -> String in text(try characteristic.decode(data)) })
    }

    /// A string, quoted (and escaped), so an empty or blank one shows.
    private static func quoted(_ string: String) -> String {
        String(reflecting: string)
    }

    /// A reading with its unit, or "not known" for the specification's "value is not known".
    private static func reading(_ value: Double?, _ unit: String) -> String {
        value.map { "\($0) \(unit)" } ?? "not known"
    }

    /// GAP's Device Name and Appearance (Core Spec Vol 3 Part C §12.1, §12.2), which every GATT
    /// server hosts in its GAP service; the catalogue declares no service for them.
    private static let deviceName = Characteristic<String>(
        BluetoothUUID.Characteristic.deviceName, codec: .utf8String(maximumLength: 248), properties: [.read])
    private static let appearance = Characteristic<UInt16>(
        BluetoothUUID.Characteristic.appearance, codec: .uint16, properties: [.read])

    private static let describers: [BluetoothUUID: Describer] = Dictionary(uniqueKeysWithValues: [
        entry(deviceName, quoted),
        entry(appearance) { Appearance($0).description },
        entry(BatteryService.level) { "\($0) %" },
        entry(DeviceInformationService.manufacturerName, quoted),
        entry(DeviceInformationService.modelNumber, quoted),
        entry(DeviceInformationService.serialNumber, quoted),
        entry(DeviceInformationService.hardwareRevision, quoted),
        entry(DeviceInformationService.firmwareRevision, quoted),
        entry(DeviceInformationService.softwareRevision, quoted),
        entry(DeviceInformationService.systemID),
        entry(DeviceInformationService.pnpID),
        entry(HeartRateService.measurement),
        entry(HeartRateService.bodySensorLocation),
        entry(HealthThermometerService.temperatureMeasurement),
        entry(HealthThermometerService.intermediateTemperature),
        entry(HealthThermometerService.temperatureType),
        entry(HealthThermometerService.measurementInterval) { $0 == 0 ? "no periodic measurement" : "\($0) s" },
        entry(CurrentTimeService.currentTime),
        entry(EnvironmentalSensingService.temperature) { reading($0.celsius, "°C") },
        entry(EnvironmentalSensingService.humidity) { reading($0.percent, "%") },
        entry(EnvironmentalSensingService.pressure) { "\($0.pascals) Pa" },
        entry(LinkLossService.alertLevel),
        entry(TxPowerService.txPowerLevel) { "\($0) dBm" },
        entry(BloodPressureService.measurement),
        entry(BloodPressureService.intermediateCuffPressure),
        entry(BloodPressureService.feature),
        entry(WeightScaleService.measurement),
        entry(WeightScaleService.feature),
        entry(BodyCompositionService.measurement),
        entry(BodyCompositionService.feature),
        entry(PulseOximeterService.spotCheckMeasurement),
        entry(PulseOximeterService.continuousMeasurement),
        entry(PulseOximeterService.features),
        entry(GlucoseService.measurement),
        entry(GlucoseService.measurementContext),
        entry(GlucoseService.feature),
        entry(GlucoseService.recordAccessControlPoint),
        entry(CyclingSpeedAndCadenceService.measurement),
        entry(CyclingSpeedAndCadenceService.feature),
        entry(CyclingSpeedAndCadenceService.sensorLocation),
        entry(RunningSpeedAndCadenceService.measurement),
        entry(RunningSpeedAndCadenceService.feature),
        entry(CyclingPowerService.measurement),
        entry(CyclingPowerService.feature),
        entry(CyclingPowerService.vector),
        entry(FitnessMachineService.feature),
        entry(FitnessMachineService.indoorBikeData),
        entry(FitnessMachineService.status),
    ])
}
