import BleuCore
import Foundation
import ProcessSupport
import Testing

@testable import BleuWire

/// Python's cbor2 (an independent implementation) reads what we write and we read what it writes.
/// `scripts/test.sh` installs cbor2 into `.venv` and exports `BLEU_PYTHON`; without it these tests
/// are skipped with that reason.
@Suite("CBOR: cross-check with Python cbor2",
       .enabled(if: Cbor2.python != nil, "BLEU_PYTHON is not set: run scripts/test.sh, which installs cbor2 and sets it"))
struct CBORInteropTests {
    struct Record: Codable, Equatable {
        var name: String
        var count: Int64
        var ratio: Double
        var blob: Data
        var tags: [String]
        var flags: [String: Bool]
        var note: String?
    }

    @Test("cbor2 decodes what we encode, and we decode what it re-encodes (trees and Codable values)")
    func swiftToPython() async throws {
        var rng = seededGenerator("CBORInteropTests.swiftToPython")
        var items: [[UInt8]] = (0..<300).map { _ in Cbor2.interoperableValue(&rng, depth: 3).encoded() }
        var samples: [CBORPropertyTests.Sample] = []
        for _ in 0..<100 {
            let sample = CBORPropertyTests.randomSample(&rng)
            samples.append(sample)
            items.append(try CBOREncoder().encodeBytes(sample))
        }
        let wide: [Int128] = [.min, .max, Int128(Int64.min) - 1, Int128(UInt64.max) + 1, -1, 0]
        items += try wide.map { try CBOREncoder().encodeBytes($0) }
        items.append(try CBOREncoder().encodeBytes(Date(timeIntervalSince1970: 1_700_000_000)))

        let results = try await Cbor2.run(["mode": "decode", "items": items.map { hexString($0) }])
        #expect(results.count == items.count)
        for (index, (bytes, result)) in zip(items, results).enumerated() {
            #expect(result["error"] == nil, "cbor2 rejected item \(index) \(hexString(bytes)): \(result["error"] ?? "")")
            guard let description = result["description"], let reencoded = result["reencoded"] else { continue }
            let ours = try CBORValue(decoding: bytes)
            #expect(description == Cbor2.describe(ours), "item \(index) \(hexString(bytes)), seed \(rng.seed)")
            let theirs = try CBORValue(decoding: hexBytes(reencoded))
            #expect(Cbor2.describe(theirs) == description, "cbor2's re-encoding of item \(index): \(reencoded)")
            if index >= 300, index < 300 + samples.count {
                #expect(try CBORDecoder().decode(CBORPropertyTests.Sample.self, from: hexBytes(reencoded)) == samples[index - 300])
            }
        }
    }

    @Test("we decode what cbor2 generates and encodes, preferred and canonical")
    func pythonToSwift() async throws {
        let seed = wireSeed("CBORInteropTests.pythonToSwift", below: 1_000_000_000)
        let results = try await Cbor2.run(["mode": "generate", "seed": seed, "count": 500])
        #expect(results.count == 500)
        for result in results {
            let hex = try #require(result["hex"])
            let value = try CBORValue(decoding: hexBytes(hex))
            #expect(Cbor2.describe(value) == result["description"], "\(hex), seed \(seed)")
            // Our own re-encoding keeps the value.
            #expect(Cbor2.describe(try CBORValue(decoding: value.encoded())) == result["description"])
        }
    }

    @Test("cbor2's maps decode into a Codable struct and encode back to the same content")
    func pythonRecords() async throws {
        let seed = wireSeed("CBORInteropTests.pythonRecords", below: 1_000_000_000)
        let results = try await Cbor2.run(["mode": "records", "seed": seed, "count": 300])
        #expect(results.count == 300)
        for result in results {
            let hex = try #require(result["hex"])
            let record = try CBORDecoder().decode(Record.self, from: hexBytes(hex))
            let again = try CBORValue(decoding: CBOREncoder().encodeBytes(record))
            #expect(Cbor2.describe(again) == result["description"], "\(hex), seed \(seed)")
        }
    }
}

