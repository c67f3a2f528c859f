import BleuCore
import Foundation
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(python))
        process.arguments = [script.path]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let body = try JSONSerialization.data(withJSONObject: ["items": items])
        let writer = Thread {
            input.fileHandleForWriting.write(body)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        // Blocking reads on a thread of their own, so the cooperative pool keeps running other tests.
        let reader = output.fileHandleForReading
        let answer: Data = await withCheckedContinuation { continuation in
            Thread {
                let data = reader.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: data)
            }.start()
        }
        #expect(process.terminationStatus == 0, "bumble_codec_crosscheck.py failed")
        let object = try #require(try JSONSerialization.jsonObject(with: answer) as? [String: Any])
        return try #require(object["results"] as? [String: [String: String]])
    }
}
