/// Well-known UUIDs from the Bluetooth SIG's Assigned Numbers, with their names.
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
    }

    /// GATT descriptor UUIDs (0x2900–0x2906).
    public enum Descriptor {
        public static let characteristicExtendedProperties = BluetoothUUID(0x2900)
        public static let characteristicUserDescription = BluetoothUUID(0x2901)
        public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
        public static let serverCharacteristicConfiguration = BluetoothUUID(0x2903)
        public static let characteristicPresentationFormat = BluetoothUUID(0x2904)
        public static let characteristicAggregateFormat = BluetoothUUID(0x2905)
        public static let validRange = BluetoothUUID(0x2906)
    }

    /// GATT attribute types used in the attribute database itself (Core Spec Vol 3 Part G §3).
    public enum Declaration {
        public static let primaryService = BluetoothUUID(0x2800)
        public static let secondaryService = BluetoothUUID(0x2801)
        public static let include = BluetoothUUID(0x2802)
        public static let characteristic = BluetoothUUID(0x2803)
    }

    /// The SIG-assigned name of a well-known UUID, such as `"Battery"` for `0x180F`;
    /// `nil` when the UUID is not one this library knows.
    public var name: String? {
        guard let short = uuid16 else { return nil }
        return Self.assignedNames[short]
    }

    static let assignedNames: [UInt16: String] = [
        // Services
        0x1800: "Generic Access",
        0x1801: "Generic Attribute",
        0x1805: "Current Time",
        0x1809: "Health Thermometer",
        0x180A: "Device Information",
        0x180D: "Heart Rate",
        0x180F: "Battery",
        0x181A: "Environmental Sensing",
        // Declarations
        0x2800: "Primary Service",
        0x2801: "Secondary Service",
        0x2802: "Include",
        0x2803: "Characteristic",
        // Descriptors
        0x2900: "Characteristic Extended Properties",
        0x2901: "Characteristic User Description",
        0x2902: "Client Characteristic Configuration",
        0x2903: "Server Characteristic Configuration",
        0x2904: "Characteristic Presentation Format",
        0x2905: "Characteristic Aggregate Format",
        0x2906: "Valid Range",
        // Characteristics
        0x2A00: "Device Name",
        0x2A01: "Appearance",
        0x2A02: "Peripheral Privacy Flag",
        0x2A03: "Reconnection Address",
        0x2A04: "Peripheral Preferred Connection Parameters",
        0x2A05: "Service Changed",
        0x2A0F: "Local Time Information",
        0x2A14: "Reference Time Information",
        0x2A19: "Battery Level",
        0x2A1C: "Temperature Measurement",
        0x2A1D: "Temperature Type",
        0x2A1E: "Intermediate Temperature",
        0x2A21: "Measurement Interval",
        0x2A23: "System ID",
        0x2A24: "Model Number String",
        0x2A25: "Serial Number String",
        0x2A26: "Firmware Revision String",
        0x2A27: "Hardware Revision String",
        0x2A28: "Software Revision String",
        0x2A29: "Manufacturer Name String",
        0x2A2A: "IEEE 11073-20601 Regulatory Certification Data List",
        0x2A2B: "Current Time",
        0x2A2C: "Magnetic Declination",
        0x2A37: "Heart Rate Measurement",
        0x2A38: "Body Sensor Location",
        0x2A39: "Heart Rate Control Point",
        0x2A50: "PnP ID",
        0x2A6C: "Elevation",
        0x2A6D: "Pressure",
        0x2A6E: "Temperature",
        0x2A6F: "Humidity",
        0x2A70: "True Wind Speed",
        0x2A71: "True Wind Direction",
        0x2A72: "Apparent Wind Speed",
        0x2A73: "Apparent Wind Direction",
        0x2A74: "Gust Factor",
        0x2A75: "Pollen Concentration",
        0x2A76: "UV Index",
        0x2A77: "Irradiance",
        0x2A78: "Rainfall",
        0x2A79: "Wind Chill",
        0x2A7A: "Heat Index",
        0x2A7B: "Dew Point",
        0x2A7D: "Descriptor Value Changed",
        0x2AA0: "Magnetic Flux Density - 2D",
        0x2AA1: "Magnetic Flux Density - 3D",
        0x2AA3: "Barometric Pressure Trend",
        0x2AA6: "Central Address Resolution",
        0x2AC9: "Resolvable Private Address Only",
        0x2B29: "Client Supported Features",
        0x2B2A: "Database Hash",
        0x2B3A: "Server Supported Features",
        0x2B88: "Encrypted Data Key Material",
        0x2BE9: "Battery Critical Status",
        0x2BEA: "Battery Health Status",
        0x2BEB: "Battery Health Information",
        0x2BEC: "Battery Information",
        0x2BED: "Battery Level Status",
        0x2BEE: "Battery Time Status",
        0x2BEF: "Estimated Service Date",
        0x2BF0: "Battery Energy Status",
        0x2BF5: "LE GATT Security Levels",
        0x2BFF: "UDI for Medical Devices",
    ]
}
