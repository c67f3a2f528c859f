/// Pressure (0x2A6D): a `uint32` in 0.1 Pa. GATT Specification Supplement, "Pressure".
public struct Pressure: GATTStructure, Hashable {
    /// The raw field, in tenths of a pascal.
    public let tenthsOfPascal: UInt32

    /// A pressure in tenths of a pascal.
    public init(tenthsOfPascal: UInt32) {
        self.tenthsOfPascal = tenthsOfPascal
    }

    /// `pascals` rounded to 0.1 Pa. Throws ``GATTCodecError/Kind/valueNotAllowed`` outside
    /// 0...429496729.5 Pa (and for NaN).
    public init(pascals: Double) throws(GATTCodecError) {
        let scaled = (pascals * 10).rounded()
        guard scaled >= 0, scaled <= Double(UInt32.max) else {
            throw .valueNotAllowed(expected: "0–429496729.5 Pa", found: "\(pascals)")
        }
        tenthsOfPascal = UInt32(scaled)
    }

    /// Pascals.
    public var pascals: Double { Double(tenthsOfPascal) / 10 }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        tenthsOfPascal = try reader.readInteger(UInt32.self)
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeInteger(tenthsOfPascal)
    }
}
