import Foundation

/// A map of the single-pass path, read by coding key. Its pairs were noted once when it was made;
/// a value is parsed only when asked for. Finds keys as ``CBORKeyedDecodingContainer`` does.
struct LinearKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoding: LinearDecoding
    /// This map's range in ``LinearDecoding/pairs``.
    let pairs: Range<Int>
    let path: DecodingPath
    var codingPath: [any CodingKey] { path.keys }

    var allKeys: [Key] {
        decoding.pairs[pairs].compactMap { pair -> Key? in
            if pair.textCount >= 0 {
                let utf8 = UnsafeRawBufferPointer(rebasing: decoding.bytes[pair.textStart..<pair.textStart + pair.textCount])
                return CBORKeyedDecodingContainer<Key>.codingKey(.textString(String(decoding: utf8, as: UTF8.self)))
            }
            return pair.integer.flatMap { CBORKeyedDecodingContainer<Key>.codingKey(CBORValue($0)) }
        }
    }

    /// Where the value for `key` starts: a text key equal to its `stringValue` first, else an
    /// integer key equal to its `intValue`; of duplicate keys the last.
    private func find(_ key: some CodingKey) -> Int? {
        let all = decoding.pairs
        let number = key.intValue.map { Int64($0) }
        let integerMatch = number.flatMap { number in pairs.last { all[$0].integer == number } }.map { all[$0].value }
        guard pairs.contains(where: { all[$0].textCount >= 0 }) else { return integerMatch }  // no String needed
        let name = key.stringValue
        var contiguous = name  // `withUTF8` may make its string contiguous; `name` stays readable
        let textMatch = contiguous.withUTF8 { utf8 -> Int? in
            let nameIsASCII = utf8.allSatisfy { $0 < 0x80 }
            for index in pairs.reversed() where all[index].textCount >= 0 {
                if decoding.textKey(all[index], equals: name, utf8: utf8, nameIsASCII: nameIsASCII) { return all[index].value }
            }
            return nil
        }
        return textMatch ?? integerMatch
    }

    private func offset(_ key: Key) throws -> Int {
        guard let offset = find(key) else { throw CBORKeyedDecodingContainer<Key>.keyNotFound(key, codingPath) }
        return offset
    }

    private func item(_ key: Key) throws -> CBORValue {
        try decoding.item(at: offset(key))
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        decoding.isNull(at: try offset(key))
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoding.options.bool(item(key), codingPath + [key]) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoding.options.string(item(key), codingPath + [key]) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoding.options.double(item(key), codingPath + [key]) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoding.options.float(item(key), codingPath + [key]) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoding.options.integer(type, item(key), codingPath + [key]) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoding.options.integer(type, item(key), codingPath + [key]) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoding.options.integer(type, item(key), codingPath + [key]) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoding.options.integer(type, item(key), codingPath + [key]) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoding.options.integer(type, item(key), codingPath + [key]) }
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try decoding.options.integer(type, item(key), codingPath + [key]) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoding.options.integer(type, item(key), codingPath + [key]) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoding.options.integer(type, item(key), codingPath + [key]) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoding.options.integer(type, item(key), codingPath + [key]) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoding.options.integer(type, item(key), codingPath + [key]) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoding.options.integer(type, item(key), codingPath + [key]) }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try decoding.options.integer(type, item(key), codingPath + [key]) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoding.decode(type, at: offset(key), path: path.appending(key))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoding.keyedContainer(type, at: offset(key), path: path.appending(key))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoding.unkeyedContainer(at: offset(key), path: path.appending(key))
    }

    func superDecoder() throws -> any Decoder {
        superDecoder(CBORCodingKey.superKey)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        superDecoder(key)
    }

    /// The value for `key`, or `null` when there is none (as on the tree path).
    private func superDecoder(_ key: some CodingKey) -> any Decoder {
        guard let offset = find(key) else {
            return CBORDecoderState(value: .null, options: decoding.options, codingPath: codingPath + [key])
        }
        return LinearDecoder(decoding: decoding, offset: offset, path: path.appending(key))
    }
}

