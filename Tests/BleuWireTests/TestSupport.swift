import Foundation

/// Bytes from a hex string such as `"a26161"`; whitespace ignored.
func hexBytes(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

/// A lowercase hex string of `bytes`.
func hexString<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}
