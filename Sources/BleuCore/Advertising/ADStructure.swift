import Foundation

/// The flags of an advertisement (AD type 0x01; Core Specification Supplement Part A §1.3).
public struct AdvertisingFlags: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// LE Limited Discoverable Mode (0x01).
    public static let limitedDiscoverable = AdvertisingFlags(rawValue: 0x01)
    /// LE General Discoverable Mode (0x02).
    public static let generalDiscoverable = AdvertisingFlags(rawValue: 0x02)
    /// BR/EDR Not Supported (0x04).
    public static let brEdrNotSupported = AdvertisingFlags(rawValue: 0x04)
    /// Simultaneous LE and BR/EDR to the same device capable (controller) (0x08).
    public static let simultaneousLEAndBrEdr = AdvertisingFlags(rawValue: 0x08)

    /// General discoverable, LE only (0x06): what a typical BLE peripheral advertises.
    public static let leGeneralDiscoverable: AdvertisingFlags = [.generalDiscoverable, .brEdrNotSupported]
}

/// Manufacturer specific data (AD type 0xFF): a company identifier and the company's bytes.
public struct ManufacturerData: Sendable, Hashable, Codable {
    /// The Bluetooth SIG company identifier, such as 0x004C for Apple; ``company`` names it.
    public var companyID: UInt16
    /// The bytes after the company identifier.
    public var data: Data

    public init(companyID: UInt16, data: Data) {
        self.companyID = companyID
        self.data = data
    }
}

/// One AD structure of advertising or scan response data: `length, AD type, data`
/// (Core Spec Vol 3 Part C §11; types from the Core Specification Supplement Part A).
///
/// UUID lists and service data keep the width they were sent at, so decoding and encoding
/// again gives the same bytes.
public enum ADStructure: Sendable, Hashable {
    /// Flags (0x01).
    case flags(AdvertisingFlags)
    /// A complete (0x03, 0x05, 0x07) or incomplete (0x02, 0x04, 0x06) list of service UUIDs of
    /// one width.
    case serviceUUIDs([BluetoothUUID], width: BluetoothUUID.Width, complete: Bool)
    /// Service solicitation UUIDs of one width (0x14 16-bit, 0x1F 32-bit, 0x15 128-bit).
    case solicitedServiceUUIDs([BluetoothUUID], width: BluetoothUUID.Width)
    /// The complete (0x09) or shortened (0x08) local name.
    case localName(String, complete: Bool)
    /// TX Power Level in dBm (0x0A).
    case txPowerLevel(Int8)
    /// Peripheral Connection Interval Range (0x12), in units of 1.25 ms; 0xFFFF means no
    /// specific bound.
    case connectionIntervalRange(minimum: UInt16, maximum: UInt16)
    /// Service data for a UUID of one width (0x16 16-bit, 0x20 32-bit, 0x21 128-bit).
    case serviceData(BluetoothUUID, Data, width: BluetoothUUID.Width)
    /// Appearance (0x19), a value from the SIG's appearance table (see ``Appearance``).
    case appearance(UInt16)
    /// Manufacturer Specific Data (0xFF).
    case manufacturerData(ManufacturerData)
    /// Any other AD type, kept as bytes.
    case other(type: UInt8, data: Data)

    /// The AD type byte.
    public var adType: UInt8 {
        switch self {
        case .flags: 0x01
        case .serviceUUIDs(_, let width, let complete):
            switch width {
            case .bits16: complete ? 0x03 : 0x02
            case .bits32: complete ? 0x05 : 0x04
            case .bits128: complete ? 0x07 : 0x06
            }
        case .solicitedServiceUUIDs(_, let width):
            switch width {
            case .bits16: 0x14
            case .bits32: 0x1F
            case .bits128: 0x15
            }
        case .localName(_, let complete): complete ? 0x09 : 0x08
        case .txPowerLevel: 0x0A
        case .connectionIntervalRange: 0x12
        case .serviceData(_, _, let width):
            switch width {
            case .bits16: 0x16
            case .bits32: 0x20
            case .bits128: 0x21
            }
        case .appearance: 0x19
        case .manufacturerData: 0xFF
        case .other(let type, _): type
        }
    }

    /// A readable name of the field, used in error messages: `"complete local name"`.
    public var fieldName: String { Self.fieldName(ofType: adType) }

    /// The readable name of an AD type.
    public static func fieldName(ofType type: UInt8) -> String {
        switch type {
        case 0x01: "flags"
        case 0x02: "incomplete list of 16-bit service UUIDs"
        case 0x03: "complete list of 16-bit service UUIDs"
        case 0x04: "incomplete list of 32-bit service UUIDs"
        case 0x05: "complete list of 32-bit service UUIDs"
        case 0x06: "incomplete list of 128-bit service UUIDs"
        case 0x07: "complete list of 128-bit service UUIDs"
        case 0x08: "shortened local name"
        case 0x09: "complete local name"
        case 0x0A: "TX power level"
        case 0x12: "peripheral connection interval range"
        case 0x14: "16-bit service solicitation UUIDs"
        case 0x15: "128-bit service solicitation UUIDs"
        case 0x16: "16-bit service data"
        case 0x19: "appearance"
        case 0x1F: "32-bit service solicitation UUIDs"
        case 0x20: "32-bit service data"
        case 0x21: "128-bit service data"
        case 0xFF: "manufacturer specific data"
        default: "AD type 0x\(String(type, radix: 16, uppercase: true).leftPadded(to: 2))"
        }
    }
}
