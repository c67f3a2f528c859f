/// Appends CBOR items to a byte buffer in preferred serialization: the shortest argument
/// encoding, definite lengths, the shortest exact float width.
struct CBORWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 64) {
        bytes.reserveCapacity(capacity)
    }

    /// The head of an item: major type (0–7) and its argument in the shortest form.
    mutating func writeHead(_ major: UInt8, _ argument: UInt64) {
        let type = major << 5
        switch argument {
        case 0..<24:
            bytes.append(type | UInt8(argument))
        case 24...0xFF:
            bytes.append(type | 24)
            bytes.append(UInt8(argument))
        case 0x100...0xFFFF:
            bytes.append(type | 25)
            appendBigEndian(UInt16(argument))
        case 0x1_0000...0xFFFF_FFFF:
            bytes.append(type | 26)
            appendBigEndian(UInt32(argument))
        default:
            bytes.append(type | 27)
            appendBigEndian(argument)
        }
    }

    mutating func writeInteger(_ value: Int64) {
        if value >= 0 {
            writeHead(0, UInt64(value))
        } else {
            writeHead(1, UInt64(~value))
        }
    }

    mutating func writeBytes<Bytes: Collection<UInt8>>(_ value: Bytes) {
        writeHead(2, UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func writeText(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            writeHead(3, UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func writeBool(_ value: Bool) {
        bytes.append(value ? 0xF5 : 0xF4)
    }

    mutating func writeNull() {
        bytes.append(0xF6)
    }

    /// `value` in the shortest of half, single and double precision that keeps its exact bits.
    mutating func writeDouble(_ value: Double) {
        let single = Float(value)
        if Double(single).bitPattern == value.bitPattern {
            writeFloat(single)
        } else {
            bytes.append(0xFB)
            appendBigEndian(value.bitPattern)
        }
    }

    /// `value` as half precision when exact, else single precision.
    mutating func writeFloat(_ value: Float) {
        if let half = HalfPrecision.bits(exactly: value) {
            bytes.append(0xF9)
            appendBigEndian(half)
        } else {
            bytes.append(0xFA)
            appendBigEndian(value.bitPattern)
        }
    }

    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// Writes a whole tree.
    mutating func write(_ value: CBORValue) {
        switch value {
        case .unsignedInteger(let n): writeHead(0, n)
        case .negativeInteger(let n): writeHead(1, n)
        case .byteString(let b): writeBytes(b)
        case .textString(let s): writeText(s)
        case .array(let items):
            writeHead(4, UInt64(items.count))
            for item in items { write(item) }
        case .map(let entries):
            writeHead(5, UInt64(entries.count))
            for entry in entries {
                write(entry.key)
                write(entry.value)
            }
        case .tagged(let tag, let item):
            writeHead(6, tag)
            write(item)
        case .boolean(let b): writeBool(b)
        case .null: writeNull()
        case .undefined: bytes.append(0xF7)
        case .simple(let v):
            if v < 24 {
                bytes.append(0xE0 | v)
            } else {
                bytes.append(0xF8)
                bytes.append(v)
            }
        case .float(let d): writeDouble(d)
        }
    }
}
