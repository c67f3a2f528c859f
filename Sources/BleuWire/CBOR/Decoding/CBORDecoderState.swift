import Foundation

/// The `Decoder` handed to `init(from:)` on the tree path: one parsed item and the path that led
/// to it. The conversions from items to Swift values, which both paths share, are on
/// ``CBORDecoder`` (below).
final class CBORDecoderState: Decoder {
    let value: CBORValue
    let options: CBORDecoder
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    init(value: CBORValue, options: CBORDecoder, codingPath: [any CodingKey]) {
        self.value = value
        self.options = options
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .map(let entries) = value else {
            throw options.mismatch([String: CBORValue].self, value, codingPath, expected: "a map")
        }
        return KeyedDecodingContainer(CBORKeyedDecodingContainer<Key>(decoder: self, entries: entries, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .array(let items):
            return CBORUnkeyedDecodingContainer(decoder: self, items: items, codingPath: codingPath)
        case .byteString(let bytes):
            // A byte string reads as an array of UInt8, so `[UInt8]` accepts what `Data` wrote.
            // The container reads the bytes themselves: no item per byte.
            return CBORUnkeyedDecodingContainer(decoder: self, bytes: bytes, codingPath: codingPath)
        default:
            throw options.mismatch([CBORValue].self, value, codingPath, expected: "an array")
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        CBORSingleValueDecodingContainer(decoder: self)
    }
}

/// Conversions from parsed items to Swift values, shared by the tree path and the single-pass
/// path so that both accept and refuse exactly the same items.
extension CBORDecoder {
    func mismatch(_ type: Any.Type, _ value: CBORValue, _ path: @autoclosure () -> [any CodingKey], expected: String) -> DecodingError {
        .typeMismatch(type, .init(codingPath: path(), debugDescription: "expected \(expected), found \(value.kindDescription)"))
    }

    /// Decodes any `Decodable` from a parsed item, taking the codec's own representations of
    /// primitives and of `Data`, `Date`, `UUID`, `URL` and ``CBORValue`` first.
    func decodeItem<T: Decodable>(_ type: T.Type, from value: CBORValue, codingPath: @autoclosure () -> [any CodingKey]) throws -> T {
        if let special = try decodeSpecial(type, from: value, codingPath: codingPath()) {
            return special
        }
        return try T(from: CBORDecoderState(value: value, options: self, codingPath: codingPath()))
    }

    /// `T` in the codec's own representation, if it has one (the primitives, `Data`, `[UInt8]`
    /// from a byte string, `UUID`, `Date`, `URL`, ``CBORValue``); `nil` when `T` decodes itself.
    /// `value` is asked for only when `T` is one of those types, so the single-pass path can
    /// offer its item without parsing it.
    func decodeSpecial<T: Decodable>(_ type: T.Type, from value: @autoclosure () throws -> CBORValue,
                                     codingPath path: @autoclosure () -> [any CodingKey]) throws -> T? {
        // Comparing metatypes is cheap; each cast below only runs once the type is known.
        if T.self == String.self { return try string(value(), path()) as? T }
        if T.self == Int.self { return try integer(Int.self, value(), path()) as? T }
        if T.self == Bool.self { return try bool(value(), path()) as? T }
        if T.self == Double.self { return try double(value(), path()) as? T }
        if T.self == UInt64.self { return try integer(UInt64.self, value(), path()) as? T }
        if T.self == CBORValue.self { return try value() as? T }
        if T.self == Data.self {
            guard case .byteString(let bytes) = try value() else { return nil }  // else Data's own shape
            return Data(bytes) as? T
        }
        if T.self == [UInt8].self {
            guard case .byteString(let bytes) = try value() else { return nil }  // else an array of integers
            return bytes as? T
        }
        if T.self == UUID.self { return try uuid(value(), path()) as? T }
        if T.self == Date.self { return try date(value(), path()) as? T }
        if T.self == URL.self { return try url(value(), path()) as? T }
        if T.self == Int8.self { return try integer(Int8.self, value(), path()) as? T }
        if T.self == Int16.self { return try integer(Int16.self, value(), path()) as? T }
        if T.self == Int32.self { return try integer(Int32.self, value(), path()) as? T }
        if T.self == Int64.self { return try integer(Int64.self, value(), path()) as? T }
        if T.self == Int128.self { return try integer(Int128.self, value(), path()) as? T }
        if T.self == UInt.self { return try integer(UInt.self, value(), path()) as? T }
        if T.self == UInt8.self { return try integer(UInt8.self, value(), path()) as? T }
        if T.self == UInt16.self { return try integer(UInt16.self, value(), path()) as? T }
        if T.self == UInt32.self { return try integer(UInt32.self, value(), path()) as? T }
        if T.self == UInt128.self { return try integer(UInt128.self, value(), path()) as? T }
        if T.self == Float.self { return try float(value(), path()) as? T }
        return nil
    }

    func url(_ value: CBORValue, _ path: @autoclosure () -> [any CodingKey]) throws -> URL {
        var item = value
        if case .tagged(32, let inner) = value { item = inner }
        let text = try string(item, path())
        guard let url = URL(string: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "\"\(text)\" is not a valid URL"))
        }
        return url
    }

    private func checkNotNull<T>(_ type: T.Type, _ value: CBORValue, _ path: @autoclosure () -> [any CodingKey]) throws {
        if value.isNull {
            throw DecodingError.valueNotFound(type, .init(codingPath: path(), debugDescription: "expected \(type), found \(value.kindDescription)"))
        }
    }

