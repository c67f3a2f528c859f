/// The package's one hex formatter: `value` in upper-case hex, zero-padded to `digits`
/// (by default the type's full width: two digits a byte).
package func hex<T: FixedWidthInteger>(_ value: T, digits: Int = T.bitWidth / 4) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
}

/// Two upper-case hex digits.
package func hex2(_ byte: UInt8) -> String { hex(byte) }

/// Four upper-case hex digits.
package func hex4(_ value: UInt16) -> String { hex(value) }

/// Bytes as hex, two lower-case digits each, without separators: how the tools and tests print
/// a value (`"0a1b"`).
package func hexString<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    bytes.map { hex($0).lowercased() }.joined()
}

/// The package's one hex parser: the bytes two hex digits each (either case, no separators)
/// spell, or `nil` when `text` is not an even number of hex digits.
package func decodeHex(_ text: some StringProtocol) -> [UInt8]? {
    guard text.utf8.count % 2 == 0 else { return nil }
    var octets: [UInt8] = []
    octets.reserveCapacity(text.utf8.count / 2)
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        guard let octet = UInt8(text[index..<next], radix: 16) else { return nil }
        octets.append(octet)
        index = next
    }
    return octets
}
