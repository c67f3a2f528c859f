/// Temperature Measurement (0x2A1C) and Intermediate Temperature (0x2A1E), GATT
/// Specification Supplement, "Temperature Measurement":
///
/// | field | size | present |
/// |---|---|---|
/// | Flags | uint8 | always |
/// | Temperature Measurement Value | FLOAT (medfloat32) | always; °C, or °F when flags bit 0 is set |
/// | Time Stamp | Date Time, 7 bytes | when flags bit 1 is set |
/// | Temperature Type | uint8 | when flags bit 2 is set |
///
/// Flags bits 3–7 are reserved, written 0 and ignored when read.
public struct TemperatureMeasurement: GATTStructure, Hashable {
    /// The unit of ``temperature``.
    public enum Unit: Sendable, Hashable {
        /// Degrees Celsius (flags bit 0 clear).
        case celsius
        /// Degrees Fahrenheit (flags bit 0 set).
        case fahrenheit
    }

    /// The reading as an IEEE 11073 FLOAT, in ``unit``: it keeps the thermometer's precision
    /// (`364e-1`) and can say NaN (no reading), NRes or ±INFINITY.
    public var temperature: MedFloat32
    /// Celsius or Fahrenheit.
    public var unit: Unit
    /// When the measurement was taken, if the thermometer says (flags bit 1).
    public var timestamp: DateTime?
    /// Where on the body it was taken, if sent with each measurement (flags bit 2); a
    /// thermometer with a fixed site exposes ``HealthThermometerService/temperatureType`` instead.
    public var type: TemperatureType?

    /// A measurement; the flags follow from which fields are given.
    public init(temperature: MedFloat32, unit: Unit = .celsius, timestamp: DateTime? = nil, type: TemperatureType? = nil) {
        self.temperature = temperature
        self.unit = unit
        self.timestamp = timestamp
        self.type = type
    }

    enum Flag {
        static let fahrenheit: UInt8 = 0x01
        static let timestamp: UInt8 = 0x02
        static let type: UInt8 = 0x04
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let flags = try reader.decode(.uint8, field: "Flags")
        unit = flags & Flag.fahrenheit != 0 ? .fahrenheit : .celsius
        temperature = try reader.decode(.medfloat32, field: "Temperature Measurement Value")
        timestamp = flags & Flag.timestamp != 0 ? try reader.decode(DateTime.codec, field: "Time Stamp") : nil
        type = flags & Flag.type != 0 ? try reader.decode(.enumeration(TemperatureType.self), field: "Temperature Type") : nil
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        var flags: UInt8 = 0
        if unit == .fahrenheit { flags |= Flag.fahrenheit }
        if timestamp != nil { flags |= Flag.timestamp }
        if type != nil { flags |= Flag.type }
        writer.writeInteger(flags)
        try writer.encode(temperature, with: .medfloat32, field: "Temperature Measurement Value")
        if let timestamp { try writer.encode(timestamp, with: DateTime.codec, field: "Time Stamp") }
        if let type { writer.writeInteger(type.rawValue) }
    }
}
