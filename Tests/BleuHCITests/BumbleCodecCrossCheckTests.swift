import BleuCore
import Foundation
import ProcessSupport
import Testing

@testable import BleuHCI

/// Bumble (Google's Python Bluetooth stack, an independent implementation) builds every sample of
/// ``CodecSamples`` with its own classes: our bytes must equal its bytes, it must read our bytes
/// back as the same packet, and we must read its bytes back as our sample.
@Suite("Codecs: cross-check with Bumble",
       .enabled(if: BumbleCodecs.python != nil, "BLEU_PYTHON is not set: run scripts/test.sh, which installs bumble and sets it"))
struct BumbleCodecCrossCheckTests {
    @Test("every sample: same bytes as Bumble, Bumble parses ours, we parse Bumble's")
    func catalogue() async throws {
        let items = Dictionary(uniqueKeysWithValues: CodecSamples.all.map { ($0.0, hexString($0.1.encoded)) })
        let results = try await BumbleCodecs.run(items)
        #expect(Set(results.keys) == Set(items.keys), "the Swift and Python catalogues name different samples")
        for (name, sample) in CodecSamples.all {
            guard let result = results[name] else { continue }
            let theirs = try #require(result["bumble"])
            #expect(hexString(sample.encoded) == theirs, "\(name): ours \(hexString(sample.encoded)), Bumble's \(theirs)")
            #expect(result["parse"] == "ok", "\(name): \(result["parse"] ?? "")")
            #expect(try sample.decodeSameKind(hexBytes(theirs)) == sample, "\(name): decoding Bumble's bytes")
        }
    }
}

enum BumbleCodecs {
    static let python = ProcessInfo.processInfo.environment["BLEU_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }

    static var script: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/bumble_codec_crosscheck.py")
    }

    static func run(_ items: [String: String]) async throws -> [String: [String: String]] {
        let body = try JSONSerialization.data(withJSONObject: ["items": items])
        let outcome = try await ChildProcess.run(try #require(python), arguments: [script.path], input: body,
                                                 limit: .seconds(120))
        #expect(outcome.status == 0, "bumble_codec_crosscheck.py failed: \(outcome)")
        let object = try #require(try JSONSerialization.jsonObject(with: outcome.output) as? [String: Any])
        return try #require(object["results"] as? [String: [String: String]])
    }
}
