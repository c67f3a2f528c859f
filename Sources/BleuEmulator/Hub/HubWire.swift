import BleuCore
import Foundation

// The byte layout of the hub protocol's payloads: little-endian integers, length-prefixed
// byte strings and lists, one tag byte per enum case. Every value that crosses between a hub
// and its clients has one `encode(to:)` and one `init(from:)`, side by side, and the round-trip
// tests (HubWireTests) drive both over generated values.

/// A value with a layout in the hub protocol.
protocol HubCodable {
    func encode(to writer: inout HubWriter)
    init(from reader: inout HubReader) throws(PacketDecodingError)
}

/// Appends a payload's fields.
struct HubWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 64) {
        bytes.reserveCapacity(capacity)
    }

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { bytes.appendLE(value) }
    mutating func u32(_ value: UInt32) { bytes.appendLE(value) }
    mutating func u64(_ value: UInt64) { bytes.appendLE(value) }
    mutating func i64(_ value: Int64) { bytes.appendLE(UInt64(bitPattern: value)) }
    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }
    /// An `Int` that fits in 64 bits (every count and length in the package does).
    mutating func int(_ value: Int) { i64(Int64(value)) }
    mutating func double(_ value: Double) { u64(value.bitPattern) }
    mutating func raw(_ value: some Collection<UInt8>) { bytes += value }
    /// A u32 length, then the bytes.
    mutating func data(_ value: some Collection<UInt8>) {
        u32(UInt32(value.count))
        bytes += value
    }
    mutating func string(_ value: String) { data(Array(value.utf8)) }
    mutating func uuid(_ value: UUID) { withUnsafeBytes(of: value.uuid) { bytes += $0 } }
    mutating func value(_ value: some HubCodable) { value.encode(to: &self) }
    /// A presence byte, then the value.
    mutating func optional<T>(_ value: T?, _ body: (inout HubWriter, T) -> Void) {
        bool(value != nil)
        if let value { body(&self, value) }
    }
    mutating func optional(_ value: (some HubCodable)?) { optional(value) { $0.value($1) } }
    /// A u32 count, then the elements.
    mutating func list<S: Collection>(_ elements: S, _ body: (inout HubWriter, S.Element) -> Void) {
        u32(UInt32(elements.count))
        for element in elements { body(&self, element) }
    }
    mutating func list<S: Collection>(_ elements: S) where S.Element: HubCodable { list(elements) { $0.value($1) } }
}

/// Reads a payload's fields, throwing ``/BleuCore/PacketDecodingError`` rather than reading past
/// the end or building a list longer than the bytes that remain could hold.
struct HubReader {
    private(set) var reader: ByteReader

    init(_ bytes: [UInt8], packet: String = "hub frame") {
        reader = ByteReader(bytes, packet: packet)
    }

    var remaining: Int { reader.remaining }

    mutating func u8() throws(PacketDecodingError) -> UInt8 { try reader.u8() }
    mutating func u16() throws(PacketDecodingError) -> UInt16 { try reader.u16() }
    mutating func u32() throws(PacketDecodingError) -> UInt32 { try reader.u32() }
    mutating func u64() throws(PacketDecodingError) -> UInt64 { try reader.u64() }
    mutating func i64() throws(PacketDecodingError) -> Int64 { Int64(bitPattern: try reader.u64()) }
    mutating func bool() throws(PacketDecodingError) -> Bool {
        switch try u8() {
        case 0: false
        case 1: true
        case let other: throw invalid("boolean", Int(other))
        }
    }
    /// An `Int` within `range` (a count, a length, an MTU): anything else is refused here, so no
    /// later arithmetic overflows on a hostile value.
    mutating func int(in range: ClosedRange<Int> = Int(Int32.min)...Int(Int32.max)) throws(PacketDecodingError) -> Int {
        let value = try i64()
        guard value >= Int64(range.lowerBound), value <= Int64(range.upperBound) else {
            throw invalid("integer", Int(clamping: value))
        }
        return Int(value)
    }
    mutating func double() throws(PacketDecodingError) -> Double { Double(bitPattern: try u64()) }
    mutating func raw(_ count: Int) throws(PacketDecodingError) -> [UInt8] { try reader.take(count) }
    mutating func bytes() throws(PacketDecodingError) -> [UInt8] {
        let count = Int(try u32())
        return try reader.take(count)
    }
    mutating func data() throws(PacketDecodingError) -> Data { Data(try bytes()) }
    mutating func string() throws(PacketDecodingError) -> String {
        let raw = try bytes()
        guard let text = String(validating: raw, as: UTF8.self) else { throw invalid("UTF-8 string", raw.count) }
        return text
    }
    mutating func uuid() throws(PacketDecodingError) -> UUID {
        let b = try reader.take(16)
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
    mutating func value<T: HubCodable>(_ type: T.Type = T.self) throws(PacketDecodingError) -> T {
        try T(from: &self)
    }
    mutating func optional<T>(_ body: (inout HubReader) throws(PacketDecodingError) -> T) throws(PacketDecodingError) -> T? {
        try bool() ? try body(&self) : nil
    }
    mutating func optional<T: HubCodable>(_ type: T.Type = T.self) throws(PacketDecodingError) -> T? {
        try optional { reader throws(PacketDecodingError) in try reader.value(T.self) }
    }
    /// A u32 count, then the elements; a count larger than the bytes left (every element takes
    /// at least one) is refused before anything is allocated.
    mutating func list<T>(_ body: (inout HubReader) throws(PacketDecodingError) -> T) throws(PacketDecodingError) -> [T] {
        let count = Int(try u32())
        guard count <= remaining else { throw invalid("list length", count) }
        var elements: [T] = []
        elements.reserveCapacity(count)
        for _ in 0..<count { elements.append(try body(&self)) }
        return elements
    }
    mutating func list<T: HubCodable>(_ type: T.Type = T.self) throws(PacketDecodingError) -> [T] {
        try list { reader throws(PacketDecodingError) in try reader.value(T.self) }
    }
    /// The payload must end here.
    func finish() throws(PacketDecodingError) { try reader.finish() }

    func invalid(_ field: String, _ value: Int) -> PacketDecodingError {
        reader.error(.invalidValue(field: field, value: value))
    }
}
