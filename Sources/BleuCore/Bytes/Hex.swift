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