    func bool(_ value: CBORValue, _ path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard case .boolean(let b) = value else {
            try checkNotNull(Bool.self, value, path())
            throw mismatch(Bool.self, value, path(), expected: "a boolean")
        }
        return b
    }

    func string(_ value: CBORValue, _ path: @autoclosure () -> [any CodingKey]) throws -> String {
        guard case .textString(let s) = value else {
            try checkNotNull(String.self, value, path())
            throw mismatch(String.self, value, path(), expected: "a text string")
        }
        return s
    }

    /// An integer of width `T`: plain integers, bignums (tags 2 and 3), or floats with an integral
    /// value. A value outside `T`'s range is `dataCorrupted`, never a trap.
    func integer<T: FixedWidthInteger>(_ type: T.Type, _ value: CBORValue, _ path: @autoclosure () -> [any CodingKey]) throws -> T {
        func overflow(_ text: String) -> DecodingError {
            .dataCorrupted(.init(codingPath: path(), debugDescription: "integer \(text) does not fit \(T.self)"))
        }
        switch value {
        case .unsignedInteger(let n):
            guard let result = T(exactly: n) else { throw overflow(String(n)) }
            return result
        case .negativeInteger(let n):
            // -1 - n, computed as ~n in T so that T.min is reachable without overflow.
            guard T.isSigned, let magnitude = T(exactly: n) else { throw overflow("-1-\(n)") }
            return ~magnitude
        case .tagged(let tag, .byteString(let digits)) where tag == 2 || tag == 3:
            let significant = digits.drop { $0 == 0 }
            guard significant.count <= T.bitWidth / 8 else { throw overflow("(bignum of \(significant.count) bytes)") }
            var magnitude = UInt128(0)
            for digit in significant { magnitude = magnitude << 8 | UInt128(digit) }
            guard let result = T(exactly: magnitude) else { throw overflow("(bignum \(tag == 3 ? "-1-" : "")\(magnitude))") }
            if tag == 2 { return result }
            guard T.isSigned else { throw overflow("(negative bignum)") }
            return ~result
        case .float(let d):
            guard let result = T(exactly: d) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "number \(d) is not an integer that fits \(T.self)"))
            }
            return result
        default:
            try checkNotNull(T.self, value, path())
            throw mismatch(T.self, value, path(), expected: "an integer")
        }
    }

    func double(_ value: CBORValue, _ path: @autoclosure () -> [any CodingKey]) throws -> Double {
        switch value {
        case .float(let d):
            return d
        case .unsignedInteger, .negativeInteger:
            let n = try integer(Int64.self, value, path())
            guard let d = Double(exactly: n) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "integer \(n) has no exact Double"))
            }
            return d
        default:
            try checkNotNull(Double.self, value, path())
            throw mismatch(Double.self, value, path(), expected: "a number")
        }
    }

    /// A `Float`: single and half precision exactly; a double rounds to the nearest `Float`,
    /// and one beyond `Float`'s range is an error.
    func float(_ value: CBORValue, _ path: @autoclosure () -> [any CodingKey]) throws -> Float {
        let d = try double(value, path())
        let f = Float(d)
        if f.isInfinite && d.isFinite {
            throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "number \(d) is out of Float's range"))
        }
        return f
    }

    func uuid(_ value: CBORValue, _ path: @autoclosure () -> [any CodingKey]) throws -> UUID {
        switch value {
        case .byteString(let b), .tagged(37, .byteString(let b)):
            guard b.count == 16 else {
                throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "a UUID needs 16 bytes, found \(b.count)"))
            }
            return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
        case .textString(let s):
            guard let id = UUID(uuidString: s) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "\"\(s)\" is not a UUID"))
            }
            return id
        default:
            try checkNotNull(UUID.self, value, path())
            throw mismatch(UUID.self, value, path(), expected: "a 16-byte byte string")
        }
    }

    func date(_ value: CBORValue, _ path: @autoclosure () -> [any CodingKey]) throws -> Date {
        switch value {
        case .tagged(1, let seconds):
            return Date(timeIntervalSince1970: try double(seconds, path()))
        case .tagged(0, .textString(let text)):
            if let date = try? Date(text, strategy: .iso8601) { return date }
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
            throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "\"\(text)\" is not an RFC 3339 date"))
        case .float, .unsignedInteger, .negativeInteger:
            let seconds = try double(value, path())
            switch dateDecoding {
            case .epochTime: return Date(timeIntervalSince1970: seconds)
            case .secondsSinceReferenceDate: return Date(timeIntervalSinceReferenceDate: seconds)
            }
        default:
            try checkNotNull(Date.self, value, path())
            throw mismatch(Date.self, value, path(), expected: "a date (tag 0 or 1, or a number)")
        }
    }
}

extension CBORValue {
    /// `null` or `undefined`: what decodes as `nil`.
    var isNull: Bool {
        switch self {
        case .null, .undefined: true
        default: false
        }
    }

    /// What kind of item this is, for error messages.
    var kindDescription: String {
        switch self {
        case .unsignedInteger(let n): "unsigned integer \(n)"
        case .negativeInteger(let n): "negative integer -1-\(n)"
        case .byteString(let b): "byte string of \(b.count) bytes"
        case .textString: "text string"
        case .array(let a): "array of \(a.count)"
        case .map(let m): "map of \(m.count)"
        case .tagged(let tag, _): "tag \(tag)"
        case .boolean(let b): "\(b)"
        case .null: "null"
        case .undefined: "undefined"
        case .simple(let v): "simple value \(v)"
        case .float(let d): "float \(d)"
        }
    }
}
