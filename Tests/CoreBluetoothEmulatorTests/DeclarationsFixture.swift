import Foundation
import Testing

/// The bundled CoreBluetooth declarations fixture, read into declarations by section
/// (see the fixture's header for its format).
struct DeclarationsFixture {
    /// One declaration line of the fixture.
    struct Declaration {
        /// The section it is under, such as `"CBManagerState"` or `"CBError.Code"`.
        var section: String
        /// The declaration, without its annotation, such as `"case poweredOn"`.
        var text: String
        /// The declared name: the case, the static member or the global constant.
        var name: String?
        /// The raw value from a `raw N` (or `raw 0xNN`) annotation.
        var raw: Int?
    }

    var declarations: [Declaration] = []

    /// Loads the fixture from the test bundle.
    static func load() throws -> DeclarationsFixture {
        let url = try #require(Bundle.module.url(forResource: "corebluetooth-declarations", withExtension: "txt",
                                                 subdirectory: "Fixtures"))
        return DeclarationsFixture(text: try String(contentsOf: url, encoding: .utf8))
    }

    init(text: String) {
        var section = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("## ") {
                section = String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces)
                continue
            }
            if line.hasPrefix("#") { continue }
            let parts = line.split(separator: "  #", maxSplits: 1, omittingEmptySubsequences: false)
            let text = parts[0].trimmingCharacters(in: .whitespaces)
            let annotation = parts.count > 1 ? String(parts[1]) : ""
            declarations.append(Declaration(section: section, text: text, name: Self.name(in: text),
                                            raw: Self.raw(in: annotation)))
        }
    }

    /// The declarations of a section whose text starts with `prefix` (such as `"case "`).
    func declarations(in section: String, startingWith prefix: String) -> [Declaration] {
        declarations.filter { $0.section == section && $0.text.hasPrefix(prefix) }
    }

    /// The name after `case `, `static var `, `static let ` or `let `.
    private static func name(in text: String) -> String? {
        for prefix in ["case ", "static var ", "static let ", "let "] where text.hasPrefix(prefix) {
            let rest = text.dropFirst(prefix.count)
            return String(rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
        }
        return nil
    }

    /// The number after the first `raw ` in an annotation, decimal or `0x` hex.
    private static func raw(in annotation: String) -> Int? {
        guard let range = annotation.range(of: "raw ") else { return nil }
        let rest = annotation[range.upperBound...]
        if rest.hasPrefix("0x") {
            return Int(rest.dropFirst(2).prefix { $0.isHexDigit }, radix: 16)
        }
        return Int(rest.prefix { $0.isNumber })
    }
}
