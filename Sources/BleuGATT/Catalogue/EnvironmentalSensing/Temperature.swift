/// Temperature (0x2A6E): a `sint16` in 0.01 °C, −273.15 to 327.67; 0x8000 means "value is
/// not known"; every other value is prohibited and rejected both ways. GATT Specification
/// Supplement, "Temperature".
public struct Temperature: GATTStructure, Hashable {
    /// The raw field, in hundredths of a degree Celsius.
    public let hundredths: Int16

    /// The value the specification reserves for "not known" (0x8000).
    public static let unknown = Temperature(hundredths: Int16.min)
    static let field = RangeOrUnknownCodec<Int16>(-27315...Int16.max, unknown: Int16.min, unit: "0.01 °C")

    /// A temperature in hundredths of a degree Celsius.
    public init(hundredths: Int16) {
        self.hundredths = hundredths
    }

    /// `celsius` rounded to 0.01 °C. Throws ``GATTCodecError/Kind/valueNotAllowed`` outside
    /// −273.15...327.67 (and for NaN).
    public init(celsius: Double) throws(GATTCodecError) {
        hundredths = try Self.field.raw(scaling: celsius, by: 100, described: "−273.15–327.67 °C")
    }

    /// Degrees Celsius, or `nil` when not known.
    public var celsius: Double? {
        self == .unknown ? nil : Double(hundredths) / 100
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        hundredths = try Self.field.decode(from: &reader)
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        try Self.field.encode(hundredths, to: &writer)
    }
}