/// Runs `scripts/cbor2_crosscheck.py` and describes values the way it does.
enum Cbor2 {
    static let python = ProcessInfo.processInfo.environment["BLEU_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }

    static var script: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/cbor2_crosscheck.py")
    }

    /// Sends one request, returns the answer's `results`, each a dictionary of strings.
    static func run(_ request: [String: any Sendable]) async throws -> [[String: String]] {
        let body = try JSONSerialization.data(withJSONObject: request)
        let outcome = try await ChildProcess.run(try #require(python), arguments: [script.path], input: body,
                                                 limit: .seconds(120))
        #expect(outcome.status == 0, "cbor2_crosscheck.py failed: \(outcome)")
        let object = try #require(try JSONSerialization.jsonObject(with: outcome.output) as? [String: Any])
        let results = try #require(object["results"] as? [[String: String]])
        return results
    }

    /// The script's description of a value (see its docstring).
    static func describe(_ value: CBORValue) -> String {
        switch value {
        case .unsignedInteger(let n): return String(n)
        case .negativeInteger(let n): return "-" + String(UInt128(n) + 1)
        case .byteString(let b): return "h'\(hexString(b))'"
        case .textString(let s): return "t'\(hexString(Array(s.utf8)))'"
        case .array(let items): return "[" + items.map(describe).joined(separator: ",") + "]"
        case .map(let entries):
            return "{" + entries.map { describe($0.key) + ":" + describe($0.value) }.sorted().joined(separator: ",") + "}"
        case .tagged(let tag, .byteString(let digits)) where (tag == 2 || tag == 3) && digits.count <= 16:
            let magnitude = digits.reduce(UInt128(0)) { $0 << 8 | UInt128($1) }
            return tag == 2 ? String(magnitude) : "-" + String(magnitude + 1)
        case .tagged(1, let seconds) where seconds.int64Value != nil:
            return "datetime:\(seconds.int64Value!)"
        case .tagged(0, .textString(let text)):  // cbor2 re-encodes dates as RFC 3339 text
            guard let date = try? CBORDecoder().decode(Date.self, from: value) else { return "tag(0,\(text))" }
            return "datetime:\(Int64(date.timeIntervalSince1970.rounded()))"
        case .tagged(let tag, let item): return "tag(\(tag),\(describe(item)))"
        case .boolean(let b): return b ? "true" : "false"
        case .null: return "null"
        case .undefined: return "undefined"
        case .simple(let v): return "simple(\(v))"
        case .float(let d): return d.isNaN ? "nan" : "f" + String(d.bitPattern, radix: 16).leftPadded(to: 16)
        }
    }

    /// A random tree that Python can hold: map keys are text or small integers without
    /// duplicates, tags are ones cbor2 gives no meaning to.
    static func interoperableValue(_ rng: inout SeededRandomNumberGenerator, depth: Int) -> CBORValue {
        let value = CBORPropertyTests.randomValue(&rng, depth: 0)
        guard depth > 0 else { return value }
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in interoperableValue(&rng, depth: depth - 1) })
        case 1:
            var seen = Set<CBORValue>()
            var entries: [CBORMapEntry] = []
            for _ in 0..<Int.random(in: 0...4, using: &rng) {
                let key: CBORValue = Bool.random(using: &rng)
                    ? .textString(CBORPropertyTests.randomText(&rng)) : CBORValue(Int64.random(in: -100...100, using: &rng))
                if seen.insert(key).inserted { entries.append(CBORMapEntry(key, interoperableValue(&rng, depth: depth - 1))) }
            }
            return .map(entries)
        case 2: return .tagged([60000, 61234, 1 << 32 + 7].randomElement(using: &rng)!, interoperableValue(&rng, depth: depth - 1))
        default: return value
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
