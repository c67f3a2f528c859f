import Foundation

/// The encoder's fast path: every item written straight into one byte buffer, in order.
///
/// `Codable` hands out containers before their element counts are known, and CBOR's definite
/// lengths go before the elements; so each container gets a one-byte head placeholder, its count
/// is kept in ``frames``, and ``finish()`` writes the heads (widening any that need more than one
/// byte, in one pass). This is exact only while the value's `encode(to:)` writes depth-first —
/// what synthesized and almost all hand-written conformances do. Anything else (writing to a
/// container after a sibling or a parent was written to, `superEncoder`, a second single value,
/// nesting beyond the limit) sets ``isLinear`` to `false`, and ``CBOREncoder`` encodes the value
/// again with the tree builder (``EncodingNode``), which handles every order.
final class LinearEncoding {
    /// One container: where its head placeholder is, its major type, and its elements so far.
    struct Frame {
        let head: Int
        let major: UInt8
        var count: Int
    }

    // The state is only ever touched by the one thread running the encode, never across an access
    // that could overlap another (no closures hold it; the containers call straight in), so the
    // runtime exclusivity checks — a call each, on every item written — are switched off.
    let options: CBOREncoder
    @exclusivity(unchecked) var writer = CBORWriter(capacity: 64)
    /// Every container, in the order of their heads.
    @exclusivity(unchecked) var frames: [Frame] = []
    /// Containers that may still receive elements, innermost last (indices into ``frames``).
    @exclusivity(unchecked) var open: [Int] = []
    /// The coding path of whatever is being written now.
    @exclusivity(unchecked) var path: [any CodingKey] = []
    /// `false` once the value used the containers in a way this path cannot write.
    @exclusivity(unchecked) private(set) var isLinear = true

    init(options: CBOREncoder) {
        self.options = options
        open.reserveCapacity(8)
        frames.reserveCapacity(8)
        path.reserveCapacity(8)
    }

    func abandon() { isLinear = false }

    /// Writes one value at the current end of the buffer. `depth` counts the values enclosing it.
    func encodeValue<T: Encodable>(_ value: T, depth: Int) throws {
        if writer.writeSpecial(value, options) { return }
        guard depth <= options.maximumDepth else {
            throw EncodingError.invalidValue(value, .init(codingPath: path, debugDescription: "nested deeper than the encoder's maximumDepth of \(options.maximumDepth)"))
        }
        let start = writer.bytes.count
        let openLevel = open.count
        try value.encode(to: LinearEncoder(encoding: self, start: start, depth: depth))
        guard isLinear else { return }
        guard writer.bytes.count > start else {
            throw EncodingError.invalidValue(value, .init(codingPath: path, debugDescription: "\(T.self) encoded no value"))
        }
        // The value is complete: its containers take no more elements.
        open.removeSubrange(openLevel...)
    }

    /// Makes `frame` the innermost open container before an element is written to it; closes the
    /// containers opened after it. Returns `false` (and abandons) if it was closed already.
    func prepare(_ frame: Int) -> Bool {
        guard isLinear else { return false }
        if open.last == frame { return true }
        guard let level = open.lastIndex(of: frame) else {
            isLinear = false
            return false
        }
        open.removeSubrange((level + 1)...)
        return true
    }

    /// Opens a container at the end of the buffer and returns its frame.
    func openContainer(major: UInt8) -> Int {
        writer.bytes.append(major << 5)
        frames.append(Frame(head: writer.bytes.count - 1, major: major, count: 0))
        open.append(frames.count - 1)
        return frames.count - 1
    }

    /// The frame whose head is at `offset`, if a container starts there.
    func frame(at offset: Int) -> Int? {
        var low = 0
        var high = frames.count
        while low < high {
            let middle = (low + high) / 2
            if frames[middle].head < offset { low = middle + 1 } else { high = middle }
        }
        return low < frames.count && frames[low].head == offset ? low : nil
    }

