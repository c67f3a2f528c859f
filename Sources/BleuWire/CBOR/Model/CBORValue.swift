import Foundation

/// One CBOR data item (RFC 8949 §3), as a tree.
///
/// ``CBOREncoder`` and ``CBORDecoder`` map `Codable` values to and from this model; use it
/// directly for dynamic content (``encoded()`` and ``init(decoding:limits:)``), or as a `Codable`
/// property whose content the codec passes through untouched.
public enum CBORValue: Sendable, Hashable {
    /// Major type 0: an unsigned integer.
    case unsignedInteger(UInt64)
    /// Major type 1: the negative integer `-1 - n` for the associated `n`.
    case negativeInteger(UInt64)
    /// Major type 2: a byte string.
    case byteString([UInt8])
    /// Major type 3: a UTF-8 text string.
    case textString(String)
    /// Major type 4: an array.
    case array([CBORValue])
    /// Major type 5: a map, its pairs in encoded order.
    case map([CBORMapEntry])
    /// Major type 6: a tag number and the tagged item.
    indirect case tagged(UInt64, CBORValue)
    /// Major type 7: `false` or `true`.
    case boolean(Bool)
    /// Major type 7: `null`.
    case null
    /// Major type 7: `undefined`.
    case undefined
    /// Major type 7: a simple value other than the booleans, null and undefined (0–19, 32–255).
    case simple(UInt8)
    /// Major type 7: a floating-point number. Encoded in the shortest of half, single and double
    /// precision that keeps its exact bits (RFC 8949 §4.2.2's preferred serialization).
    case float(Double)
}

/// One key/value pair of a ``CBORValue/map(_:)``.
public struct CBORMapEntry: Sendable, Hashable {
    /// The key: any item, most often a text string or a small integer.
    public var key: CBORValue
    /// The value.
    public var value: CBORValue

    /// An entry mapping `key` to `value`.
    public init(_ key: CBORValue, _ value: CBORValue) {
        self.key = key
        self.value = value
    }
}

extension CBORValue {
    /// The integer value of an ``unsignedInteger(_:)`` or ``negativeInteger(_:)``, if it fits `Int64`.
    public var int64Value: Int64? {
        switch self {
        case .unsignedInteger(let n): Int64(exactly: n)
        case .negativeInteger(let n): n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: nil
        }
    }

    /// An integer item holding `value`.
    public init(_ value: Int64) {
        self = value >= 0 ? .unsignedInteger(UInt64(value)) : .negativeInteger(UInt64(~value))
    }

    /// The item's bytes in CBOR's preferred serialization (shortest heads, definite lengths).
    public func encoded() -> [UInt8] {
        var writer = CBORWriter()
        writer.write(self)
        return writer.bytes
    }

    /// Parses exactly one data item that fills `bytes`.
    ///
    /// - Throws: ``CBORError`` when the input is not well-formed, breaks a limit, or has bytes
    ///   after the item.
    public init<Bytes: Sequence>(decoding bytes: Bytes, limits: CBORDecodingLimits = .init()) throws(CBORError)
    where Bytes.Element == UInt8 {
        let array = bytes as? [UInt8] ?? Array(bytes)
        let parsed = array.withUnsafeBytes { buffer in
            Result { () throws(CBORError) -> CBORValue in try CBORReader.parse(buffer, limits: limits) }
        }
        self = try parsed.get()
    }
}

/// ``CBORValue`` is `Codable` so that it can sit in a `Codable` type. ``CBOREncoder`` and
/// ``CBORDecoder`` write and read it as the item itself; other coders (JSON, property lists) see
/// its CBOR bytes as `Data`.
extension CBORValue: Codable {
    public init(from decoder: any Decoder) throws {
        let data = try decoder.singleValueContainer().decode(Data.self)
        self = try CBORValue(decoding: data)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Data(encoded()))
    }
}
