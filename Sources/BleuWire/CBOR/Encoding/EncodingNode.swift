import Foundation

/// A value being encoded: finished bytes, a container still being filled, or an encoder handed
/// out by `superEncoder` whose content arrives later. Written out once the whole value is built.
enum EncodingNode {
    /// Finished bytes of one complete item.
    case encoded([UInt8])
    case map(MapBuilder)
    case array(ArrayBuilder)
    case deferred(CBOREncoderState)

    /// The node for `value`: primitives and the special Foundation types directly, anything else
    /// through its own `encode(to:)`.
    static func make<T: Encodable>(_ value: T, options: CBOREncoder, codingPath: [any CodingKey], depth: Int) throws -> EncodingNode {
        if let bytes = try encodeSpecial(value, options: options) {
            return .encoded(bytes)
        }
        guard depth <= options.maximumDepth else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "nested deeper than the encoder's maximumDepth of \(options.maximumDepth)"))
        }
        let encoder = CBOREncoderState(options: options, codingPath: codingPath, depth: depth)
        try value.encode(to: encoder)
        guard let node = encoder.node else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "\(T.self) encoded no value"))
        }
        return node
    }

    /// The bytes of values the codec writes itself rather than through their `Encodable` shape.
    private static func encodeSpecial<T: Encodable>(_ value: T, options: CBOREncoder) throws -> [UInt8]? {
        var writer = CBORWriter(capacity: 16)
        switch value {
        case let v as String: writer.writeText(v)
        case let v as Int: writer.writeInteger(Int64(v))
        case let v as Bool: writer.writeBool(v)
        case let v as Double: writer.writeDouble(v)
        case let v as Data: writer.writeBytes(v)
        case let v as UUID: withUnsafeBytes(of: v.uuid) { writer.writeBytes($0) }
        case let v as Date: writer.writeDate(v, options.dateEncoding)
        case let v as URL: writer.writeText(v.absoluteString)
        case let v as CBORValue: writer.write(v)
        case let v as Int8: writer.writeInteger(Int64(v))
        case let v as Int16: writer.writeInteger(Int64(v))
        case let v as Int32: writer.writeInteger(Int64(v))
        case let v as Int64: writer.writeInteger(v)
        case let v as UInt: writer.writeHead(0, UInt64(v))
        case let v as UInt8: writer.writeHead(0, UInt64(v))
        case let v as UInt16: writer.writeHead(0, UInt64(v))
        case let v as UInt32: writer.writeHead(0, UInt64(v))
        case let v as UInt64: writer.writeHead(0, v)
        case let v as Float: writer.writeFloat(v)
        case let v as Int128: writer.writeInteger(v)
        case let v as UInt128: writer.writeInteger(v)
        default: return nil
        }
        return writer.bytes
    }

    /// Writes the node; `depth` counts enclosing containers, bounded by `limit` (containers
    /// nested by hand through `nestedContainer` never pass through ``make(_:options:codingPath:depth:)``).
    func write(to writer: inout CBORWriter, depth: Int, limit: Int) throws {
        guard depth <= limit else {
            throw EncodingError.invalidValue(depth, .init(codingPath: [], debugDescription: "containers nested deeper than the encoder's maximumDepth of \(limit)"))
        }
        switch self {
        case .encoded(let bytes):
            writer.bytes.append(contentsOf: bytes)
        case .map(let map):
            writer.writeHead(5, UInt64(map.entries.count))
            for (key, value) in map.entries {
                writer.bytes.append(contentsOf: key)
                try value.write(to: &writer, depth: depth + 1, limit: limit)
            }
        case .array(let array):
            writer.writeHead(4, UInt64(array.items.count))
            for item in array.items {
                try item.write(to: &writer, depth: depth + 1, limit: limit)
            }
        case .deferred(let encoder):
            // A super encoder nobody used encodes as an empty map, as Foundation's encoders do.
            try (encoder.node ?? .encoded([0xA0])).write(to: &writer, depth: depth, limit: limit)
        }
    }
}

/// The entries of a keyed container: each key's encoded bytes and its value. A key encoded
/// twice keeps its last value, in its first position.
final class MapBuilder {
    private(set) var entries: [([UInt8], EncodingNode)] = []
    /// Positions by key, built once the map outgrows a linear scan.
    private var index: [[UInt8]: Int]?

    func set(_ key: [UInt8], _ value: EncodingNode) {
        if let position = position(of: key) {
            entries[position].1 = value
            return
        }
        entries.append((key, value))
        index?[key] = entries.count - 1
    }

    private func position(of key: [UInt8]) -> Int? {
        if let index { return index[key] }
        guard entries.count >= 16 else { return entries.firstIndex { $0.0 == key } }
        var built: [[UInt8]: Int] = [:]
        for (i, entry) in entries.enumerated() { built[entry.0] = i }
        index = built
        return built[key]
    }
}

/// The elements of an unkeyed container.
final class ArrayBuilder {
    var items: [EncodingNode] = []
}

extension CBORWriter {
    mutating func writeDate(_ date: Date, _ strategy: CBORDateFormat) {
        switch strategy {
        case .epochTime:
            writeHead(6, 1)
            let seconds = date.timeIntervalSince1970
            if seconds.rounded() == seconds, let whole = Int64(exactly: seconds) {
                writeInteger(whole)
            } else {
                writeDouble(seconds)
            }
        case .secondsSinceReferenceDate:
            writeDouble(date.timeIntervalSinceReferenceDate)
        }
    }

    /// A 128-bit integer: a plain integer when it fits 64 bits, else a bignum (tags 2 and 3).
    mutating func writeInteger<T: FixedWidthInteger>(_ value: T) {
        if let small = Int64(exactly: value) {
            writeInteger(small)
        } else if let large = UInt64(exactly: value) {
            writeHead(0, large)
        } else {
            // Negative bignums hold -1 - n; `~value` is that n for two's complement.
            let magnitude = value < 0 ? ~value : value
            writeHead(6, value < 0 ? 3 : 2)
            var digits: [UInt8] = []
            var rest = magnitude
            while rest != 0 {
                digits.append(UInt8(truncatingIfNeeded: rest))
                rest >>= 8
            }
            writeBytes(digits.reversed())
        }
    }
}
