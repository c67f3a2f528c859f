import Foundation

/// A Bluetooth UUID: a 16-, 32- or 128-bit identifier of a service, characteristic,
/// descriptor or other attribute type.
///
/// 16- and 32-bit UUIDs are shorthands for 128-bit UUIDs built on the Bluetooth SIG base UUID
/// `0000xxxx-0000-1000-8000-00805F9B34FB` (Core Spec Vol 3 Part B §2.5.1). A `BluetoothUUID`
/// always stores the full 128-bit value, so `BluetoothUUID(0x180F)` equals
/// `BluetoothUUID(string: "0000180F-0000-1000-8000-00805F9B34FB")`; it prints in the shortest form.
///
/// ```swift
/// let battery = BluetoothUUID(0x180F)
/// battery.uuidString          // "180F"
/// battery.description         // "180F (Battery Service)"
/// battery.attBytes            // [0x0F, 0x18]: ATT sends UUIDs little-endian
/// ```
public struct BluetoothUUID: Sendable, Hashable, Comparable {
    /// The 128-bit value, in the big-endian order of the textual form.
    public let uuid: UUID

    /// The Bluetooth SIG base UUID, `00000000-0000-1000-8000-00805F9B34FB`.
    public static let base = BluetoothUUID(uuid: UUID(uuid: (
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
        0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB
    )))

    /// Wraps any 128-bit UUID.
    public init(uuid: UUID) {
        self.uuid = uuid
    }

    /// A 16-bit SIG-assigned UUID, such as `0x180F` (Battery service).
    public init(_ value: UInt16) {
        self.init(value32: UInt32(value))
    }

    /// A 32-bit SIG-assigned UUID.
    public init(uuid32 value: UInt32) {
        self.init(value32: value)
    }

    private init(value32 value: UInt32) {
        var bytes = Self.base.bytes
        bytes[0] = UInt8(truncatingIfNeeded: value >> 24)
        bytes[1] = UInt8(truncatingIfNeeded: value >> 16)
        bytes[2] = UInt8(truncatingIfNeeded: value >> 8)
        bytes[3] = UInt8(truncatingIfNeeded: value)
        self.init(bigEndianBytes: bytes)
    }

    /// Builds a UUID from its 16 bytes in big-endian (textual) order.
    init(bigEndianBytes b: [UInt8]) {
        precondition(b.count == 16)
        uuid = UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                           b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    /// The 16 bytes in big-endian (textual) order.
    public var bytes: [UInt8] {
        withUnsafeBytes(of: uuid.uuid) { Array($0) }
    }

    /// Whether the UUID is built on the SIG base UUID (so it has a 16- or 32-bit form).
    public var isSIGBased: Bool {
        bytes[4...] == Self.base.bytes[4...]
    }

    /// The 32-bit form, when the UUID is built on the SIG base UUID.
    public var uuid32: UInt32? {
        guard isSIGBased else { return nil }
        let b = bytes
        return UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3])
    }

    /// The 16-bit form, when the UUID is built on the SIG base UUID and fits in 16 bits.
    public var uuid16: UInt16? {
        guard let value = uuid32, value <= UInt32(UInt16.max) else { return nil }
        return UInt16(value)
    }

    /// The shortest width that represents this UUID exactly.
    public var shortestWidth: Width {
        if uuid16 != nil { return .bits16 }
        if uuid32 != nil { return .bits32 }
        return .bits128
    }

    /// The shortest textual form: 4 hex digits for 16-bit, 8 for 32-bit, otherwise the full
    /// 36-character form. Upper case.
    public var uuidString: String {
        if let short = uuid16 { return hex(short) }
        if let value = uuid32 { return hex(value) }
        return uuid.uuidString
    }

    /// The full 128-bit textual form, upper case, with dashes.
    public var uuidString128: String { uuid.uuidString }

    public static func < (lhs: BluetoothUUID, rhs: BluetoothUUID) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}

// MARK: - Widths and byte order

