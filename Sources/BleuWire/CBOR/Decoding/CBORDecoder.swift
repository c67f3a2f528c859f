import Foundation

/// Decodes `Decodable` values from CBOR (RFC 8949), the counterpart of ``CBOREncoder``.
///
/// Input is checked under ``limits`` first, so hostile bytes fail with a ``CBORError`` before any
/// `init(from:)` runs; values are then read straight from the bytes (a tree of ``CBORValue``
/// items is built first only for input with indefinite lengths). A well-formed item of the wrong
/// shape fails with a `DecodingError`. Integers that do not fit the requested width are errors,
/// never traps. Map keys match a coding key by
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
        try bytes.withUnsafeBytes { buffer in try decode(type, fromBuffer: buffer) }
    }

    /// Decodes a `T` from `data`. Throws as ``decode(_:from:)-(_,[UInt8])``.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try data.withUnsafeBytes { buffer in try decode(type, fromBuffer: buffer) }
    }

    /// Checked input is read in place (``LinearDecoding``); input the check does not take, or
    /// refuses, is parsed into a tree, which decodes it or throws the error that describes it.
    private func decode<T: Decodable>(_ type: T.Type, fromBuffer buffer: UnsafeRawBufferPointer) throws -> T {
        if LinearDecoding.accepts(buffer, limits: limits) {
            return try LinearDecoding(copying: buffer, options: self).decode(type, at: 0, path: .root)
        }
        let value = try Result { () throws(CBORError) -> CBORValue in try CBORReader.parse(buffer, limits: limits) }.get()
        return try decodeItem(type, from: value, codingPath: [])
    }

    /// Decodes a `T` from an already parsed item. Throws `DecodingError` as above.
    public func decode<T: Decodable>(_ type: T.Type, from value: CBORValue) throws -> T {
        try decodeItem(type, from: value, codingPath: [])
    }
}
