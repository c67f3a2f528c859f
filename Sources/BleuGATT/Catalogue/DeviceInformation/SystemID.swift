/// System ID (0x2A23): an EUI-64 sent least significant octet first — the 40-bit
/// manufacturer-defined identifier (5 bytes), then the 24-bit Organizationally Unique
/// Identifier (3 bytes). GATT Specification Supplement, "System ID". Identifiers wider than
/// their fields are rejected when encoding.
public struct SystemID: GATTStructure, Hashable {
    /// The manufacturer-defined identifier, 40 bits.
    public var manufacturerIdentifier: UInt64
    /// The IEEE-assigned Organizationally Unique Identifier, 24 bits.
    public var organizationallyUniqueIdentifier: UInt32

    /// A System ID; encoding rejects identifiers wider than 40 and 24 bits.
    public init(manufacturerIdentifier: UInt64, organizationallyUniqueIdentifier: UInt32) {
        self.manufacturerIdentifier = manufacturerIdentifier
        self.organizationallyUniqueIdentifier = organizationallyUniqueIdentifier
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        do {
            manufacturerIdentifier = try reader.readInteger(byteCount: 5, as: UInt64.self)
        } catch {
            throw error.within("Manufacturer Identifier")
        }
        organizationallyUniqueIdentifier = try reader.decode(.uint24, field: "Organizationally Unique Identifier")
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        guard manufacturerIdentifier <= 0xFF_FFFF_FFFF else {
            throw GATTCodecError.valueNotAllowed(expected: "a 40-bit identifier (at most 0xFFFFFFFFFF)",
                                                 found: "0x" + String(manufacturerIdentifier, radix: 16, uppercase: true))
                .within("Manufacturer Identifier")
        }
        writer.writeInteger(manufacturerIdentifier, byteCount: 5)
        try writer.encode(organizationallyUniqueIdentifier, with: .uint24, field: "Organizationally Unique Identifier")
    }
}
