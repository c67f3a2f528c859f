import Foundation

/// The `Encoder` handed to `encode(to:)`: it records the one node the value produces.
final class CBOREncoderState: Encoder {
    let options: CBOREncoder
    let codingPath: [any CodingKey]
    /// How many values enclose this one (bounded by the options' `maximumDepth`).
    let depth: Int
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }
    /// What the value encoded, once it asked for a container.
    var node: EncodingNode?

    init(options: CBOREncoder, codingPath: [any CodingKey], depth: Int) {
        self.options = options
        self.codingPath = codingPath
        self.depth = depth
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let map: MapBuilder
        if case .map(let existing) = node {
            map = existing
        } else {
            map = MapBuilder()
            node = .map(map)
        }
        return KeyedEncodingContainer(CBORKeyedEncodingContainer<Key>(options: options, map: map, codingPath: codingPath, depth: depth))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: ArrayBuilder
        if case .array(let existing) = node {
            array = existing
        } else {
            array = ArrayBuilder()
            node = .array(array)
        }
        return CBORUnkeyedEncodingContainer(options: options, array: array, codingPath: codingPath, depth: depth)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        CBORSingleValueEncodingContainer(encoder: self)
    }
}

/// A key for positions in unkeyed containers and for `super`.
struct CBORCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }

    init(index: Int) {
        self.stringValue = "Index \(index)"
        self.intValue = index
    }

    static let superKey = CBORCodingKey(stringValue: "super")
}

