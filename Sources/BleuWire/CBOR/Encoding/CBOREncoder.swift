import Foundation

/// Encodes `Encodable` values as CBOR (RFC 8949).
///
/// Structs and classes become maps keyed by their coding keys, arrays become arrays, `Data`
/// becomes a byte string, `UUID` a 16-byte byte string, `Date` an epoch-time item (tag 1), `URL`
/// a text string, integers and floats take their shortest exact form, and `nil` is `null` (an
/// absent optional is left out of its map, as with `encodeIfPresent`). Enums with associated
/// values use Swift's synthesized shape (a one-entry map from the case name to its payload).
///
/// ```swift
/// let bytes = try CBOREncoder().encode(envelope)          // Data
/// let raw: [UInt8] = try CBOREncoder().encodeBytes(envelope)
/// ```
public struct CBOREncoder: Sendable {
    /// How map keys are written.
    public enum KeyEncoding: Sendable, Hashable {
        /// Every key as a text string, `stringValue` (the interoperable default).
        case strings
        /// Keys that have an `intValue` (e.g. `enum CodingKeys: Int, CodingKey`) as that integer,
        /// others as text: a compact form for envelopes both ends define. (Dictionaries keyed by
        /// `String` or `Int` then write numeric keys such as "7" as integers too; they decode back
        /// to the same dictionary.)
        case integersWhenAvailable
    }

    /// Map keys: text (default) or small integers where the key type has them.
    public var keyEncoding: KeyEncoding
    /// Dates: tag 1 epoch time (default) or bit-exact reference-date seconds.
    public var dateEncoding: CBORDateFormat
    /// The deepest nesting of containers accepted; deeper values throw instead of exhausting the stack.
    public var maximumDepth: Int
    /// Values made available to `encode(to:)` implementations through `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// An encoder writing text keys, tag-1 dates, nesting up to 64 deep.
    public init(
        keyEncoding: KeyEncoding = .strings, dateEncoding: CBORDateFormat = .epochTime,
        maximumDepth: Int = 64, userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) {
        self.keyEncoding = keyEncoding
        self.dateEncoding = dateEncoding
        self.maximumDepth = maximumDepth
        self.userInfo = userInfo
    }

    /// Encodes `value` and returns its bytes.
    ///
    /// - Throws: `EncodingError.invalidValue` when a value encodes nothing or nests deeper than
    ///   ``maximumDepth``; any error the value's own `encode(to:)` throws.
    public func encodeBytes<T: Encodable>(_ value: T) throws -> [UInt8] {
        // Straight into one buffer when the value writes its containers depth-first (nearly
        // always); else again through a tree of nodes, which takes any order.
        let linear = LinearEncoding(options: self)
        do {
            try linear.encodeValue(value, depth: 0)
            if linear.isLinear { return linear.finish() }
        } catch {
            if linear.isLinear { throw error }
        }
        let root = try EncodingNode.make(value, options: self, codingPath: [], depth: 0)
        var writer = CBORWriter()
        try root.write(to: &writer, depth: 0, limit: maximumDepth)
        return writer.bytes
    }

    /// Encodes `value` and returns its bytes as `Data`. Throws as ``encodeBytes(_:)``.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        Data(try encodeBytes(value))
    }
}
