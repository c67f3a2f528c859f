/// Parses CBOR bytes into ``CBORValue`` trees under ``CBORDecodingLimits``.
///
/// Every declared length is checked against the bytes that remain before anything is allocated
/// for it, so a short hostile input cannot make the parser reserve memory it does not hold.
struct CBORReader {
    private let base: UnsafeRawBufferPointer
    private let limits: CBORDecodingLimits
    private(set) var offset = 0

    init(_ buffer: UnsafeRawBufferPointer, limits: CBORDecodingLimits, at offset: Int = 0) {
        self.base = buffer
        self.limits = limits
        self.offset = offset
    }

    /// Parses one item that must fill `buffer`.
    static func parse(_ buffer: UnsafeRawBufferPointer, limits: CBORDecodingLimits) throws(CBORError) -> CBORValue {
        var reader = CBORReader(buffer, limits: limits)
        let value = try reader.readItem(depth: 0)
        guard reader.offset == buffer.count else { throw .trailingBytes(offset: reader.offset) }
        return value
    }

    private var remaining: Int { base.count - offset }

    @inline(__always)
    private mutating func readByte() throws(CBORError) -> UInt8 {
        guard offset < base.count else { throw .truncated(offset: offset) }
        defer { offset += 1 }
        return base[offset]
    }

    @inline(__always)
    private mutating func readBigEndian<T: FixedWidthInteger>(_: T.Type) throws(CBORError) -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { throw .truncated(offset: offset) }
        defer { offset += size }
        return T(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// The argument that follows an initial byte with additional information `info` (0–27).
    @inline(__always)
    private mutating func readArgument(_ info: UInt8, at start: Int) throws(CBORError) -> UInt64 {
        switch info {
        case 0..<24: return UInt64(info)
        case 24: return UInt64(try readByte())
        case 25: return UInt64(try readBigEndian(UInt16.self))
        case 26: return UInt64(try readBigEndian(UInt32.self))
        case 27: return try readBigEndian(UInt64.self)
        default: throw .malformed("reserved additional information \(info)", offset: start)
        }
    }

    private func checkedLength(_ length: UInt64, limit: Int, elementSize: Int, at start: Int) throws(CBORError) -> Int {
        guard length <= UInt64(limit) else {
            throw .lengthLimitExceeded(length: length, limit: limit, offset: start)
        }
        // Every element needs at least `elementSize` bytes: more than remain is a truncation.
        guard length <= UInt64(remaining / elementSize) else { throw .truncated(offset: offset) }
        return Int(length)
    }

    /// The head of an item: its major type, additional information and argument (0 for an
    /// indefinite length, `info` 31, whose caller reads on itself).
    struct Head {
        let major: UInt8
        let info: UInt8
        let argument: UInt64
    }

    /// Reads the head of the item at ``offset``: the initial byte and the argument after it.
    @inline(__always)
    mutating func readHead() throws(CBORError) -> Head {
        let start = offset
        let initial = try readByte()
        let info = initial & 0x1F
        if info == 31 { return Head(major: initial >> 5, info: info, argument: 0) }
        return Head(major: initial >> 5, info: info, argument: try readArgument(info, at: start))
    }

    mutating func readItem(depth: Int) throws(CBORError) -> CBORValue {
        let start = offset
        let head = try readHead()
        let (major, info, argument) = (head.major, head.info, head.argument)
        if info == 31 {
            return try readIndefinite(major, depth: depth, at: start)
        }
        switch major {
        case 0:
            return .unsignedInteger(argument)
        case 1:
            return .negativeInteger(argument)
        case 2:
            return .byteString(try readByteString(argument, at: start))
        case 3:
            return .textString(try readText(argument, at: start))
        case 4:
            let count = try checkedLength(argument, limit: limits.maximumCollectionCount, elementSize: 1, at: start)
            try checkDepth(depth + 1, at: start)
            var items: [CBORValue] = []
            items.reserveCapacity(count)
            for _ in 0..<count {
                items.append(try readItem(depth: depth + 1))
            }
            return .array(items)
        case 5:
            let count = try checkedLength(argument, limit: limits.maximumCollectionCount, elementSize: 2, at: start)
            try checkDepth(depth + 1, at: start)
            var entries: [CBORMapEntry] = []
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let key = try readItem(depth: depth + 1)
                entries.append(CBORMapEntry(key, try readItem(depth: depth + 1)))
            }
            return .map(entries)
        case 6:
            try checkDepth(depth + 1, at: start)
            return .tagged(argument, try readItem(depth: depth + 1))
        default:
            return try readSimple(info, argument, at: start)
        }
    }

