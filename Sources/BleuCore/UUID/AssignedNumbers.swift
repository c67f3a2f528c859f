/// Well-known UUIDs from the Bluetooth SIG's Assigned Numbers, as constants; ``name`` names
/// every assigned one.
extension BluetoothUUID {
    /// GATT service UUIDs.
    public enum Service {
        public static let genericAccess = BluetoothUUID(0x1800)
        public static let genericAttribute = BluetoothUUID(0x1801)
        public static let currentTime = BluetoothUUID(0x1805)
        public static let healthThermometer = BluetoothUUID(0x1809)
        public static let deviceInformation = BluetoothUUID(0x180A)
        public static let heartRate = BluetoothUUID(0x180D)
        public static let battery = BluetoothUUID(0x180F)
        public static let environmentalSensing = BluetoothUUID(0x181A)
        // Find Me and Proximity
        public static let immediateAlert = BluetoothUUID(0x1802)
        public static let linkLoss = BluetoothUUID(0x1803)
        public static let txPower = BluetoothUUID(0x1804)
        // Blood Pressure
        public static let bloodPressure = BluetoothUUID(0x1810)
        // Weight Scale
        public static let weightScale = BluetoothUUID(0x181D)
        // Body Composition
        public static let bodyComposition = BluetoothUUID(0x181B)
        // Pulse Oximeter
        public static let pulseOximeter = BluetoothUUID(0x1822)
        // Glucose
        public static let glucose = BluetoothUUID(0x1808)
        // Cycling Speed and Cadence
        public static let cyclingSpeedAndCadence = BluetoothUUID(0x1816)
        // Running Speed and Cadence
        public static let runningSpeedAndCadence = BluetoothUUID(0x1814)
        // Cycling Power
        public static let cyclingPower = BluetoothUUID(0x1818)
        // Fitness Machine
        public static let fitnessMachine = BluetoothUUID(0x1826)
    }

