import BleuCore

/// One pass over a PDU's fields, in order. ``ATTPDU`` describes each PDU's layout once, as a
/// sequence of calls on a coder; the encoder writes each field and the
/// decoder reads it back, so the two directions cannot disagree.
///
/// The primitives take their field `inout`: an encoder reads it, a decoder assigns it.
public protocol ATTFieldCoder {
    /// `Never` for the encoder; ``/BleuCore/PacketDecodingError`` for the decoder.
    associatedtype Failure: Error
    /// Whether this pass reads bytes into the fields (else it writes the fields out).
    var isDecoding: Bool { get }
    /// Bytes not yet read (a decoder), or 0 (an encoder).
    var remaining: Int { get }
    mutating func u8(_ value: inout UInt8) throws(Failure)
    mutating func u16(_ value: inout UInt16) throws(Failure)
    /// Exactly `count` bytes (an encoder writes what `value` holds, which has that count).
    mutating func bytes(_ value: inout [UInt8], count: Int) throws(Failure)
    /// Every byte to the end of the PDU.
    mutating func rest(_ value: inout [UInt8]) throws(Failure)
    /// A UUID in `width` bytes (2 or 16), little-endian.
    mutating func uuid(_ value: inout BluetoothUUID, width: Int) throws(Failure)
    /// An error for a field whose value the layout refuses (decoding only).
    func invalid(_ field: String, _ value: Int) -> Failure
    /// An error for a length field the bytes that follow disagree with (decoding only).
    func mismatch(declared: Int, actual: Int) -> Failure
}

extension ATTFieldCoder {
    /// An attribute type taking the rest of the PDU: 2 bytes when it has a 16-bit form, else 16.
    mutating func attributeType(_ value: inout BluetoothUUID) throws(Failure) {
        let width = isDecoding ? remaining : (value.uuid16 != nil ? 2 : 16)
        guard width == 2 || width == 16 else { throw invalid("attribute type length", width) }
        try uuid(&value, width: width)
    }

    /// Elements one after another to the end of the PDU; at least `minimum` of them (else an
    /// error on the field `counted`).
    mutating func list<Element>(_ elements: inout [Element], minimum: Int = 0, counted: String = "number of entries",
                                blank: Element,
                                _ each: (inout Element, inout Self) throws(Failure) -> Void) throws(Failure) {
        if isDecoding {
            elements = []
            while remaining > 0 {
                var element = blank
                try each(&element, &self)
                elements.append(element)
            }
            guard elements.count >= minimum else { throw invalid(counted, elements.count) }
        } else {
            for index in elements.indices { try each(&elements[index], &self) }
        }
    }

    /// A one-byte length, then elements of exactly that length to the end of the PDU (Read By
    /// Type and Read By Group Type responses). `fixedPart` is the bytes of each element before
    /// its value; `each` gets the value's length.
    mutating func uniformList<Element>(_ elements: inout [Element], fixedPart: Int, valueLength: (Element) -> Int,
                                       blank: Element,
                                       _ each: (inout Element, inout Self, Int) throws(Failure) -> Void) throws(Failure) {
        var length = UInt8(truncatingIfNeeded: fixedPart + (elements.first.map(valueLength) ?? 0))
        try u8(&length)
        let size = Int(length)
        if isDecoding {
            guard size >= fixedPart else { throw invalid("length", size) }
            guard remaining > 0, remaining % size == 0 else { throw mismatch(declared: size, actual: remaining) }
        }
        try list(&elements, blank: blank) { (element: inout Element, coder: inout Self) throws(Failure) in
            try each(&element, &coder, size - fixedPart)
        }
    }
}

/// Writes a PDU's fields.
package struct ATTFieldEncoder: ATTFieldCoder {
    package typealias Failure = Never
    package private(set) var bytes: [UInt8]
    package var isDecoding: Bool { false }
    package var remaining: Int { 0 }

    package init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    package mutating func u8(_ value: inout UInt8) { bytes.append(value) }
    package mutating func u16(_ value: inout UInt16) { bytes.appendLE(value) }
    package mutating func bytes(_ value: inout [UInt8], count: Int) { bytes += value }
    package mutating func rest(_ value: inout [UInt8]) { bytes += value }
    package mutating func uuid(_ value: inout BluetoothUUID, width: Int) {
        bytes += value.littleEndianBytes(width: width == 2 ? .bits16 : .bits128) ?? value.attBytes
    }
    package func invalid(_ field: String, _ value: Int) -> Never {
        preconditionFailure("the encoder never refuses a field (\(field) = \(value))")
    }
    package func mismatch(declared: Int, actual: Int) -> Never {
        preconditionFailure("the encoder writes the length it declares (\(declared), \(actual))")
    }
}

/// Reads a PDU's fields, throwing ``/BleuCore/PacketDecodingError`` rather than reading past the end.
package struct ATTFieldDecoder: ATTFieldCoder {
    package typealias Failure = PacketDecodingError
    package var reader: ByteReader
    package var isDecoding: Bool { true }
    package var remaining: Int { reader.remaining }

    package init(_ reader: ByteReader) { self.reader = reader }

    package mutating func u8(_ value: inout UInt8) throws(PacketDecodingError) { value = try reader.u8() }
    package mutating func u16(_ value: inout UInt16) throws(PacketDecodingError) { value = try reader.u16() }
    package mutating func bytes(_ value: inout [UInt8], count: Int) throws(PacketDecodingError) { value = try reader.take(count) }
    package mutating func rest(_ value: inout [UInt8]) throws(PacketDecodingError) { value = reader.rest() }
    package mutating func uuid(_ value: inout BluetoothUUID, width: Int) throws(PacketDecodingError) {
        let raw = try reader.take(width)
        guard let uuid = BluetoothUUID(littleEndianBytes: raw) else { throw invalid("UUID length", width) }
        value = uuid
    }
    package func invalid(_ field: String, _ value: Int) -> PacketDecodingError {
        reader.error(.invalidValue(field: field, value: value))
    }
    package func mismatch(declared: Int, actual: Int) -> PacketDecodingError {
        reader.error(.lengthMismatch(declared: declared, actual: actual))
    }
}

/// Counts a PDU's bytes without writing them: the link model times PDUs by their length.
struct ATTFieldCounter: ATTFieldCoder {
    typealias Failure = Never
    private(set) var count = 0
    var isDecoding: Bool { false }
    var remaining: Int { 0 }

    mutating func u8(_ value: inout UInt8) { count += 1 }
    mutating func u16(_ value: inout UInt16) { count += 2 }
    mutating func bytes(_ value: inout [UInt8], count: Int) { self.count += value.count }
    mutating func rest(_ value: inout [UInt8]) { count += value.count }
    mutating func uuid(_ value: inout BluetoothUUID, width: Int) { count += width == 2 && value.uuid16 != nil ? 2 : 16 }
    func invalid(_ field: String, _ value: Int) -> Never { preconditionFailure("the counter never refuses a field") }
    func mismatch(declared: Int, actual: Int) -> Never { preconditionFailure("the counter never refuses a length") }
}
