/// Humidity (0x2A6F): a `uint16` in 0.01 %, 0 to 100.00; 0xFFFF means "value is not known";
/// every other value is prohibited and rejected both ways. GATT Specification Supplement,
/// "Humidity".
public struct Humidity: GATTStructure, Hashable {
    /// The raw field, in hundredths of a percent.
    public let hundredths: UInt16

    /// The value the specification reserves for "not known" (0xFFFF).
    public static let unknown = Humidity(hundredths: UInt16.max)
    static let field = RangeOrUnknownCodec<UInt16>(0...10_000, unknown: UInt16.max, unit: "0.01 %")

    /// A relative humidity in hundredths of a percent.
    public init(hundredths: UInt16) {
        self.hundredths = hundredths
    }

    /// `percent` rounded to 0.01 %. Throws ``GATTCodecError/Kind/valueNotAllowed`` outside
    /// 0...100 (and for NaN).
    public init(percent: Double) throws(GATTCodecError) {
        hundredths = try Self.field.raw(scaling: percent, by: 100, described: "0–100 %")
    }

    /// Percent relative humidity, or `nil` when not known.
    public var percent: Double? {
        self == .unknown ? nil : Double(hundredths) / 100
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        hundredths = try Self.field.decode(from: &reader)
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        try Self.field.encode(hundredths, to: &writer)
    }
}