    /// GATT characteristic UUIDs.
    public enum Characteristic {
        // Generic Access
        public static let deviceName = BluetoothUUID(0x2A00)
        public static let appearance = BluetoothUUID(0x2A01)
        /// Removed from GAP by Core 4.2; kept so older peers' databases print with names.
        public static let peripheralPrivacyFlag = BluetoothUUID(0x2A02)
        /// Removed from GAP by Core 4.2; kept so older peers' databases print with names.
        public static let reconnectionAddress = BluetoothUUID(0x2A03)
        public static let peripheralPreferredConnectionParameters = BluetoothUUID(0x2A04)
        public static let centralAddressResolution = BluetoothUUID(0x2AA6)
        public static let resolvablePrivateAddressOnly = BluetoothUUID(0x2AC9)
        public static let encryptedDataKeyMaterial = BluetoothUUID(0x2B88)
        public static let leGATTSecurityLevels = BluetoothUUID(0x2BF5)
        // Generic Attribute
        public static let serviceChanged = BluetoothUUID(0x2A05)
        public static let clientSupportedFeatures = BluetoothUUID(0x2B29)
        public static let databaseHash = BluetoothUUID(0x2B2A)
        public static let serverSupportedFeatures = BluetoothUUID(0x2B3A)
        // Current Time
        public static let localTimeInformation = BluetoothUUID(0x2A0F)
        public static let referenceTimeInformation = BluetoothUUID(0x2A14)
        public static let currentTime = BluetoothUUID(0x2A2B)
        // Health Thermometer
        public static let temperatureMeasurement = BluetoothUUID(0x2A1C)
        public static let temperatureType = BluetoothUUID(0x2A1D)
        public static let intermediateTemperature = BluetoothUUID(0x2A1E)
        public static let measurementInterval = BluetoothUUID(0x2A21)
        // Battery (Battery Level since BAS 1.0; the rest since BAS 1.1)
        public static let batteryLevel = BluetoothUUID(0x2A19)
        public static let batteryCriticalStatus = BluetoothUUID(0x2BE9)
        public static let batteryHealthStatus = BluetoothUUID(0x2BEA)
        public static let batteryHealthInformation = BluetoothUUID(0x2BEB)
        public static let batteryInformation = BluetoothUUID(0x2BEC)
        public static let batteryLevelStatus = BluetoothUUID(0x2BED)
        public static let batteryTimeStatus = BluetoothUUID(0x2BEE)
        public static let estimatedServiceDate = BluetoothUUID(0x2BEF)
        public static let batteryEnergyStatus = BluetoothUUID(0x2BF0)
        // Device Information
        public static let systemID = BluetoothUUID(0x2A23)
        public static let modelNumberString = BluetoothUUID(0x2A24)
        public static let serialNumberString = BluetoothUUID(0x2A25)
        public static let firmwareRevisionString = BluetoothUUID(0x2A26)
        public static let hardwareRevisionString = BluetoothUUID(0x2A27)
        public static let softwareRevisionString = BluetoothUUID(0x2A28)
        public static let manufacturerNameString = BluetoothUUID(0x2A29)
        public static let regulatoryCertificationDataList = BluetoothUUID(0x2A2A)
        public static let pnpID = BluetoothUUID(0x2A50)
        public static let udiForMedicalDevices = BluetoothUUID(0x2BFF)
        // Heart Rate
        public static let heartRateMeasurement = BluetoothUUID(0x2A37)
        public static let bodySensorLocation = BluetoothUUID(0x2A38)
        public static let heartRateControlPoint = BluetoothUUID(0x2A39)
        // Environmental Sensing (every characteristic ESS 1.0 lists)
        public static let magneticDeclination = BluetoothUUID(0x2A2C)
        public static let elevation = BluetoothUUID(0x2A6C)
        public static let pressure = BluetoothUUID(0x2A6D)
        public static let temperature = BluetoothUUID(0x2A6E)
        public static let humidity = BluetoothUUID(0x2A6F)
        public static let trueWindSpeed = BluetoothUUID(0x2A70)
        public static let trueWindDirection = BluetoothUUID(0x2A71)
        public static let apparentWindSpeed = BluetoothUUID(0x2A72)
        public static let apparentWindDirection = BluetoothUUID(0x2A73)
        public static let gustFactor = BluetoothUUID(0x2A74)
        public static let pollenConcentration = BluetoothUUID(0x2A75)
        public static let uvIndex = BluetoothUUID(0x2A76)
        public static let irradiance = BluetoothUUID(0x2A77)
        public static let rainfall = BluetoothUUID(0x2A78)
        public static let windChill = BluetoothUUID(0x2A79)
        public static let heatIndex = BluetoothUUID(0x2A7A)
        public static let dewPoint = BluetoothUUID(0x2A7B)
        public static let descriptorValueChanged = BluetoothUUID(0x2A7D)
        public static let magneticFluxDensity2D = BluetoothUUID(0x2AA0)
        public static let magneticFluxDensity3D = BluetoothUUID(0x2AA1)
        public static let barometricPressureTrend = BluetoothUUID(0x2AA3)
        // Immediate Alert, Link Loss and Tx Power
        public static let alertLevel = BluetoothUUID(0x2A06)
        public static let txPowerLevel = BluetoothUUID(0x2A07)
        // Blood Pressure
        public static let bloodPressureMeasurement = BluetoothUUID(0x2A35)
        public static let intermediateCuffPressure = BluetoothUUID(0x2A36)
        public static let bloodPressureFeature = BluetoothUUID(0x2A49)
        // Weight Scale
        public static let weightMeasurement = BluetoothUUID(0x2A9D)
        public static let weightScaleFeature = BluetoothUUID(0x2A9E)
        // Body Composition
        public static let bodyCompositionFeature = BluetoothUUID(0x2A9B)
        public static let bodyCompositionMeasurement = BluetoothUUID(0x2A9C)
        // Pulse Oximeter
        public static let plxSpotCheckMeasurement = BluetoothUUID(0x2A5E)
        public static let plxContinuousMeasurement = BluetoothUUID(0x2A5F)
        public static let plxFeatures = BluetoothUUID(0x2A60)
        // Glucose (the Record Access Control Point is also other services')
        public static let glucoseMeasurement = BluetoothUUID(0x2A18)
        public static let glucoseMeasurementContext = BluetoothUUID(0x2A34)
        public static let glucoseFeature = BluetoothUUID(0x2A51)
        public static let recordAccessControlPoint = BluetoothUUID(0x2A52)
        // Cycling Speed and Cadence (Sensor Location and SC Control Point are shared with
        // Running Speed and Cadence; Sensor Location with Cycling Power)
        public static let scControlPoint = BluetoothUUID(0x2A55)
        public static let cscMeasurement = BluetoothUUID(0x2A5B)
        public static let cscFeature = BluetoothUUID(0x2A5C)
        public static let sensorLocation = BluetoothUUID(0x2A5D)
        // Running Speed and Cadence
        public static let rscMeasurement = BluetoothUUID(0x2A53)
        public static let rscFeature = BluetoothUUID(0x2A54)
        // Cycling Power
        public static let cyclingPowerMeasurement = BluetoothUUID(0x2A63)
        public static let cyclingPowerVector = BluetoothUUID(0x2A64)
        public static let cyclingPowerFeature = BluetoothUUID(0x2A65)
        public static let cyclingPowerControlPoint = BluetoothUUID(0x2A66)
        // Fitness Machine (the indoor bike's characteristics)
        public static let fitnessMachineFeature = BluetoothUUID(0x2ACC)
        public static let indoorBikeData = BluetoothUUID(0x2AD2)
        public static let fitnessMachineControlPoint = BluetoothUUID(0x2AD9)
        public static let fitnessMachineStatus = BluetoothUUID(0x2ADA)
    }

