import Foundation

/// The decoder's single-pass path: `init(from:)` implementations read straight from the input
/// bytes, with no tree of ``CBORValue`` items built first.
///
/// ``CBORDecoder`` first checks the whole input with ``CBORReader/checkItem(depth:)`` — the tree
/// parser's own helpers, limits and rules — so bad bytes are refused before any `init(from:)`
/// runs, as on the tree path. Checked input is then read in place: a keyed container notes where
/// each of its keys and values starts (keys stay bytes, compared with a coding key's UTF-8 or
/// integer), an unkeyed container walks its elements in order, and each value is read from its
/// offset when asked for. The rest is the tree path's code, given one parsed item: converting an
/// item to a Swift value, the codec's own types (`Data`, `Date`, `UUID`, `URL`, ``CBORValue``),
/// maps of more than ``largestScannedMap`` pairs (indexed by hash there), byte strings read as
/// arrays, and every error message. Input the check does not take (indefinite lengths) and input
/// it refuses go to the tree path whole, which decodes it or throws its error.
final class LinearDecoding {
    /// Maps with at most this many pairs are searched pair by pair; larger ones are decoded by
    /// the tree path's container, which indexes them (both paths use this bound).
    static let largestScannedMap = 12

    /// One pair of a keyed container: what its key is, and where its value starts.
    struct Pair {
        /// Where a text key's UTF-8 starts, and how long it is; `textCount` is -1 for other keys.
        let textStart: Int
        let textCount: Int
        /// Whether a text key is all ASCII (else it is compared as a `String`, as the tree path does).
        let textIsASCII: Bool
        /// An integer key's value, when it fits `Int64` (``CBORValue/int64Value``).
        let integer: Int64?
        /// Where the value starts.
        let value: Int
    }

    let options: CBORDecoder
    /// A copy of the checked input, owned and freed by this object: a container kept beyond
    /// `init(from:)` still reads valid memory.
    let bytes: UnsafeRawBufferPointer
    // The pairs of every keyed container made so far, appended to as containers are made (each
    // container knows its range). Only the thread running the decode touches it, and never across
    // an access that could overlap another, so the runtime exclusivity checks are switched off.
    @exclusivity(unchecked) private(set) var pairs: [Pair] = []

    /// Whether `input` is one item that ``CBORReader/checkItem(depth:)`` accepts under `limits`,
    /// with nothing after it. `false` also for input the tree parser refuses: its error is the one
    /// reported, by parsing again.
    static func accepts(_ input: UnsafeRawBufferPointer, limits: CBORDecodingLimits) -> Bool {
        var reader = CBORReader(input, limits: limits)
        do {
            return try reader.checkItem(depth: 0) && reader.offset == input.count
        } catch {
            return false  // the tree parser throws this error again, as the one to report
        }
    }

