import Foundation

/// A value with a layout of several fields — a flags byte, optional fields, a list — that
/// reads and writes itself field by field. Its ``codec`` checks the whole value: fields
/// missing at the end and bytes left over are both ``GATTCodecError/Kind/invalidLength``.
///
/// ```swift
/// struct Reading: GATTStructure {
///     var level: UInt8
///     var millivolts: UInt16
///
///     init(level: UInt8, millivolts: UInt16) { … }
///
///     init(from reader: inout GATTReader) throws(GATTCodecError) {
///         level = try reader.decode(.percentage, field: "Level")
///         millivolts = try reader.decode(.uint16, field: "Voltage")
///     }
///
///     func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
///         try writer.encode(level, with: .percentage, field: "Level")
///         try writer.encode(millivolts, with: .uint16, field: "Voltage")
///     }
/// }
/// ```
public protocol GATTStructure: Sendable {
    /// Reads the fields in order. Throws ``GATTCodecError`` naming the field that failed.
    init(from reader: inout GATTReader) throws(GATTCodecError)

    /// Writes the fields in order. Throws ``GATTCodecError`` for a field the layout cannot carry.
    func encode(to writer: inout GATTWriter) throws(GATTCodecError)
}

/// The codec of a ``GATTStructure``.
public struct StructureCodec<Structure: GATTStructure>: GATTCodec {
    /// The codec of `type`; also its ``GATTStructure/codec``.
    public init(_ type: Structure.Type = Structure.self) {}

    public func encode(_ value: Structure, to writer: inout GATTWriter) throws(GATTCodecError) {
        try value.encode(to: &writer)
    }

    public func decode(from reader: inout GATTReader) throws(GATTCodecError) -> Structure {
        try Structure(from: &reader)
    }
}

extension GATTStructure {
    /// The codec that reads and writes this structure.
    public static var codec: StructureCodec<Self> { StructureCodec() }

    /// The bytes of this value. Throws ``GATTCodecError`` for a field the layout cannot carry.
    public func encoded() throws(GATTCodecError) -> Data {
        try Self.codec.encode(self)
    }

    /// Decodes a whole value, rejecting missing fields and bytes left over.
    public init(decoding data: Data) throws(GATTCodecError) {
        self = try Self.codec.decode(data)
    }
}

extension GATTCodec {
    /// The codec of a ``GATTStructure``.
    public static func structure<Structure>(_ type: Structure.Type) -> Self where Self == StructureCodec<Structure> {
        StructureCodec(type)
    }
}