    /// GATT descriptor UUIDs: the Core Specification's (0x2900–0x2906, Vol 3 Part G §3.3.3) and
    /// the Environmental Sensing Service's (0x290B–0x290D).
    public enum Descriptor {
        public static let characteristicExtendedProperties = BluetoothUUID(0x2900)
        public static let characteristicUserDescription = BluetoothUUID(0x2901)
        public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
        public static let serverCharacteristicConfiguration = BluetoothUUID(0x2903)
        public static let characteristicPresentationFormat = BluetoothUUID(0x2904)
        public static let characteristicAggregateFormat = BluetoothUUID(0x2905)
        public static let validRange = BluetoothUUID(0x2906)
        /// Environmental Sensing Configuration: how several trigger settings combine.
        public static let environmentalSensingConfiguration = BluetoothUUID(0x290B)
        /// Environmental Sensing Measurement: how a measurement is taken.
        public static let environmentalSensingMeasurement = BluetoothUUID(0x290C)
        /// Environmental Sensing Trigger Setting: when a measurement is notified.
        public static let environmentalSensingTriggerSetting = BluetoothUUID(0x290D)
    }

    /// GATT attribute types used in the attribute database itself (Core Spec Vol 3 Part G §3).
    public enum Declaration {
        public static let primaryService = BluetoothUUID(0x2800)
        public static let secondaryService = BluetoothUUID(0x2801)
        public static let include = BluetoothUUID(0x2802)
        public static let characteristic = BluetoothUUID(0x2803)
    }

    /// The SIG-assigned name of the UUID, such as `"Battery Service"` for `0x180F` or
    /// `"Battery Level"` for `0x2A19`; `nil` when the SIG has not assigned it (or it is a
    /// vendor's 128-bit UUID).
    ///
    /// Every 16-bit service, characteristic and descriptor UUID of the SIG's assigned numbers
    /// has its name here, with the GATT declarations (`0x2800` Primary Service, …), from tables
    /// generated from the assigned-numbers data (see <doc:AssignedNumbers>).
    public var name: String? {
        guard let short = uuid16 else { return nil }
        return AssignedNames.uuidName(short)
    }
}