    /// Decoding state over a copy of `input`, which ``accepts(_:limits:)`` accepted.
    init(copying input: UnsafeRawBufferPointer, options: CBORDecoder) {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.max(input.count, 1), alignment: 1)
        storage.copyMemory(from: input)
        self.bytes = UnsafeRawBufferPointer(rebasing: storage[0..<input.count])
        self.options = options
        pairs.reserveCapacity(16)
    }

    deinit {
        bytes.deallocate()
    }

    func reader(at offset: Int) -> CBORReader {
        CBORReader(bytes, limits: options.limits, at: offset)
    }

    /// The item at `offset`, parsed (no allocation for numbers, booleans and null).
    func item(at offset: Int) throws -> CBORValue {
        var reader = reader(at: offset)
        return try reader.readItem(depth: 0)
    }

    /// Whether the item at `offset` is `null` or `undefined` (``CBORValue/isNull``): in checked
    /// input, the one-byte simple values 22 and 23 (their two-byte forms are malformed).
    func isNull(at offset: Int) -> Bool {
        bytes[offset] == 0xF6 || bytes[offset] == 0xF7
    }

    /// The tree path's decoder for the one item at `offset`.
    func tree(at offset: Int, _ path: DecodingPath) throws -> CBORDecoderState {
        CBORDecoderState(value: try item(at: offset), options: options, codingPath: path.keys)
    }

    /// Decodes any `Decodable` from the item at `offset`: the codec's own types as the tree path
    /// converts them, any other type through its `init(from:)` on this path.
    func decode<T: Decodable>(_ type: T.Type, at offset: Int, path: DecodingPath) throws -> T {
        if let special = try options.decodeSpecial(type, from: item(at: offset), codingPath: path.keys) {
            return special
        }
        return try T(from: LinearDecoder(decoding: self, offset: offset, path: path))
    }

    /// A keyed container over the map at `offset`; the tree path's for anything else (which
    /// throws its type mismatch) and for a map of more than ``largestScannedMap`` pairs.
    func keyedContainer<Key: CodingKey>(_ type: Key.Type, at offset: Int, path: DecodingPath) throws -> KeyedDecodingContainer<Key> {
        var reader = reader(at: offset)
        let head = try reader.readHead()
        guard head.major == 5, head.argument <= Self.largestScannedMap else {
            return try tree(at: offset, path).container(keyedBy: type)
        }
        let count = Int(head.argument)
        let first = pairs.count
        for index in 0..<count {
            let keyStart = reader.offset
            let key = try reader.readHead()
            var (textStart, textCount, textIsASCII, integer) = (0, -1, true, Int64?.none)
            switch key.major {
            case 0:
                integer = CBORValue.unsignedInteger(key.argument).int64Value
            case 1:
                integer = CBORValue.negativeInteger(key.argument).int64Value
            case 3:
                textStart = reader.offset
                textCount = Int(key.argument)
                textIsASCII = reader.readCheckedBytes(textCount).allSatisfy { $0 < 0x80 }
            default:
                reader = self.reader(at: keyStart)
                try reader.skipCheckedItem()
            }
            pairs.append(Pair(textStart: textStart, textCount: textCount, textIsASCII: textIsASCII, integer: integer, value: reader.offset))
            if index < count - 1 { try reader.skipCheckedItem() }  // the last value need not be walked
        }
        return KeyedDecodingContainer(LinearKeyedDecodingContainer<Key>(decoding: self, pairs: first..<first + count, path: path))
    }

    /// An unkeyed container over the array at `offset`; the tree path's for anything else (a
    /// byte string, read as its bytes, or a type mismatch).
    func unkeyedContainer(at offset: Int, path: DecodingPath) throws -> any UnkeyedDecodingContainer {
        var reader = reader(at: offset)
        let head = try reader.readHead()
        guard head.major == 4 else {
            return try tree(at: offset, path).unkeyedContainer()
        }
        return LinearUnkeyedDecodingContainer(decoding: self, path: path, elementCount: Int(head.argument), position: reader.offset)
    }

    /// The offset just after the item at `offset`.
    func end(of offset: Int) throws -> Int {
        var reader = reader(at: offset)
        try reader.skipCheckedItem()
        return reader.offset
    }


    /// Whether the text key of `pair` equals `name` (whose UTF-8 is `utf8`) as the tree path's
    /// `String` comparison finds: bytes when both are ASCII, else canonical equivalence.
    func textKey(_ pair: Pair, equals name: String, utf8: UnsafeBufferPointer<UInt8>, nameIsASCII: Bool) -> Bool {
        let key = UnsafeRawBufferPointer(rebasing: bytes[pair.textStart..<pair.textStart + pair.textCount])
        if pair.textIsASCII && nameIsASCII {
            guard key.count == utf8.count else { return false }
            guard let keyBase = key.baseAddress, let nameBase = utf8.baseAddress else { return true }  // both empty
            return memcmp(keyBase, nameBase, key.count) == 0
        }
        return String(decoding: key, as: UTF8.self) == name
    }
}

/// The `Decoder` of the single-pass path for the item at `offset`. Three words, so it sits in an
/// `any Decoder`'s inline buffer without an allocation.
struct LinearDecoder: Decoder {
    let decoding: LinearDecoding
    let offset: Int
    let path: DecodingPath
    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { decoding.options.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try decoding.keyedContainer(type, at: offset, path: path)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try decoding.unkeyedContainer(at: offset, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        LinearSingleValueDecodingContainer(decoder: self)
    }
}
