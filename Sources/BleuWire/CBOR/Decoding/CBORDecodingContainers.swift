/// A map read by coding key. Maps of more than a few entries are indexed once, so decoding a
/// large dictionary stays linear.
struct CBORKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: CBORDecoderState
    let entries: [CBORMapEntry]
    let codingPath: [any CodingKey]
    /// Entry positions by text key and by integer key; `nil` for small maps (a linear scan).
    private let textIndex: [String: Int]?
    private let integerIndex: [Int: Int]?

    init(decoder: CBORDecoderState, entries: [CBORMapEntry], codingPath: [any CodingKey]) {
        self.decoder = decoder
        self.entries = entries
        self.codingPath = codingPath
        if entries.count > LinearDecoding.largestScannedMap {
            var text: [String: Int] = [:]
            var integer: [Int: Int] = [:]
            for (position, entry) in entries.enumerated() {  // the last of duplicate keys wins
                if case .textString(let s) = entry.key {
                    text[s] = position
                } else if let n = entry.key.int64Value, let i = Int(exactly: n) {
                    integer[i] = position
                }
            }
            textIndex = text
            integerIndex = integer
        } else {
            textIndex = nil
            integerIndex = nil
        }
    }

    var allKeys: [Key] {
        entries.compactMap { Self.codingKey($0.key) }
    }

    /// The coding key a map key stands for: text by its `stringValue`, an integer by its
    /// `intValue`; `nil` for other keys (both paths list keys this way).
    static func codingKey(_ key: CBORValue) -> Key? {
        if case .textString(let s) = key { return Key(stringValue: s) }
        if let n = key.int64Value, let i = Int(exactly: n) { return Key(intValue: i) }
        return nil
    }

    /// The error for a key the map does not have (both paths throw it).
    static func keyNotFound(_ key: Key, _ codingPath: [any CodingKey]) -> DecodingError {
        .keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for key \"\(key.stringValue)\""))
    }

    /// The value for `key`: a text key equal to its `stringValue` first, else an integer key
    /// equal to its `intValue` (a dictionary key "01" also has the `intValue` 1). Of duplicate
    /// keys the last wins, as in most CBOR and JSON decoders.
    private func find(_ key: some CodingKey) -> CBORValue? {
        let name = key.stringValue
        let number = key.intValue
        if let textIndex, let integerIndex {
            if let position = textIndex[name] { return entries[position].value }
            return number.flatMap { integerIndex[$0] }.map { entries[$0].value }
        }
        var textMatch: CBORValue?
        var integerMatch: CBORValue?
        for entry in entries {
            switch entry.key {
            case .textString(let s) where s == name:
                textMatch = entry.value
            case .unsignedInteger, .negativeInteger:
                if let number, entry.key.int64Value == Int64(number) { integerMatch = entry.value }
            default:
                continue
            }
        }
        return textMatch ?? integerMatch
    }

    private func value(_ key: Key) throws -> CBORValue {
        guard let value = find(key) else { throw Self.keyNotFound(key, codingPath) }
        return value
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        try value(key).isNull
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.options.bool(value(key), codingPath + [key]) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.options.string(value(key), codingPath + [key]) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.options.double(value(key), codingPath + [key]) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.options.float(value(key), codingPath + [key]) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.options.integer(type, value(key), codingPath + [key]) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.options.integer(type, value(key), codingPath + [key]) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.options.integer(type, value(key), codingPath + [key]) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.options.integer(type, value(key), codingPath + [key]) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.options.integer(type, value(key), codingPath + [key]) }
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try decoder.options.integer(type, value(key), codingPath + [key]) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.options.integer(type, value(key), codingPath + [key]) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.options.integer(type, value(key), codingPath + [key]) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.options.integer(type, value(key), codingPath + [key]) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.options.integer(type, value(key), codingPath + [key]) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.options.integer(type, value(key), codingPath + [key]) }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try decoder.options.integer(type, value(key), codingPath + [key]) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.options.decodeItem(type, from: value(key), codingPath: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try CBORDecoderState(value: value(key), options: decoder.options, codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try CBORDecoderState(value: value(key), options: decoder.options, codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = CBORCodingKey.superKey
        return CBORDecoderState(value: find(key) ?? .null, options: decoder.options, codingPath: codingPath + [key])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        CBORDecoderState(value: find(key) ?? .null, options: decoder.options, codingPath: codingPath + [key])
    }
}

/// An array read in order, or a byte string read as an array of `UInt8` (each byte made an
/// integer item only when it is read, so a large byte string costs no per-byte items).
struct CBORUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    /// What the container reads.
    enum Elements {
        case items([CBORValue])
        case bytes([UInt8])
    }

    let decoder: CBORDecoderState
    let elements: Elements
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(decoder: CBORDecoderState, items: [CBORValue], codingPath: [any CodingKey]) {
        self.decoder = decoder
        self.elements = .items(items)
        self.codingPath = codingPath
    }

    init(decoder: CBORDecoderState, bytes: [UInt8], codingPath: [any CodingKey]) {
        self.decoder = decoder
        self.elements = .bytes(bytes)
        self.codingPath = codingPath
    }

    private var elementCount: Int {
        switch elements {
        case .items(let items): items.count
        case .bytes(let bytes): bytes.count
        }
    }

    private func element(_ index: Int) -> CBORValue {
        switch elements {
        case .items(let items): items[index]
        case .bytes(let bytes): .unsignedInteger(UInt64(bytes[index]))
        }
    }

    var count: Int? { elementCount }
    var isAtEnd: Bool { currentIndex >= elementCount }
    private var path: [any CodingKey] { codingPath + [CBORCodingKey(index: currentIndex)] }

    /// The error for reading past the last element (both paths throw it).
    static func noMoreElements(_ type: Any.Type, _ path: [any CodingKey], count: Int) -> DecodingError {
        .valueNotFound(type, .init(codingPath: path, debugDescription: "the array has no more elements (\(count) in all)"))
    }

    /// The next item, consumed only when `read` succeeds.
    private mutating func next<T>(_ type: T.Type, _ read: (CBORDecoderState, CBORValue, [any CodingKey]) throws -> T) throws -> T {
        guard !isAtEnd else { throw Self.noMoreElements(type, path, count: elementCount) }
        let result = try read(decoder, element(currentIndex), path)
        currentIndex += 1
        return result
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw Self.noMoreElements(Never?.self, path, count: elementCount) }
        guard element(currentIndex).isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try $0.options.bool($1, $2) } }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) { try $0.options.string($1, $2) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { try $0.options.double($1, $2) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { try $0.options.float($1, $2) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) { try $0.options.integer(type, $1, $2) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) { try $0.options.integer(type, $1, $2) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) { try $0.options.integer(type, $1, $2) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) { try $0.options.integer(type, $1, $2) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) { try $0.options.integer(type, $1, $2) } }
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try next(type) { try $0.options.integer(type, $1, $2) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) { try $0.options.integer(type, $1, $2) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 {
        if case .bytes(let bytes) = elements, currentIndex < bytes.count {
            defer { currentIndex += 1 }
            return bytes[currentIndex]
        }
        return try next(type) { try $0.options.integer(type, $1, $2) }
    }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) { try $0.options.integer(type, $1, $2) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) { try $0.options.integer(type, $1, $2) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) { try $0.options.integer(type, $1, $2) } }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try next(type) { try $0.options.integer(type, $1, $2) } }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try next(type) { try $0.options.decodeItem(type, from: $1, codingPath: $2) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next(KeyedDecodingContainer<NestedKey>.self) { decoder, item, path in
            try CBORDecoderState(value: item, options: decoder.options, codingPath: path).container(keyedBy: type)
        }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next((any UnkeyedDecodingContainer).self) { decoder, item, path in
            try CBORDecoderState(value: item, options: decoder.options, codingPath: path).unkeyedContainer()
        }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next((any Decoder).self) { decoder, item, path in CBORDecoderState(value: item, options: decoder.options, codingPath: path) }
    }
}

struct CBORSingleValueDecodingContainer: SingleValueDecodingContainer {
    let decoder: CBORDecoderState
    var codingPath: [any CodingKey] { decoder.codingPath }
    private var value: CBORValue { decoder.value }

    func decodeNil() -> Bool { value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.options.bool(value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try decoder.options.string(value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.options.double(value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.options.float(value, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.options.integer(type, value, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.options.integer(type, value, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.options.integer(type, value, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.options.integer(type, value, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.options.integer(type, value, codingPath) }
    func decode(_ type: Int128.Type) throws -> Int128 { try decoder.options.integer(type, value, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.options.integer(type, value, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.options.integer(type, value, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.options.integer(type, value, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.options.integer(type, value, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.options.integer(type, value, codingPath) }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try decoder.options.integer(type, value, codingPath) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.options.decodeItem(type, from: value, codingPath: codingPath)
    }
}
