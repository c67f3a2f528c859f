import BleuCore
import BleuGATT
import Foundation

/// What `bleu gatt` prints after a descriptor's bytes: the value decoded by the descriptor's
/// type (Core Spec Vol 3 Part G §3.3.3).
enum DescriptorText {
    /// `  = …` for a descriptor type it knows, `  (does not decode: …)` when the bytes do not
    /// fit that type, and nothing for other types (their text, when printable).
    static func meaning(of value: Data, uuid: BluetoothUUID) -> String {
        let bits = value.count == 2 ? UInt16(value[value.startIndex]) | UInt16(value[value.startIndex + 1]) << 8 : nil
        switch uuid {
        case BluetoothUUID.Descriptor.characteristicExtendedProperties:
            guard let bits else { return "  (does not decode: 2 bytes expected)" }
            return "  = " + flags(bits, [(0x0001, "reliable write"), (0x0002, "writable auxiliaries")])
        case BluetoothUUID.Descriptor.characteristicUserDescription:
            guard let text = String(data: value, encoding: .utf8) else { return "  (does not decode: not UTF-8)" }
            return "  = \"\(text)\""
        case BluetoothUUID.Descriptor.clientCharacteristicConfiguration:
            guard let bits else { return "  (does not decode: 2 bytes expected)" }
            return "  = notifications \(bits & 1 != 0 ? "on" : "off"), indications \(bits & 2 != 0 ? "on" : "off")"
                + (bits & ~0x0003 != 0 ? ", reserved bits 0x\(hex4(bits & ~0x0003))" : "")
        case BluetoothUUID.Descriptor.serverCharacteristicConfiguration:
            guard let bits else { return "  (does not decode: 2 bytes expected)" }
            return "  = broadcasts \(bits & 1 != 0 ? "on" : "off")"
        case BluetoothUUID.Descriptor.characteristicPresentationFormat:
            do {
                let format = try PresentationFormat(decoding: value)
                return "  = format 0x\(hex2(format.format.rawValue)), exponent \(format.exponent), unit \(BluetoothUUID(format.unit)), "
                    + "namespace 0x\(hex2(format.namespace)), description 0x\(hex4(format.description))"
            } catch {
                return "  (does not decode: \(error))"
            }
        default:
            return printable(value).map { "  = \"\($0)\"" } ?? ""
        }
    }

    /// The value as text when it is UTF-8 without control characters (and not empty).
    static func printable(_ value: Data) -> String? {
        guard !value.isEmpty, let text = String(data: value, encoding: .utf8),
              !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return nil }
        return text
    }

    private static func flags(_ bits: UInt16, _ names: [(UInt16, String)]) -> String {
        let set = names.filter { bits & $0.0 != 0 }.map(\.1)
        return set.isEmpty ? "none" : set.joined(separator: ", ")
    }
}
