/// Why bytes are not an acceptable CBOR data item. Each case carries the byte offset where the
/// problem was found.
public enum CBORError: Error, Sendable, Hashable {
    /// The input ended inside an item.
    case truncated(offset: Int)
    /// The bytes are not well-formed CBOR (RFC 8949 §3); the text says which rule they break.
    case malformed(String, offset: Int)
    /// A text string is not valid UTF-8.
    case invalidUTF8(offset: Int)
    /// Arrays, maps and tags are nested deeper than ``CBORDecodingLimits/maximumDepth``.
    case depthLimitExceeded(limit: Int, offset: Int)
    /// A string or collection declares more than the limit allows.
    case lengthLimitExceeded(length: UInt64, limit: Int, offset: Int)
    /// A complete item was followed by more bytes.
    case trailingBytes(offset: Int)
}

extension CBORError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .truncated(let offset):
            "CBOR input ends inside an item at byte \(offset)"
        case .malformed(let reason, let offset):
            "malformed CBOR at byte \(offset): \(reason)"
        case .invalidUTF8(let offset):
            "CBOR text string at byte \(offset) is not valid UTF-8"
        case .depthLimitExceeded(let limit, let offset):
            "CBOR nesting deeper than \(limit) at byte \(offset); raise CBORDecodingLimits.maximumDepth if this is legitimate"
        case .lengthLimitExceeded(let length, let limit, let offset):
            "CBOR item at byte \(offset) declares length \(length), over the limit of \(limit)"
        case .trailingBytes(let offset):
            "unexpected bytes after the CBOR item, from byte \(offset)"
        }
    }
}

/// Bounds a decoder applies to untrusted input. Nothing is allocated for a declared length until
/// the input holds at least that many bytes; these limits bound the rest.
public struct CBORDecodingLimits: Sendable, Hashable {
    /// The deepest nesting of arrays, maps and tags accepted (the top-level item is depth 0).
    public var maximumDepth: Int
    /// The most bytes in one byte or text string (after joining indefinite-length chunks).
    public var maximumStringLength: Int
    /// The most elements of one array, or pairs of one map.
    public var maximumCollectionCount: Int

    /// - Parameters:
    ///   - maximumDepth: default 64.
    ///   - maximumStringLength: default 16 MiB.
    ///   - maximumCollectionCount: default 1 Mi elements.
    public init(maximumDepth: Int = 64, maximumStringLength: Int = 16 << 20, maximumCollectionCount: Int = 1 << 20) {
        self.maximumDepth = maximumDepth
        self.maximumStringLength = maximumStringLength
        self.maximumCollectionCount = maximumCollectionCount
    }
}
