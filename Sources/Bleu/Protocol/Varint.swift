/// Unsigned LEB128 integers (7 bits a byte, least significant group first): the compact
/// numbers of the actor protocol's envelopes. Values below 128 take one byte.
enum Varint {
    /// Appends `value` to `bytes`.
    static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// The number of bytes `value` takes.
    static func length(_ value: UInt32) -> Int {
        var value = value
        var count = 1
        while value >= 0x80 {
            value >>= 7
            count += 1
        }
        return count
    }
}

/// Reads an envelope's fields in order; every read checks the bounds and throws
/// ``BLEActorSystemError/MessageProblem`` rather than trapping.
struct EnvelopeReader {
    private let bytes: [UInt8]
    private(set) var position: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.position = 0
    }

    var isAtEnd: Bool { position == bytes.count }

    mutating func byte(_ field: String) throws(MessageProblem) -> UInt8 {
        guard position < bytes.count else { throw .truncated(field: field) }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func varint(_ field: String) throws(MessageProblem) -> UInt32 {
        var result: UInt32 = 0
        var shift: UInt32 = 0
        while true {
            let next = try byte(field)
            guard shift < 32, shift < 28 || next & 0x70 == 0 else { throw .varintOverflow(field: field) }
            result |= UInt32(next & 0x7F) << shift
            if next & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// A length-prefixed byte string of at most `maximum` bytes.
    mutating func bytes(_ field: String, maximum: Int) throws(MessageProblem) -> [UInt8] {
        let length = Int(try varint(field))
        guard length <= maximum else { throw .tooLong(field: field, length: length, maximum: maximum) }
        guard bytes.count - position >= length else { throw .truncated(field: field) }
        defer { position += length }
        return Array(bytes[position..<position + length])
    }

    /// A length-prefixed UTF-8 string of at most `maximum` bytes.
    mutating func string(_ field: String, maximum: Int) throws(MessageProblem) -> String {
        let raw = try bytes(field, maximum: maximum)
        guard let text = String(validating: raw, as: UTF8.self) else { throw .notUTF8(field: field) }
        return text
    }

    /// Everything not read yet.
    mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return Array(bytes[position...])
    }
}

extension Array where Element == UInt8 {
    mutating func appendLengthPrefixed(_ bytes: some Collection<UInt8>) {
        Varint.append(UInt32(bytes.count), to: &self)
        append(contentsOf: bytes)
    }
}