    /// Forgets everything written from `offset` on (an element whose encoding threw).
    func truncate(to offset: Int, frames frameCount: Int, open openCount: Int) {
        writer.bytes.removeSubrange(Swift.min(offset, writer.bytes.count)...)
        frames.removeSubrange(Swift.min(frameCount, frames.count)...)
        open.removeSubrange(Swift.min(openCount, open.count)...)
    }

    /// Sets the coding path to the first `depth` keys so far, then `key`.
    func enter(_ depth: Int, _ key: some CodingKey) {
        path.removeSubrange(Swift.min(depth, path.count)...)
        path.append(key)
    }

    /// Cuts the coding path back to its first `depth` keys.
    func leave(_ depth: Int) {
        path.removeSubrange(Swift.min(depth, path.count)...)
    }

    /// The finished bytes: every container's head written with its count.
    func finish() -> [UInt8] {
        guard frames.contains(where: { $0.count >= 24 }) else {
            writer.bytes.withUnsafeMutableBufferPointer { bytes in
                for frame in frames { bytes[frame.head] = frame.major << 5 | UInt8(frame.count) }
            }
            return writer.bytes
        }
        var output = CBORWriter(capacity: writer.bytes.count + frames.count * 8)
        var copied = 0
        for frame in frames {
            output.bytes.append(contentsOf: writer.bytes[copied..<frame.head])
            output.writeHead(frame.major, UInt64(frame.count))
            copied = frame.head + 1
        }
        output.bytes.append(contentsOf: writer.bytes[copied...])
        return output.bytes
    }
}

/// A position in an unkeyed container, as a coding key small enough to sit in an existential's
/// inline buffer.
struct CBORIndexKey: CodingKey {
    let index: Int
    var intValue: Int? { index }
    var stringValue: String { "Index \(index)" }
    init(_ index: Int) { self.index = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.index = intValue }
}

/// The `Encoder` of the fast path for one value that starts at `start` in the buffer.
struct LinearEncoder: Encoder {
    let encoding: LinearEncoding
    let start: Int
    let depth: Int

    var codingPath: [any CodingKey] { encoding.path }
    var userInfo: [CodingUserInfoKey: Any] { encoding.options.userInfo }

    /// This value's container of `major`: the one it opened already, or a new one if nothing of
    /// the value is written yet; `nil` (abandoning) otherwise.
    private func frame(_ major: UInt8) -> Int? {
        if encoding.writer.bytes.count == start { return encoding.openContainer(major: major) }
        if let frame = encoding.frame(at: start), encoding.frames[frame].major == major, encoding.prepare(frame) {
            return frame
        }
        encoding.abandon()
        return nil
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(LinearKeyedContainer<Key>(encoding: encoding, frame: frame(5) ?? -1, depth: depth))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        LinearUnkeyedContainer(encoding: encoding, frame: frame(4) ?? -1, depth: depth)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        LinearSingleValueContainer(encoder: self)
    }
}

