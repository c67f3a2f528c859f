import Foundation
import Testing

/// README examples that a test file runs: the file marks each quoted region with
/// `// README: <name> — begin` and `// README: <name> — end`, and the README quotes them, in
/// order, as the first `swift` code blocks after a heading.
enum ReadmeRegions {
    /// Checks that the `swift` blocks after `heading` in the README are the regions `names` of
    /// the test file `file`, line for line (indentation and blank lines aside).
    static func expectInSync(heading: String, regions names: [String], file: String = #filePath,
                             sourceLocation: SourceLocation = #_sourceLocation) throws {
        let here = URL(fileURLWithPath: file)
        let source = try String(contentsOf: here, encoding: .utf8)
        let readme = try String(contentsOf: here.deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: heading), "the README has no heading \(heading)", sourceLocation: sourceLocation)
        var rest = readme[section.upperBound...]
        for name in names {
            let open = try #require(rest.range(of: "```swift\n"), sourceLocation: sourceLocation)
            let close = try #require(rest[open.upperBound...].range(of: "```"), sourceLocation: sourceLocation)
            let block = lines(rest[open.upperBound..<close.lowerBound])
            rest = rest[close.upperBound...]
            let begin = try #require(source.range(of: "// README: \(name) — begin\n"), sourceLocation: sourceLocation)
            let end = try #require(source.range(of: "// README: \(name) — end", range: begin.upperBound..<source.endIndex),
                                   sourceLocation: sourceLocation)
            let region = lines(source[begin.upperBound..<end.lowerBound])
            #expect(region.count > 10, sourceLocation: sourceLocation)
            #expect(block == region, "the README's block for \(name) differs from the test's region", sourceLocation: sourceLocation)
        }
    }

    /// The non-blank lines of a block, without their indentation.
    static func lines(_ text: Substring) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
