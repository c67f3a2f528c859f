import Foundation

/// Turns values of one Swift type into the bytes of a GATT characteristic or descriptor value
/// and back.
///
/// A codec reads from a ``GATTReader`` and writes to a ``GATTWriter``, so codecs compose: a
/// structured value's codec decodes its fields with the codecs of their types. Decoding a
/// whole value with ``decode(_:)`` also rejects bytes left over. Every failure is a
/// ``GATTCodecError`` saying what was expected and what came, and which ATT error a server
/// answers it with.
///
/// Ready-made codecs are static members, so a declaration reads `codec: .uint16`,
/// `.percentage`, `.utf8String`, `.medfloat16`, `.enumeration(BodySensorLocation.self)`.
public protocol GATTCodec<Value>: Sendable {
    /// The Swift type of the values.
    associatedtype Value: Sendable

    /// Appends the bytes of `value`. Throws ``GATTCodecError`` for a value the layout cannot
    /// carry (out of range, too long).
    func encode(_ value: Value, to writer: inout GATTWriter) throws(GATTCodecError)

    /// Reads one value from the reader's position. Throws ``GATTCodecError`` for too few bytes
    /// or bytes the specification does not allow. A codec of a variable-length field (a
    /// string, bytes) reads to the end.
    func decode(from reader: inout GATTReader) throws(GATTCodecError) -> Value
}

extension GATTCodec {
    /// The bytes of `value`. Throws ``GATTCodecError`` for a value the layout cannot carry, or
    /// one whose bytes exceed GATT's 512-byte limit.
    public func encode(_ value: Value) throws(GATTCodecError) -> Data {
        var writer = GATTWriter()
        try encode(value, to: &writer)
        guard writer.bytes.count <= GATTWriter.maximumValueLength else {
            throw .invalidLength(expected: "at most \(GATTWriter.maximumValueLength) bytes (an attribute value's limit)",
                                 found: bytesText(writer.bytes.count))
        }
        return writer.data
    }

    /// The value these bytes hold. Throws ``GATTCodecError`` for too few bytes, bytes left
    /// over, or bytes the specification does not allow.
    public func decode(_ data: Data) throws(GATTCodecError) -> Value {
        var reader = GATTReader(data)
        let value = try decode(from: &reader)
        try reader.expectEnd()
        return value
    }

    /// ``encode(_:)``, its error's path starting with `name` (the attribute that holds the
    /// value): one rule for characteristics and descriptors alike.
    func encode(_ value: Value, named name: String) throws(GATTCodecError) -> Data {
        do {
            return try encode(value)
        } catch {
            throw error.within(name)
        }
    }

    /// ``decode(_:)``, its error's path starting with `name` (the attribute that holds the value).
    func decode(_ data: Data, named name: String) throws(GATTCodecError) -> Value {
        do {
            return try decode(data)
        } catch {
            throw error.within(name)
        }
    }
}
