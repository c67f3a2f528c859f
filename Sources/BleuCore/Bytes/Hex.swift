/// Two upper-case hex digits.
package func hex2(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}

/// Four upper-case hex digits.
package func hex4(_ value: UInt16) -> String {
    hex2(UInt8(value >> 8)) + hex2(UInt8(truncatingIfNeeded: value))
}
