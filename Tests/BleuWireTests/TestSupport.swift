import Foundation
import BleuCore

/// Bytes from a hex string such as `"a26161"`; whitespace ignored.
func hexBytes(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

/// A lowercase hex string of `bytes`.
func hexString<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

/// The seed of a seeded test: `BLEU_WIRE_SEED` from the environment (decimal, or hex with
/// `0x`) replays a run; without it each run draws a fresh seed (below `bound` when given).
/// Prints the seed and the command that replays it.
func wireSeed(_ test: String, below bound: UInt64? = nil) -> UInt64 {
    let environment = ProcessInfo.processInfo.environment["BLEU_WIRE_SEED"]
    let given = environment.flatMap { text in
        text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
    }
    let seed = given ?? UInt64.random(in: 0..<(bound ?? .max))
    let suite = test.split(separator: ".").first.map(String.init) ?? test
    print("\(test) seed \(seed) (replay: BLEU_WIRE_SEED=\(seed) swift test --filter \(suite))")
    return seed
}

/// A generator seeded by ``wireSeed(_:below:)``.
func seededGenerator(_ test: String) -> SeededRandomNumberGenerator {
    SeededRandomNumberGenerator(seed: wireSeed(test))
}
