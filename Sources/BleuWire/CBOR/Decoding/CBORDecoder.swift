import Foundation

/// Decodes `Decodable` values from CBOR (RFC 8949), the counterpart of ``CBOREncoder``.
///
/// Input is parsed under ``limits`` first, so hostile bytes fail with a ``CBORError`` before any
/// `init(from:)` runs; a well-formed item of the wrong shape fails with a `DecodingError`. Integers
/// that do not fit the requested width are errors, never traps. Map keys match a coding key by
/// its text or, where it has one, its integer value, so both key encodings decode.
///
/// ```swift
/// let envelope = try CBORDecoder().decode(Envelope.self, from: bytes)
/// ```
public struct CBORDecoder: Sendable {
    /// Bounds on nesting, string lengths and collection sizes.
    public var limits: CBORDecodingLimits
    /// How untagged numbers decode as `Date` (tags 0 and 1 always decode).
    public var dateDecoding: CBORDateFormat
    /// Values made available to `init(from:)` implementations through `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// A decoder with default limits (depth 64, strings of 16 MiB, collections of 1 Mi elements).
    public init(limits: CBORDecodingLimits = .init(), dateDecoding: CBORDateFormat = .epochTime,
                userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.limits = limits
        self.dateDecoding = dateDecoding
        self.userInfo = userInfo
    }

    /// Decodes a `T` from `bytes`, which must hold exactly one CBOR item.
    ///
    /// - Throws: ``CBORError`` when the bytes are not well-formed CBOR or break ``limits``;
    ///   `DecodingError` when the item does not have the shape `T` expects, or a number does not
    ///   fit; any error `T`'s own `init(from:)` throws.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let value = try bytes.withUnsafeBytes { buffer in
            Result { () throws(CBORError) -> CBORValue in try CBORReader.parse(buffer, limits: limits) }
        }.get()
        return try decode(type, from: value)
    }

    /// Decodes a `T` from `data`. Throws as ``decode(_:from:)-(_,[UInt8])``.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let value = try data.withUnsafeBytes { buffer in
            Result { () throws(CBORError) -> CBORValue in try CBORReader.parse(buffer, limits: limits) }
        }.get()
        return try decode(type, from: value)
    }

    /// Decodes a `T` from an already parsed item. Throws `DecodingError` as above.
    public func decode<T: Decodable>(_ type: T.Type, from value: CBORValue) throws -> T {
        try CBORDecoderState(value: value, options: self, codingPath: []).decode(type, from: value, codingPath: [])
    }
}
