import BleuATT
import BleuCore

/// A 48-bit Bluetooth device address (BD_ADDR).
///
/// Written most significant byte first, `"C0:11:22:33:44:55"`; sent over HCI least significant
/// byte first.
public struct BluetoothAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The six bytes, most significant first.
    public let bytes: [UInt8]

    /// An address from its six bytes, most significant first. Missing bytes are zero; extra
    /// bytes are ignored.
    public init(bytes: [UInt8]) {
        var six = Array(bytes.prefix(6))
        six += [UInt8](repeating: 0, count: 6 - six.count)
        self.bytes = six
    }

    /// An address from the six bytes HCI sends, least significant first.
    public init(littleEndianBytes: [UInt8]) {
        self.init(bytes: Array(littleEndianBytes.prefix(6).reversed()))
    }

    /// Parses `"C0:11:22:33:44:55"` (colons or dashes, any case); `nil` for anything else.
    public init?(string: String) {
        let parts = string.split(whereSeparator: { $0 == ":" || $0 == "-" })
        guard parts.count == 6 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.init(bytes: bytes)
    }

    /// The address as HCI sends it, least significant byte first.
    public var littleEndianBytes: [UInt8] { bytes.reversed() }

    /// The all-zero address.
    public static let zero = BluetoothAddress(bytes: [0, 0, 0, 0, 0, 0])

    public var description: String {
        bytes.map(hex2).joined(separator: ":")
    }

    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}

/// The type of an LE device address, as HCI commands and events carry it.
public struct AddressType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// A public device address (0x00).
    public static let publicDevice = AddressType(rawValue: 0x00)
    /// A random device address (0x01).
    public static let randomDevice = AddressType(rawValue: 0x01)
    /// A public identity address resolved from a resolvable private address (0x02).
    public static let publicIdentity = AddressType(rawValue: 0x02)
    /// A random (static) identity address resolved from a resolvable private address (0x03).
    public static let randomIdentity = AddressType(rawValue: 0x03)

    public var description: String {
        switch rawValue {
        case 0: "public"
        case 1: "random"
        case 2: "public-identity"
        case 3: "random-identity"
        default: "type-\(rawValue)"
        }
    }
}

extension ByteReader {
    /// A device address, sent least significant byte first.
    mutating func address() throws(PacketDecodingError) -> BluetoothAddress {
        BluetoothAddress(littleEndianBytes: try take(6))
    }
}

extension Array where Element == UInt8 {
    /// Appends a device address least significant byte first, as HCI sends it.
    mutating func append(_ address: BluetoothAddress) {
        append(contentsOf: address.littleEndianBytes)
    }
}