struct LinearKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoding: LinearEncoding
    /// The container's frame; -1 when the encoding was abandoned as it was made.
    let frame: Int
    let depth: Int
    var codingPath: [any CodingKey] { Array(encoding.path.prefix(depth)) }

    /// Writes the key; `false` when the encoding was abandoned (write nothing more).
    private func key(_ key: Key) -> Bool {
        guard frame >= 0, encoding.prepare(frame) else { return false }
        encoding.frames[frame].count += 1
        if encoding.options.keyEncoding == .integersWhenAvailable, let int = key.intValue,
           CBORKeyedEncodingContainer<Key>.integerIsLossless(key, int) {
            encoding.writer.writeInteger(Int64(int))
        } else {
            encoding.writer.writeText(key.stringValue)
        }
        return true
    }

    mutating func encodeNil(forKey key: Key) throws { if self.key(key) { encoding.writer.writeNull() } }
    mutating func encode(_ value: Bool, forKey key: Key) throws { if self.key(key) { encoding.writer.writeBool(value) } }
    mutating func encode(_ value: String, forKey key: Key) throws { if self.key(key) { encoding.writer.writeText(value) } }
    mutating func encode(_ value: Double, forKey key: Key) throws { if self.key(key) { encoding.writer.writeDouble(value) } }
    mutating func encode(_ value: Float, forKey key: Key) throws { if self.key(key) { encoding.writer.writeFloat(value) } }
    mutating func encode(_ value: Int, forKey key: Key) throws { if self.key(key) { encoding.writer.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int8, forKey key: Key) throws { if self.key(key) { encoding.writer.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int16, forKey key: Key) throws { if self.key(key) { encoding.writer.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int32, forKey key: Key) throws { if self.key(key) { encoding.writer.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int64, forKey key: Key) throws { if self.key(key) { encoding.writer.writeInteger(value) } }
    mutating func encode(_ value: Int128, forKey key: Key) throws { if self.key(key) { encoding.writer.writeInteger(value) } }
    mutating func encode(_ value: UInt, forKey key: Key) throws { if self.key(key) { encoding.writer.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { if self.key(key) { encoding.writer.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { if self.key(key) { encoding.writer.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { if self.key(key) { encoding.writer.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { if self.key(key) { encoding.writer.writeHead(0, value) } }
    mutating func encode(_ value: UInt128, forKey key: Key) throws { if self.key(key) { encoding.writer.writeInteger(value) } }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let start = encoding.writer.bytes.count
        guard self.key(key) else { return }
        let mark = (encoding.frames.count, encoding.open.count)
        encoding.enter(depth, key)
        defer { encoding.leave(depth) }
        do {
            try encoding.encodeValue(value, depth: depth + 1)
        } catch {
            // Take the key back, so that a caller who catches the error leaves no half entry.
            encoding.truncate(to: start, frames: mark.0, open: mark.1)
            encoding.frames[frame].count -= 1
            throw error
        }
    }

    private func nested(_ key: Key, major: UInt8) -> (frame: Int, depth: Int) {
        guard depth + 1 <= encoding.options.maximumDepth, self.key(key) else {
            encoding.abandon()
            return (-1, depth + 1)
        }
        encoding.enter(depth, key)
        return (encoding.openContainer(major: major), depth + 1)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let (frame, depth) = nested(key, major: 5)
        return KeyedEncodingContainer(LinearKeyedContainer<NestedKey>(encoding: encoding, frame: frame, depth: depth))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let (frame, depth) = nested(key, major: 4)
        return LinearUnkeyedContainer(encoding: encoding, frame: frame, depth: depth)
    }

    mutating func superEncoder() -> any Encoder {
        encoding.abandon()
        return CBOREncoderState(options: encoding.options, codingPath: codingPath, depth: depth + 1)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder() }
}

struct LinearUnkeyedContainer: UnkeyedEncodingContainer {
    let encoding: LinearEncoding
    /// The container's frame; -1 when the encoding was abandoned as it was made.
    let frame: Int
    let depth: Int
    var codingPath: [any CodingKey] { Array(encoding.path.prefix(depth)) }
    var count: Int { frame >= 0 ? encoding.frames[frame].count : 0 }

    /// Counts the element the caller writes next; `false` when the encoding was abandoned.
    private func next() -> Bool {
        guard frame >= 0, encoding.prepare(frame) else { return false }
        encoding.frames[frame].count += 1
        return true
    }

    mutating func encodeNil() throws { if next() { encoding.writer.writeNull() } }
    mutating func encode(_ value: Bool) throws { if next() { encoding.writer.writeBool(value) } }
    mutating func encode(_ value: String) throws { if next() { encoding.writer.writeText(value) } }
    mutating func encode(_ value: Double) throws { if next() { encoding.writer.writeDouble(value) } }
    mutating func encode(_ value: Float) throws { if next() { encoding.writer.writeFloat(value) } }
    mutating func encode(_ value: Int) throws { if next() { encoding.writer.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int8) throws { if next() { encoding.writer.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int16) throws { if next() { encoding.writer.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int32) throws { if next() { encoding.writer.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int64) throws { if next() { encoding.writer.writeInteger(value) } }
    mutating func encode(_ value: Int128) throws { if next() { encoding.writer.writeInteger(value) } }
    mutating func encode(_ value: UInt) throws { if next() { encoding.writer.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt8) throws { if next() { encoding.writer.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt16) throws { if next() { encoding.writer.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt32) throws { if next() { encoding.writer.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt64) throws { if next() { encoding.writer.writeHead(0, value) } }
    mutating func encode(_ value: UInt128) throws { if next() { encoding.writer.writeInteger(value) } }

    mutating func encode<T: Encodable>(_ value: T) throws {
        guard frame >= 0, encoding.prepare(frame) else { return }
        let mark = (encoding.writer.bytes.count, encoding.frames.count, encoding.open.count)
        encoding.enter(depth, CBORIndexKey(encoding.frames[frame].count))
        defer { encoding.leave(depth) }
        do {
            try encoding.encodeValue(value, depth: depth + 1)
        } catch {
            encoding.truncate(to: mark.0, frames: mark.1, open: mark.2)
            throw error
        }
        encoding.frames[frame].count += 1
    }

    private mutating func nested(major: UInt8) -> (frame: Int, depth: Int) {
        guard depth + 1 <= encoding.options.maximumDepth, frame >= 0, encoding.prepare(frame) else {
            encoding.abandon()
            return (-1, depth + 1)
        }
        encoding.enter(depth, CBORIndexKey(encoding.frames[frame].count))
        encoding.frames[frame].count += 1
        return (encoding.openContainer(major: major), depth + 1)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let (frame, depth) = nested(major: 5)
        return KeyedEncodingContainer(LinearKeyedContainer<NestedKey>(encoding: encoding, frame: frame, depth: depth))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let (frame, depth) = nested(major: 4)
        return LinearUnkeyedContainer(encoding: encoding, frame: frame, depth: depth)
    }

    mutating func superEncoder() -> any Encoder {
        encoding.abandon()
        return CBOREncoderState(options: encoding.options, codingPath: codingPath, depth: depth + 1)
    }
}

struct LinearSingleValueContainer: SingleValueEncodingContainer {
    let encoder: LinearEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    private var encoding: LinearEncoding { encoder.encoding }

    /// `true` when the value may be written now: nothing of it is written yet.
    private func ready() -> Bool {
        guard encoding.isLinear, encoding.writer.bytes.count == encoder.start else {
            encoding.abandon()
            return false
        }
        return true
    }

    mutating func encodeNil() throws { if ready() { encoding.writer.writeNull() } }
    mutating func encode(_ value: Bool) throws { if ready() { encoding.writer.writeBool(value) } }
    mutating func encode(_ value: String) throws { if ready() { encoding.writer.writeText(value) } }
    mutating func encode(_ value: Double) throws { if ready() { encoding.writer.writeDouble(value) } }
    mutating func encode(_ value: Float) throws { if ready() { encoding.writer.writeFloat(value) } }
    mutating func encode(_ value: Int) throws { if ready() { encoding.writer.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int8) throws { if ready() { encoding.writer.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int16) throws { if ready() { encoding.writer.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int32) throws { if ready() { encoding.writer.writeInteger(Int64(value)) } }
    mutating func encode(_ value: Int64) throws { if ready() { encoding.writer.writeInteger(value) } }
    mutating func encode(_ value: Int128) throws { if ready() { encoding.writer.writeInteger(value) } }
    mutating func encode(_ value: UInt) throws { if ready() { encoding.writer.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt8) throws { if ready() { encoding.writer.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt16) throws { if ready() { encoding.writer.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt32) throws { if ready() { encoding.writer.writeHead(0, UInt64(value)) } }
    mutating func encode(_ value: UInt64) throws { if ready() { encoding.writer.writeHead(0, value) } }
    mutating func encode(_ value: UInt128) throws { if ready() { encoding.writer.writeInteger(value) } }

    mutating func encode<T: Encodable>(_ value: T) throws {
        guard ready() else { return }
        // The same value, one level deeper (as the tree builder counts it).
        try encoding.encodeValue(value, depth: encoder.depth + 1)
    }
}
