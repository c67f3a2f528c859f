/// An integer field that is either in a range or one value the specification reserves for
/// "not known" (Date Time's Year 0, Temperature's 0x8000, Humidity's 0xFFFF). Anything else is
/// rejected both ways (``GATTCodecError/Kind/valueNotAllowed``).
struct RangeOrUnknownCodec<Integer: FixedWidthInteger & Sendable>: GATTCodec {
    let range: ClosedRange<Integer>
    let unknown: Integer
    /// How the range is described in errors, such as `"−27315–32767 (0.01 °C)"`.
    let rangeText: String

    init(_ range: ClosedRange<Integer>, unknown: Integer, unit: String? = nil) {
        self.range = range
        self.unknown = unknown
        self.rangeText = "\(range.lowerBound)–\(range.upperBound)" + (unit.map { " (\($0))" } ?? "")
    }

    func encode(_ value: Integer, to writer: inout GATTWriter) throws(GATTCodecError) {
        try check(value)
        writer.writeInteger(value)
    }

    func decode(from reader: inout GATTReader) throws(GATTCodecError) -> Integer {
        let value = try reader.readInteger(Integer.self)
        try check(value)
        return value
    }

    private func check(_ value: Integer) throws(GATTCodecError) {
        guard value == unknown || range.contains(value) else {
            let hex = String(Integer.Magnitude(truncatingIfNeeded: unknown), radix: 16, uppercase: true)
            throw .valueNotAllowed(expected: "\(rangeText) or 0x\(hex) (not known)", found: "\(value)")
        }
    }

    /// The raw field nearest `value` at `scale` raw units per unit (100 for 0.01), or an
    /// error naming the allowed range when it falls outside (or is NaN).
    func raw(scaling value: Double, by scale: Double, described: String) throws(GATTCodecError) -> Integer {
        let scaled = (value * scale).rounded()
        guard scaled >= Double(range.lowerBound), scaled <= Double(range.upperBound) else {
            throw .valueNotAllowed(expected: described, found: "\(value)")
        }
        return Integer(scaled)
    }
}
