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
        let map: ContainerBuilder
        if case .container(let existing) = node, existing.isMap {
            map = existing
        } else {
            map = ContainerBuilder(isMap: true)
            node = .container(map)
        }
        return KeyedEncodingContainer(CBORKeyedEncodingContainer<Key>(options: options, map: map, codingPath: codingPath, depth: depth))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: ContainerBuilder
        if case .container(let existing) = node, !existing.isMap {
            array = existing
        } else {
            array = ContainerBuilder(isMap: false)
            node = .container(array)
        }
        return CBORUnkeyedEncodingContainer(options: options, array: array, codingPath: codingPath, depth: depth)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        CBORSingleValueEncodingContainer(encoder: self)
    }
}

/// A key for positions in unkeyed containers and for `super`.
struct CBORCodingKey: CodingKey {
    private let text: String?
    let intValue: Int?

    /// "Index 3" for positions (made only when asked for, such as in an error), else the text.
    var stringValue: String { text ?? "Index \(intValue ?? 0)" }

    init(stringValue: String) {
        self.text = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.text = String(intValue)
        self.intValue = intValue
    }

    init(index: Int) {
        self.text = nil
        self.intValue = index
    }

    static let superKey = CBORCodingKey(stringValue: "super")
}

struct CBORKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let options: CBOREncoder
    let map: ContainerBuilder
    let codingPath: [any CodingKey]
    let depth: Int

    /// Writes the key, then counts the entry whose value the caller writes next.
    private func writeKey(_ key: some CodingKey) {
        if options.keyEncoding == .integersWhenAvailable, let int = key.intValue, Self.integerIsLossless(key, int) {
            map.content.writeInteger(Int64(int))
        } else {
            map.content.writeText(key.stringValue)
        }
        map.count += 1
    }

    /// Whether decoding `int` gives back this key. `String`-keyed dictionaries give numeric
    /// strings an `intValue` too ("01" has 1), which must stay text to keep the string.
    static func integerIsLossless(_ key: some CodingKey, _ int: Int) -> Bool {
        let text = key.stringValue
        guard let first = text.utf8.first, first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return true  // not numeric text: a declared integer key such as `case call = 1`
        }
        return String(int) == text
    }

    mutating func encodeNil(forKey key: Key) throws { writeKey(key); map.content.writeNull() }
    mutating func encode(_ value: Bool, forKey key: Key) throws { writeKey(key); map.content.writeBool(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { writeKey(key); map.content.writeText(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { writeKey(key); map.content.writeDouble(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { writeKey(key); map.content.writeFloat(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { writeKey(key); map.content.writeInteger(Int64(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { writeKey(key); map.content.writeInteger(Int64(value)) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { writeKey(key); map.content.writeInteger(Int64(value)) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { writeKey(key); map.content.writeInteger(Int64(value)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { writeKey(key); map.content.writeInteger(value) }
    mutating func encode(_ value: Int128, forKey key: Key) throws { writeKey(key); map.content.writeInteger(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { writeKey(key); map.content.writeHead(0, UInt64(value)) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { writeKey(key); map.content.writeHead(0, UInt64(value)) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { writeKey(key); map.content.writeHead(0, UInt64(value)) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { writeKey(key); map.content.writeHead(0, UInt64(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { writeKey(key); map.content.writeHead(0, value) }
    mutating func encode(_ value: UInt128, forKey key: Key) throws { writeKey(key); map.content.writeInteger(value) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let mark = map.content.bytes.count
        writeKey(key)
        if map.content.writeSpecial(value, options) { return }
        do {
            map.append(try EncodingNode.makeComposite(value, options: options, codingPath: codingPath + [key], depth: depth + 1))
        } catch {
            // Take the key back, so that a caller who catches the error leaves no half entry.
            map.content.bytes.removeSubrange(mark...)
            map.count -= 1
            throw error
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = ContainerBuilder(isMap: true)
        writeKey(key)
        map.append(.container(nested))
        return KeyedEncodingContainer(CBORKeyedEncodingContainer<NestedKey>(options: options, map: nested, codingPath: codingPath + [key], depth: depth + 1))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ContainerBuilder(isMap: false)
        writeKey(key)
        map.append(.container(nested))
        return CBORUnkeyedEncodingContainer(options: options, array: nested, codingPath: codingPath + [key], depth: depth + 1)
    }

    mutating func superEncoder() -> any Encoder {
        deferredEncoder(CBORCodingKey.superKey)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        deferredEncoder(key)
    }

    private func deferredEncoder(_ key: some CodingKey) -> any Encoder {
        let encoder = CBOREncoderState(options: options, codingPath: codingPath + [key], depth: depth + 1)
        writeKey(key)
        map.append(.deferred(encoder))
        return encoder
    }
}

struct CBORUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let options: CBOREncoder
    let array: ContainerBuilder
    let codingPath: [any CodingKey]
    let depth: Int
    var count: Int { array.count }

    /// Counts the element the caller writes next.
    private func next() -> ContainerBuilder {
        array.count += 1
        return array
    }

    private var nextPath: [any CodingKey] { codingPath + [CBORCodingKey(index: count)] }

    mutating func encodeNil() throws { next().content.writeNull() }
    mutating func encode(_ value: Bool) throws { next().content.writeBool(value) }
    mutating func encode(_ value: String) throws { next().content.writeText(value) }
    mutating func encode(_ value: Double) throws { next().content.writeDouble(value) }
    mutating func encode(_ value: Float) throws { next().content.writeFloat(value) }
    mutating func encode(_ value: Int) throws { next().content.writeInteger(Int64(value)) }
    mutating func encode(_ value: Int8) throws { next().content.writeInteger(Int64(value)) }
    mutating func encode(_ value: Int16) throws { next().content.writeInteger(Int64(value)) }
    mutating func encode(_ value: Int32) throws { next().content.writeInteger(Int64(value)) }
    mutating func encode(_ value: Int64) throws { next().content.writeInteger(value) }
    mutating func encode(_ value: Int128) throws { next().content.writeInteger(value) }
    mutating func encode(_ value: UInt) throws { next().content.writeHead(0, UInt64(value)) }
    mutating func encode(_ value: UInt8) throws { next().content.writeHead(0, UInt64(value)) }
    mutating func encode(_ value: UInt16) throws { next().content.writeHead(0, UInt64(value)) }
    mutating func encode(_ value: UInt32) throws { next().content.writeHead(0, UInt64(value)) }
    mutating func encode(_ value: UInt64) throws { next().content.writeHead(0, value) }
    mutating func encode(_ value: UInt128) throws { next().content.writeInteger(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if array.content.writeSpecial(value, options) {
            array.count += 1
            return
        }
        let node = try EncodingNode.makeComposite(value, options: options, codingPath: nextPath, depth: depth + 1)
        next().append(node)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = ContainerBuilder(isMap: true)
        let path = nextPath
        next().append(.container(nested))
        return KeyedEncodingContainer(CBORKeyedEncodingContainer<NestedKey>(options: options, map: nested, codingPath: path, depth: depth + 1))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ContainerBuilder(isMap: false)
        let path = nextPath
        next().append(.container(nested))
        return CBORUnkeyedEncodingContainer(options: options, array: nested, codingPath: path, depth: depth + 1)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = CBOREncoderState(options: options, codingPath: nextPath, depth: depth + 1)
        next().append(.deferred(encoder))
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
