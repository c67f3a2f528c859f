/// Why bytes from a controller or a peer could not be read as the packet they claim to be.
///
/// Every packet parser in the package throws this one type, so a layer can answer bad input (an ATT error
/// response, an L2CAP command reject, a disconnect) without knowing which parser failed.
public struct PacketDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong with the bytes.
    public enum Kind: Hashable, Sendable {
        /// The packet ended before a field: `needed` more bytes at `offset`, `available` left.
        case truncated(offset: Int, needed: Int, available: Int)
        /// Bytes were left over after the last field.
        case trailingBytes(count: Int)
        /// A length field disagrees with the bytes that follow it.
        case lengthMismatch(declared: Int, actual: Int)
        /// The type byte, opcode or code is not one this parser knows.
        case unknownType(UInt32)
        /// A field holds a value the specification forbids.
        case invalidValue(field: String, value: Int)
    }

    /// The packet being read, such as `"ATT Read By Type Response"` or `"HCI event 0x0E"`.
    public var packet: String
    /// What was wrong.
    public var kind: Kind

    /// Creates an error for `packet`.
    public init(_ packet: String, _ kind: Kind) {
        self.packet = packet
        self.kind = kind
    }

    public var description: String {
        switch kind {
        case let .truncated(offset, needed, available):
            "\(packet): truncated at byte \(offset) (needed \(needed) more, \(available) left); the sender's packet is malformed"
        case let .trailingBytes(count):
            "\(packet): \(count) unexpected byte(s) after the last field; the sender's packet is malformed"
        case let .lengthMismatch(declared, actual):
            "\(packet): length field says \(declared) but \(actual) byte(s) follow; the sender's packet is malformed"
        case let .unknownType(value):
            "\(packet): unknown type or opcode 0x\(String(value, radix: 16, uppercase: true))"
        case let .invalidValue(field, value):
            "\(packet): field \(field) has the forbidden value \(value)"
        }
    }
}