    private func checkDepth(_ depth: Int, at start: Int) throws(CBORError) {
        guard depth <= limits.maximumDepth else {
            throw .depthLimitExceeded(limit: limits.maximumDepth, offset: start)
        }
    }

    // MARK: - Checking without building, for the decoder's single-pass path

    /// Checks one item as ``readItem(depth:)`` reads it — through the same helpers, so under the
    /// same limits and rules — building nothing. Returns `false` at the first indefinite-length
    /// item, which this walk leaves to ``readItem(depth:)``; `true` means `readItem` accepts the
    /// same bytes. A caller reports errors by parsing again with `readItem`, the one source of them.
    mutating func checkItem(depth: Int) throws(CBORError) -> Bool {
        let start = offset
        return try check(readHead(), at: start, depth: depth)
    }

    /// ``checkItem(depth:)`` for an item whose head, which started at `start`, was just read.
    /// Inlined into the loop over a collection's elements, so a scalar element costs no call.
    @inline(__always)
    private mutating func check(_ head: Head, at start: Int, depth: Int) throws(CBORError) -> Bool {
        if head.info == 31 { return false }
        switch head.major {
        case 0, 1:
            return true
        case 2, 3:
            let count = try checkedLength(head.argument, limit: limits.maximumStringLength, elementSize: 1, at: start)
            if head.major == 3, !Self.isValidText(UnsafeRawBufferPointer(rebasing: base[offset..<offset + count])) {
                throw .invalidUTF8(offset: start)
            }
            offset += count
            return true
        case 4, 5:
            return try checkElements(head, at: start, depth: depth)
        case 6:
            try checkDepth(depth + 1, at: start)
            return try checkItem(depth: depth + 1)
        default:
            _ = try readSimple(head.info, head.argument, at: start)
            return true
        }
    }

    /// The elements of the array or map whose head, which started at `start`, was just read.
    private mutating func checkElements(_ head: Head, at start: Int, depth: Int) throws(CBORError) -> Bool {
        let itemsPerElement = Int(head.major) - 3  // an array element is one item, a map pair two
        let count = try checkedLength(head.argument, limit: limits.maximumCollectionCount, elementSize: itemsPerElement, at: start)
        try checkDepth(depth + 1, at: start)
        for _ in 0..<count * itemsPerElement {
            let elementStart = offset
            guard try check(readHead(), at: elementStart, depth: depth + 1) else { return false }
        }
        return true
    }

    /// Moves past one item of input that ``checkItem(depth:)`` accepted (definite lengths only),
    /// without recursion.
    mutating func skipCheckedItem() throws(CBORError) {
        var pending = 1
        while pending > 0 {
            pending -= 1
            let head = try readHead()
            switch head.major {
            case 2, 3: offset += Int(head.argument)
            case 4: pending += Int(head.argument)
            case 5: pending += 2 * Int(head.argument)
            case 6: pending += 1
            default: break
            }
        }
    }

