import Foundation

/// A value being encoded: finished bytes, a container still being filled, or an encoder handed
/// out by `superEncoder` whose content arrives later. Written out once the whole value is built.
enum EncodingNode {
    /// Finished bytes of one complete item.
    case encoded([UInt8])
    case container(ContainerBuilder)
    case deferred(CBOREncoderState)

    /// The node for `value`: primitives and the special Foundation types directly, anything else
    /// through its own `encode(to:)`.
    static func make<T: Encodable>(_ value: T, options: CBOREncoder, codingPath: @autoclosure () -> [any CodingKey], depth: Int) throws -> EncodingNode {
        var writer = CBORWriter(capacity: 16)
        if writer.writeSpecial(value, options) {
            return .encoded(writer.bytes)
        }
        return try makeComposite(value, options: options, codingPath: codingPath(), depth: depth)
    }

    /// The node of a value that encodes itself through containers.
    static func makeComposite<T: Encodable>(_ value: T, options: CBOREncoder, codingPath: [any CodingKey], depth: Int) throws -> EncodingNode {
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

    /// Writes the node; `depth` counts enclosing containers, bounded by `limit` (containers
    /// nested by hand through `nestedContainer` never pass through ``make(_:options:codingPath:depth:)``).
    func write(to writer: inout CBORWriter, depth: Int, limit: Int) throws {
        guard depth <= limit else {
            throw EncodingError.invalidValue(depth, .init(codingPath: [], debugDescription: "containers nested deeper than the encoder's maximumDepth of \(limit)"))
        }
        switch self {
        case .encoded(let bytes):
            writer.bytes.append(contentsOf: bytes)
        case .container(let container):
            writer.writeHead(container.isMap ? 5 : 4, UInt64(container.count))
            var start = 0
            for (offset, node) in container.nested {
                writer.bytes.append(contentsOf: container.content.bytes[start..<offset])
                try node.write(to: &writer, depth: depth + 1, limit: limit)
                start = offset
            }
            writer.bytes.append(contentsOf: container.content.bytes[start...])
        case .deferred(let encoder):
            // A super encoder nobody used encodes as an empty map, as Foundation's encoders do.
            try (encoder.node ?? .encoded([0xA0])).write(to: &writer, depth: depth, limit: limit)
        }
    }
}

/// The content of a keyed or unkeyed container: primitives are written straight into `content`;
/// nested containers and composite values are kept as nodes, spliced in at their offsets when
/// the whole value is written. (A key encoded twice is written twice; decoders keep the last.)
final class ContainerBuilder {
    let isMap: Bool
    /// Elements (or key/value pairs) so far.
    var count = 0
    var content = CBORWriter(capacity: 32)
    /// Nodes to splice in, by the offset in `content` where each belongs, in order.
    var nested: [(Int, EncodingNode)] = []

    init(isMap: Bool) {
        self.isMap = isMap
    }

    /// Appends a node at the current end of `content`.
    func append(_ node: EncodingNode) {
        nested.append((content.bytes.count, node))
    }
}

extension CBORWriter {
    /// Writes the values the codec represents itself — primitives, `Data`, `UUID`, `Date`, `URL`,
    /// ``CBORValue`` — and returns `true`; returns `false` for anything else.
    mutating func writeSpecial<T: Encodable>(_ value: T, _ options: CBOREncoder) -> Bool {
        // Comparing metatypes is cheap; once the type is known to be `X`, the value is read as one
        // (`unsafeBitCast` between identical types), without a dynamic cast.
        if T.self == String.self { writeText(unsafeBitCast(value, to: String.self)) }
        else if T.self == Int.self { writeInteger(Int64(unsafeBitCast(value, to: Int.self))) }
        else if T.self == Bool.self { writeBool(unsafeBitCast(value, to: Bool.self)) }
        else if T.self == Double.self { writeDouble(unsafeBitCast(value, to: Double.self)) }
        else if T.self == UInt64.self { writeHead(0, unsafeBitCast(value, to: UInt64.self)) }
        else if T.self == Data.self { writeBytes(unsafeBitCast(value, to: Data.self)) }
        else if T.self == UUID.self { withUnsafeBytes(of: unsafeBitCast(value, to: UUID.self).uuid) { writeBytes($0) } }
        else if T.self == Date.self { writeDate(unsafeBitCast(value, to: Date.self), options.dateEncoding) }
        else if T.self == URL.self { writeText(unsafeBitCast(value, to: URL.self).absoluteString) }
        else if T.self == CBORValue.self { write(unsafeBitCast(value, to: CBORValue.self)) }
        else if T.self == Int8.self { writeInteger(Int64(unsafeBitCast(value, to: Int8.self))) }
        else if T.self == Int16.self { writeInteger(Int64(unsafeBitCast(value, to: Int16.self))) }
        else if T.self == Int32.self { writeInteger(Int64(unsafeBitCast(value, to: Int32.self))) }
        else if T.self == Int64.self { writeInteger(unsafeBitCast(value, to: Int64.self)) }
        else if T.self == UInt.self { writeHead(0, UInt64(unsafeBitCast(value, to: UInt.self))) }
        else if T.self == UInt8.self { writeHead(0, UInt64(unsafeBitCast(value, to: UInt8.self))) }
        else if T.self == UInt16.self { writeHead(0, UInt64(unsafeBitCast(value, to: UInt16.self))) }
        else if T.self == UInt32.self { writeHead(0, UInt64(unsafeBitCast(value, to: UInt32.self))) }
        else if T.self == Float.self { writeFloat(unsafeBitCast(value, to: Float.self)) }
        else if T.self == Int128.self { writeInteger(unsafeBitCast(value, to: Int128.self)) }
        else if T.self == UInt128.self { writeInteger(unsafeBitCast(value, to: UInt128.self)) }
        else { return false }
        return true
    }

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