extension BluetoothUUID {
    /// The width of a UUID on the air.
    public enum Width: Int, Sendable, Hashable, Codable, CaseIterable {
        case bits16 = 2
        case bits32 = 4
        case bits128 = 16

        /// The number of bytes this width takes.
        public var byteCount: Int { rawValue }
    }

    /// The UUID in little-endian order at the given width, or `nil` when it does not fit in
    /// that width (a non-SIG UUID at 16 or 32 bits).
    public func littleEndianBytes(width: Width) -> [UInt8]? {
        switch width {
        case .bits16:
            guard let value = uuid16 else { return nil }
            return [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
        case .bits32:
            guard let value = uuid32 else { return nil }
            return (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        case .bits128:
            return bytes.reversed()
        }
    }

    /// The UUID as the Attribute Protocol sends it: 2 bytes little-endian when it has a 16-bit
    /// form, otherwise all 16 bytes little-endian (ATT has no 32-bit form; Core Spec Vol 3
    /// Part F §3.2.1).
    public var attBytes: [UInt8] {
        littleEndianBytes(width: uuid16 != nil ? .bits16 : .bits128)!
    }

    /// Reads a UUID from 2, 4 or 16 little-endian bytes; `nil` for any other length.
    public init?<Bytes: Collection>(littleEndianBytes: Bytes) where Bytes.Element == UInt8 {
        let b = Array(littleEndianBytes)
        switch b.count {
        case 2:
            self.init(UInt16(b[0]) | UInt16(b[1]) << 8)
        case 4:
            self.init(uuid32: UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24)
        case 16:
            self.init(bigEndianBytes: b.reversed())
        default:
            return nil
        }
    }
}

// MARK: - Parsing

extension BluetoothUUID {
    /// Parses `"180F"`, `"0x180F"`, `"0000180F"` (32-bit),
    /// `"0000180F-0000-1000-8000-00805F9B34FB"` or any 128-bit UUID with or without dashes.
    /// Case-insensitive. Returns `nil` for anything else.
    public init?(string: String) {
        var text = Substring(string.trimmingCharacters(in: .whitespaces))
        if text.hasPrefix("0x") || text.hasPrefix("0X") { text = text.dropFirst(2) }
        guard text.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { return nil }
        switch text.count {
        case 4:
            guard let value = UInt16(text, radix: 16) else { return nil }
            self.init(value)
        case 8:
            guard let value = UInt32(text, radix: 16) else { return nil }
            self.init(uuid32: value)
        case 32:
            self.init(hex32: String(text))
        case 36:
            guard let parsed = UUID(uuidString: String(text)) else { return nil }
            self.init(uuid: parsed)
        default:
            return nil
        }
    }

    private init?(hex32 text: String) {
        guard !text.contains("-"), let bytes = decodeHex(text) else { return nil }
        self.init(bigEndianBytes: bytes)
    }
}

extension BluetoothUUID: ExpressibleByStringLiteral {
    /// A UUID from a literal such as `"180F"`. An invalid literal is a programming error and
    /// traps; parse untrusted text with ``init(string:)`` instead.
    public init(stringLiteral value: String) {
        guard let parsed = BluetoothUUID(string: value) else {
            preconditionFailure("invalid Bluetooth UUID literal \"\(value)\"")
        }
        self = parsed
    }
}

// MARK: - Text and Codable

extension BluetoothUUID: CustomStringConvertible, CustomDebugStringConvertible {
    /// The shortest form followed by the SIG-assigned ``name`` when the UUID has one:
    /// `"180F (Battery Service)"`, `"2A19 (Battery Level)"`; otherwise the shortest form alone.
    public var description: String {
        if let name { return "\(uuidString) (\(name))" }
        return uuidString
    }

    public var debugDescription: String { "BluetoothUUID(\(description))" }
}

extension BluetoothUUID: Codable {
    /// Encodes as the shortest textual form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(uuidString)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let parsed = BluetoothUUID(string: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(text)\" is not a Bluetooth UUID")
        }
        self = parsed
    }
}