    /// The `count` bytes at ``offset`` of input already checked, and moves past them.
    mutating func readCheckedBytes(_ count: Int) -> UnsafeRawBufferPointer {
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: base[offset..<offset + count])
    }

    private mutating func readByteString(_ length: UInt64, at start: Int) throws(CBORError) -> [UInt8] {
        let count = try checkedLength(length, limit: limits.maximumStringLength, elementSize: 1, at: start)
        defer { offset += count }
        return Array(UnsafeRawBufferPointer(rebasing: base[offset..<offset + count]))
    }

    private mutating func readText(_ length: UInt64, at start: Int) throws(CBORError) -> String {
        let count = try checkedLength(length, limit: limits.maximumStringLength, elementSize: 1, at: start)
        let utf8 = UnsafeRawBufferPointer(rebasing: base[offset..<offset + count])
        guard let text = Self.validatedText(utf8) else { throw .invalidUTF8(offset: start) }
        offset += count
        return text
    }

    private mutating func readSimple(_ info: UInt8, _ argument: UInt64, at start: Int) throws(CBORError) -> CBORValue {
        switch info {
        case 20: return .boolean(false)
        case 21: return .boolean(true)
        case 22: return .null
        case 23: return .undefined
        case 0..<20: return .simple(info)
        case 24:
            guard argument >= 32 else {
                throw .malformed("two-byte simple value \(argument) below 32", offset: start)
            }
            return .simple(UInt8(argument))
        case 25: return .float(HalfPrecision.double(UInt16(argument)))
        case 26: return .float(Double(Float(bitPattern: UInt32(argument))))
        default: return .float(Double(bitPattern: argument))
        }
    }

    /// An indefinite-length string, array or map, or a misplaced "break".
    private mutating func readIndefinite(_ major: UInt8, depth: Int, at start: Int) throws(CBORError) -> CBORValue {
        switch major {
        case 2, 3:
            var joined: [UInt8] = []
            while try !atBreak() {
                let chunkStart = offset
                let initial = try readByte()
                guard initial >> 5 == major, initial & 0x1F != 31 else {
                    throw .malformed("chunk of an indefinite-length string is not a definite string of the same type", offset: chunkStart)
                }
                let length = try readArgument(initial & 0x1F, at: chunkStart)
                let count = try checkedLength(length, limit: limits.maximumStringLength - joined.count, elementSize: 1, at: chunkStart)
                let chunk = UnsafeRawBufferPointer(rebasing: base[offset..<offset + count])
                if major == 3, Self.validatedText(chunk) == nil {
                    throw .invalidUTF8(offset: chunkStart)
                }
                joined.append(contentsOf: chunk)
                offset += count
            }
            if major == 2 { return .byteString(joined) }
            return .textString(String(decoding: joined, as: UTF8.self))
        case 4:
            try checkDepth(depth + 1, at: start)
            var items: [CBORValue] = []
            while try !atBreak() {
                guard items.count < limits.maximumCollectionCount else {
                    throw .lengthLimitExceeded(length: UInt64(items.count + 1), limit: limits.maximumCollectionCount, offset: start)
                }
                items.append(try readItem(depth: depth + 1))
            }
            return .array(items)
        case 5:
            try checkDepth(depth + 1, at: start)
            var entries: [CBORMapEntry] = []
            while try !atBreak() {
                guard entries.count < limits.maximumCollectionCount else {
                    throw .lengthLimitExceeded(length: UInt64(entries.count + 1), limit: limits.maximumCollectionCount, offset: start)
                }
                let key = try readItem(depth: depth + 1)
                entries.append(CBORMapEntry(key, try readItem(depth: depth + 1)))
            }
            return .map(entries)
        case 7:
            throw .malformed("\"break\" outside an indefinite-length item", offset: start)
        default:
            throw .malformed("indefinite length on major type \(major)", offset: start)
        }
    }

    /// The text of `utf8`, or `nil` if it is not valid UTF-8. ASCII (most keys and many values)
    /// takes a fast path that needs no validation.
    static func validatedText(_ utf8: UnsafeRawBufferPointer) -> String? {
        let bytes = utf8.assumingMemoryBound(to: UInt8.self)
        if bytes.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether `utf8` is valid UTF-8: ``validatedText(_:)`` without keeping the text.
    static func isValidText(_ utf8: UnsafeRawBufferPointer) -> Bool {
        let bytes = utf8.assumingMemoryBound(to: UInt8.self)
        return bytes.allSatisfy { $0 < 0x80 } || String(validating: bytes, as: UTF8.self) != nil
    }

    /// Consumes a "break" byte if one is next; throws at the end of input.
    private mutating func atBreak() throws(CBORError) -> Bool {
        guard offset < base.count else { throw .truncated(offset: offset) }
        if base[offset] == 0xFF {
            offset += 1
            return true
        }
        return false
    }
}