struct CBORKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let options: CBOREncoder
    let map: MapBuilder
    let codingPath: [any CodingKey]
    let depth: Int

    private func keyBytes(_ key: some CodingKey) -> [UInt8] {
        var writer = CBORWriter(capacity: 16)
        if options.keyEncoding == .integersWhenAvailable, let int = key.intValue, Self.integerIsLossless(key, int) {
            writer.writeInteger(Int64(int))
        } else {
            writer.writeText(key.stringValue)
        }
        return writer.bytes
    }

    /// Whether decoding `int` gives back this key. `String`-keyed dictionaries give numeric
    /// strings an `intValue` too ("01" has 1), which must stay text to keep the string.
    private static func integerIsLossless(_ key: some CodingKey, _ int: Int) -> Bool {
        Int(key.stringValue) == nil || String(int) == key.stringValue
    }

    private func set(_ key: Key, _ write: (inout CBORWriter) -> Void) {
        var writer = CBORWriter(capacity: 16)
        write(&writer)
        map.set(keyBytes(key), .encoded(writer.bytes))
    }

    mutating func encodeNil(forKey key: Key) throws { set(key) { $0.writeNull() } }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(key) { $0.writeBool(value) } }
    mutating func encode(_ value: String, forKey key: Key) throws { set(key) { $0.writeText(value) } }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(key) { $0.writeDouble(value) } }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(key) { $0.writeFloat(value) } }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(key) { $0.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(key) { $0.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(key) { $0.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(key) { $0.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(key) { $0.writeInteger(value) } }
    mutating func encode(_ value: Int128, forKey key: Key) throws { set(key) { $0.writeInteger(value) } }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(key) { $0.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(key) { $0.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(key) { $0.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(key) { $0.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(key) { $0.writeHead(0, value) } }
    mutating func encode(_ value: UInt128, forKey key: Key) throws { set(key) { $0.writeInteger(value) } }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        map.set(keyBytes(key), try EncodingNode.make(value, options: options, codingPath: codingPath + [key], depth: depth + 1))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = MapBuilder()
        map.set(keyBytes(key), .map(nested))
        return KeyedEncodingContainer(CBORKeyedEncodingContainer<NestedKey>(options: options, map: nested, codingPath: codingPath + [key], depth: depth + 1))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ArrayBuilder()
        map.set(keyBytes(key), .array(nested))
        return CBORUnkeyedEncodingContainer(options: options, array: nested, codingPath: codingPath + [key], depth: depth + 1)
    }

    mutating func superEncoder() -> any Encoder {
        deferredEncoder(keyBytes(CBORCodingKey.superKey), CBORCodingKey.superKey)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        deferredEncoder(keyBytes(key), key)
    }

    private func deferredEncoder(_ bytes: [UInt8], _ key: any CodingKey) -> any Encoder {
        let encoder = CBOREncoderState(options: options, codingPath: codingPath + [key], depth: depth + 1)
        map.set(bytes, .deferred(encoder))
        return encoder
    }
}

struct CBORUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let options: CBOREncoder
    let array: ArrayBuilder
    let codingPath: [any CodingKey]
    let depth: Int
    var count: Int { array.items.count }

    private func append(_ write: (inout CBORWriter) -> Void) {
        var writer = CBORWriter(capacity: 16)
        write(&writer)
        array.items.append(.encoded(writer.bytes))
    }

    private var nextPath: [any CodingKey] { codingPath + [CBORCodingKey(index: count)] }

    mutating func encodeNil() throws { append { $0.writeNull() } }
    mutating func encode(_ value: Bool) throws { append { $0.writeBool(value) } }
    mutating func encode(_ value: String) throws { append { $0.writeText(value) } }
    mutating func encode(_ value: Double) throws { append { $0.writeDouble(value) } }
    mutating func encode(_ value: Float) throws { append { $0.writeFloat(value) } }
    mutating func encode(_ value: Int) throws { append { $0.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int8) throws { append { $0.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int16) throws { append { $0.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int32) throws { append { $0.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int64) throws { append { $0.writeInteger(value) } }
    mutating func encode(_ value: Int128) throws { append { $0.writeInteger(value) } }
    mutating func encode(_ value: UInt) throws { append { $0.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt8) throws { append { $0.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt16) throws { append { $0.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt32) throws { append { $0.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt64) throws { append { $0.writeHead(0, value) } }
    mutating func encode(_ value: UInt128) throws { append { $0.writeInteger(value) } }

    mutating func encode<T: Encodable>(_ value: T) throws {
        array.items.append(try EncodingNode.make(value, options: options, codingPath: nextPath, depth: depth + 1))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = MapBuilder()
        let path = nextPath
        array.items.append(.map(nested))
        return KeyedEncodingContainer(CBORKeyedEncodingContainer<NestedKey>(options: options, map: nested, codingPath: path, depth: depth + 1))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ArrayBuilder()
        let path = nextPath
        array.items.append(.array(nested))
        return CBORUnkeyedEncodingContainer(options: options, array: nested, codingPath: path, depth: depth + 1)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = CBOREncoderState(options: options, codingPath: nextPath, depth: depth + 1)
        array.items.append(.deferred(encoder))
        return encoder
    }
}

struct CBORSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: CBOREncoderState
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func set(_ write: (inout CBORWriter) -> Void) {
        var writer = CBORWriter(capacity: 16)
        write(&writer)
        encoder.node = .encoded(writer.bytes)
    }

    mutating func encodeNil() throws { set { $0.writeNull() } }
    mutating func encode(_ value: Bool) throws { set { $0.writeBool(value) } }
    mutating func encode(_ value: String) throws { set { $0.writeText(value) } }
    mutating func encode(_ value: Double) throws { set { $0.writeDouble(value) } }
    mutating func encode(_ value: Float) throws { set { $0.writeFloat(value) } }
    mutating func encode(_ value: Int) throws { set { $0.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int8) throws { set { $0.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int16) throws { set { $0.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int32) throws { set { $0.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int64) throws { set { $0.writeInteger(value) } }
    mutating func encode(_ value: Int128) throws { set { $0.writeInteger(value) } }
    mutating func encode(_ value: UInt) throws { set { $0.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt8) throws { set { $0.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt16) throws { set { $0.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt32) throws { set { $0.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt64) throws { set { $0.writeHead(0, value) } }
    mutating func encode(_ value: UInt128) throws { set { $0.writeInteger(value) } }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.node = try EncodingNode.make(value, options: encoder.options, codingPath: codingPath, depth: encoder.depth + 1)
    }
}
