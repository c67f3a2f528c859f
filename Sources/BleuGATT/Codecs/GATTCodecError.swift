import BleuCore

/// Why bytes could not be decoded into a value, or a value could not be encoded into bytes.
///
/// The error says what the codec expected and what it found, and names the field it was in
/// (``path``, outermost first), for example
/// `Heart Rate Measurement › Energy Expended: expected 2 bytes (uint16), found 1 byte`.
///
/// ``attError`` is the Attribute Protocol error a GATT server answers a malformed write with:
/// ``/BleuCore/ATTError/invalidAttributeValueLength`` (0x0D) for a wrong length,
/// ``/BleuCore/ATTError/valueNotAllowed`` (0x13) for a value the specification does not allow, or the
/// error a service specification names instead (an application error 0x80–0x9F, or
/// ``/BleuCore/ATTError/outOfRange`` 0xFF), set with ``answering(with:)``.
public struct GATTCodecError: Error, Sendable, Hashable {
    /// What was wrong with the bytes or the value.
    public enum Kind: String, Sendable, Hashable {
        /// Too few or too many bytes for the value.
        case invalidLength
        /// The right number of bytes, saying something the specification does not allow: a
        /// value out of range, an unknown enumeration value, reserved bits, invalid UTF-8.
        case valueNotAllowed
    }

    /// Whether the length or the value was wrong.
    public var kind: Kind
    /// What the codec expected, such as `"2 bytes (uint16)"` or `"0–100"`.
    public var expected: String
    /// What it found, such as `"1 byte"` or `"101"`.
    public var found: String
    /// The fields the error occurred in, outermost first, such as
    /// `["Heart Rate Measurement", "Energy Expended"]`; empty for a bare codec.
    public var path: [String]
    /// The ATT error a server answers a write that fails this way with.
    public var attError: ATTError

    /// An error; `attError` defaults to the kind's (0x0D for a length, 0x13 for a value). Codecs
    /// usually throw ``invalidLength(expected:found:)`` or ``valueNotAllowed(expected:found:)``.
    public init(kind: Kind, expected: String, found: String, path: [String] = [], attError: ATTError? = nil) {
        self.kind = kind
        self.expected = expected
        self.found = found
        self.path = path
        self.attError = attError ?? kind.defaultATTError
    }

    /// Too few or too many bytes (ATT error 0x0D).
    public static func invalidLength(expected: String, found: String) -> GATTCodecError {
        GATTCodecError(kind: .invalidLength, expected: expected, found: found)
    }

    /// A value the specification does not allow (ATT error 0x13).
    public static func valueNotAllowed(expected: String, found: String) -> GATTCodecError {
        GATTCodecError(kind: .valueNotAllowed, expected: expected, found: found)
    }

    /// The same error, inside the named field (prepended to ``path``).
    public func within(_ field: String) -> GATTCodecError {
        var copy = self
        copy.path.insert(field, at: 0)
        return copy
    }

    /// The same error, answered with another ATT error: the one a service specification
    /// names for this failure, such as an application error.
    public func answering(with error: ATTError) -> GATTCodecError {
        var copy = self
        copy.attError = error
        return copy
    }
}

extension GATTCodecError.Kind {
    /// ``/BleuCore/ATTError/invalidAttributeValueLength`` for a wrong length, ``/BleuCore/ATTError/valueNotAllowed``
    /// for a value not allowed.
    public var defaultATTError: ATTError {
        switch self {
        case .invalidLength: .invalidAttributeValueLength
        case .valueNotAllowed: .valueNotAllowed
        }
    }
}

extension GATTCodecError: CustomStringConvertible {
    /// For example `"Battery Level: expected 0–100, found 101 (answered with ATT error 0x13, Value Not Allowed)"`.
    public var description: String {
        let place = path.isEmpty ? "" : path.joined(separator: " › ") + ": "
        let code = String(attError.rawValue, radix: 16, uppercase: true)
        let hex = code.count < 2 ? "0" + code : code
        return "\(place)expected \(expected), found \(found) (answered with ATT error 0x\(hex), \(attError.name))"
    }
}

/// `"1 byte"`, `"3 bytes"`.
func bytesText(_ count: Int) -> String {
    count == 1 ? "1 byte" : "\(count) bytes"
}