/// An array of the single-pass path, read in order. An element is walked past only when the next
/// one is asked for, so reading the last element of an array costs no walk over it.
struct LinearUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoding: LinearDecoding
    let path: DecodingPath
    var codingPath: [any CodingKey] { path.keys }
    let elementCount: Int
    private(set) var currentIndex = 0
    /// Where the element at `currentIndex` starts — or, while `pastPosition` is set, the one
    /// before it, which was read and is still to be walked past.
    private var position: Int
    private var pastPosition = false

    init(decoding: LinearDecoding, path: DecodingPath, elementCount: Int, position: Int) {
        self.decoding = decoding
        self.path = path
        self.elementCount = elementCount
        self.position = position
    }

    var count: Int? { elementCount }
    var isAtEnd: Bool { currentIndex >= elementCount }
    /// The path of the current element.
    private var elementPath: DecodingPath { path.appending(CBORIndexKey(currentIndex)) }

    /// Where the current element starts; throws as the tree path does when there is none.
    private mutating func element(_ type: Any.Type) throws -> Int {
        guard !isAtEnd else { throw CBORUnkeyedDecodingContainer.noMoreElements(type, elementPath.keys, count: elementCount) }
        if pastPosition {
            position = try decoding.end(of: position)
            pastPosition = false
        }
        return position
    }

    /// Counts the current element as read.
    private mutating func advance() {
        currentIndex += 1
        pastPosition = true
    }

    /// The next element converted by `convert`; consumed only when the conversion succeeds.
    private mutating func next<T>(_ type: T.Type, _ convert: (CBORDecoder, CBORValue, () -> [any CodingKey]) throws -> T) throws -> T {
        let offset = try element(type)
        let item = try decoding.item(at: offset)
        let (path, index) = (self.path, currentIndex)
        let result = try convert(decoding.options, item) { path.appending(CBORIndexKey(index)).keys }
        advance()
        return result
    }

    mutating func decodeNil() throws -> Bool {
        let offset = try element(Never?.self)
        guard decoding.isNull(at: offset) else { return false }
        advance()
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try $0.bool($1, $2()) } }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) { try $0.string($1, $2()) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { try $0.double($1, $2()) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { try $0.float($1, $2()) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) { try $0.integer(type, $1, $2()) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) { try $0.integer(type, $1, $2()) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) { try $0.integer(type, $1, $2()) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) { try $0.integer(type, $1, $2()) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) { try $0.integer(type, $1, $2()) } }
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try next(type) { try $0.integer(type, $1, $2()) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) { try $0.integer(type, $1, $2()) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) { try $0.integer(type, $1, $2()) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) { try $0.integer(type, $1, $2()) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) { try $0.integer(type, $1, $2()) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) { try $0.integer(type, $1, $2()) } }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try next(type) { try $0.integer(type, $1, $2()) } }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let offset = try element(type)
        let value = try decoding.decode(type, at: offset, path: elementPath)
        advance()
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let offset = try element(KeyedDecodingContainer<NestedKey>.self)
        let container = try decoding.keyedContainer(type, at: offset, path: elementPath)
        advance()
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let offset = try element((any UnkeyedDecodingContainer).self)
        let container = try decoding.unkeyedContainer(at: offset, path: elementPath)
        advance()
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let offset = try element((any Decoder).self)
        let decoder = LinearDecoder(decoding: decoding, offset: offset, path: elementPath)
        advance()
        return decoder
    }
}

/// A single value of the single-pass path: the item at the decoder's offset.
struct LinearSingleValueDecodingContainer: SingleValueDecodingContainer {
    let decoder: LinearDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    private func item() throws -> CBORValue { try decoder.decoding.item(at: decoder.offset) }

    func decodeNil() -> Bool { decoder.decoding.isNull(at: decoder.offset) }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decoding.options.bool(item(), codingPath) }
    func decode(_ type: String.Type) throws -> String { try decoder.decoding.options.string(item(), codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decoding.options.double(item(), codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.decoding.options.float(item(), codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decoding.options.integer(type, item(), codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decoding.options.integer(type, item(), codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decoding.options.integer(type, item(), codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decoding.options.integer(type, item(), codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decoding.options.integer(type, item(), codingPath) }
    func decode(_ type: Int128.Type) throws -> Int128 { try decoder.decoding.options.integer(type, item(), codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decoding.options.integer(type, item(), codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decoding.options.integer(type, item(), codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decoding.options.integer(type, item(), codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decoding.options.integer(type, item(), codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decoding.options.integer(type, item(), codingPath) }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try decoder.decoding.options.integer(type, item(), codingPath) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decoding.decode(type, at: decoder.offset, path: decoder.path)
    }
}
