/// Temperature (0x2A6E): a `sint16` in 0.01 °C, −273.15 to 327.67; 0x8000 means "value is
/// not known"; every other value is prohibited and rejected both ways. GATT Specification
/// Supplement, "Temperature".
public struct Temperature: GATTStructure, Hashable {
    /// The raw field, in hundredths of a degree Celsius.
    public let hundredths: Int16

    /// The value the specification reserves for "not known" (0x8000).
    public static let unknown = Temperature(hundredths: Int16.min)
    static let allowed: ClosedRange<Int16> = -27315...Int16.max

    /// A temperature in hundredths of a degree Celsius.
    public init(hundredths: Int16) {
        self.hundredths = hundredths
    }

    /// `celsius` rounded to 0.01 °C. Throws ``GATTCodecError/Kind/valueNotAllowed`` outside
    /// −273.15...327.67 (and for NaN).
    public init(celsius: Double) throws(GATTCodecError) {
        let scaled = (celsius * 100).rounded()
        guard scaled >= Double(Self.allowed.lowerBound), scaled <= Double(Self.allowed.upperBound) else {
            throw .valueNotAllowed(expected: "−273.15–327.67 °C", found: "\(celsius)")
        }
        hundredths = Int16(scaled)
    }

    /// Degrees Celsius, or `nil` when not known.
    public var celsius: Double? {
        self == .unknown ? nil : Double(hundredths) / 100
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        hundredths = try reader.readInteger(Int16.self)
        try check()
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        try check()
        writer.writeInteger(hundredths)
    }

    private func check() throws(GATTCodecError) {
        guard self == .unknown || Self.allowed.contains(hundredths) else {
            throw .valueNotAllowed(expected: "−27315–32767 (0.01 °C) or 0x8000 (not known)", found: "\(hundredths)")
        }
    }
}
