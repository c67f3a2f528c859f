import Foundation
import ProcessSupport
import Testing
@testable import BleuCore

/// The generated tables against the assigned-numbers data they come from, when the data is
/// present beside the repository (`../shared/data/bluetooth-numbers`); skipped otherwise.
@Suite("Assigned numbers: the tables against the data",
       .enabled(if: AssignedNumbersData.directory != nil,
                "no assigned-numbers data at ../shared/data/bluetooth-numbers beside the repository"))
struct AssignedNumbersDataTests {
    @Test("every SIG UUID of the data has its name, and the tables hold nothing else")
    func uuids() throws {
        let files = [("service_uuids.json", AssignedNames.services),
                     ("characteristic_uuids.json", AssignedNames.characteristics),
                     ("descriptor_uuids.json", AssignedNames.descriptors)]
        var listed: Set<UInt16> = []
        for (file, table) in files {
            var expected: [UInt16: String] = [:]
            for entry in try AssignedNumbersData.objects(file) {
                let text = try #require(entry["uuid"] as? String)
                let name = try #require(entry["name"] as? String)
                // What the generator takes: 16-bit UUIDs from the GATT Specification Supplement
                // ("gss") or in the SIG's member range; not vendors' aliases or 128-bit UUIDs.
                guard text.count == 4, let value = UInt16(text, radix: 16),
                      entry["source"] as? String == "gss" || (0xFC00...0xFEFF).contains(value) else { continue }
                #expect(expected.updateValue(name, forKey: value) ?? name == name, "\(file) \(text) has two names")
                #expect(BluetoothUUID(value).name == name, "\(file) \(text)")
            }
            let tabled = Dictionary(uniqueKeysWithValues: table.entries.map { ($0.key, $0.name) })
            #expect(tabled == expected, "\(file): the table differs from the data")
            listed.formUnion(expected.keys)
        }
        // The supplement names only what the data lacks.
        #expect(listed.isDisjoint(with: AssignedNames.supplement.keys))
    }

    @Test("every company identifier of the data has its name, and the table holds nothing else")
    func companies() throws {
        var expected: [UInt16: String] = [:]
        for entry in try AssignedNumbersData.objects("company_ids.json") {
            let code = try #require(entry["code"] as? Int)
            let name = try #require(entry["name"] as? String)
            expected[UInt16(code)] = name
            #expect(CompanyIdentifier(UInt16(code)).name == name, "company \(code)")
        }
        #expect(expected.count == AssignedNames.companies.keys.count)
        #expect(Dictionary(uniqueKeysWithValues: AssignedNames.companies.entries.map { ($0.key, $0.name) }) == expected)
    }

    @Test("every appearance category and subcategory of the data has its name, and the tables hold nothing else")
    func appearances() throws {
        var categories: [UInt16: String] = [:]
        var subcategories: [UInt16: String] = [:]
        for entry in try AssignedNumbersData.objects("gap_appearance.json") {
            let category = UInt16(try #require(entry["category"] as? Int))
            let name = try #require(entry["name"] as? String)
            categories[category] = name
            #expect(Appearance(category: category).categoryName == name)
            for sub in entry["subcategory"] as? [[String: Any]] ?? [] {
                let value = try #require(sub["value"] as? Int)
                let subName = try #require(sub["name"] as? String)
                let appearance = Appearance(category: category, subcategory: UInt8(value))
                subcategories[appearance.rawValue] = subName
                #expect(appearance.categoryName == name && appearance.subcategoryName == subName, "\(appearance)")
            }
        }
        #expect(Dictionary(uniqueKeysWithValues: AssignedNames.appearanceCategories.entries.map { ($0.key, $0.name) }) == categories)
        #expect(Dictionary(uniqueKeysWithValues: AssignedNames.appearanceSubcategories.entries.map { ($0.key, $0.name) })
                == subcategories)
    }

    @Test("the generator, run again on the data, writes exactly the committed files",
          .enabled(if: AssignedNumbersData.python != nil, "no python3 on PATH (nor BLEU_PYTHON)"))
    func generatedSourceIsCurrent() async throws {
        let data = try #require(AssignedNumbersData.directory)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("bleu-names-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let script = AssignedNumbersData.repository.appendingPathComponent("scripts/generate-assigned-numbers.py")
        let outcome = try await ChildProcess.run(try #require(AssignedNumbersData.python),
                                                 arguments: [script.path, data.path, "--output", output.path],
                                                 limit: .seconds(60))
        try #require(outcome.succeeded, "the generator failed: \(outcome)")
        let committed = AssignedNumbersData.repository.appendingPathComponent("Sources/BleuCore/AssignedNumbers/Generated")
        let written = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
        #expect(written == ["AppearanceNames.swift", "CompanyNames.swift", "UUIDNames.swift"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: committed.path).sorted() == written)
        for file in written {
            let fresh = try Data(contentsOf: output.appendingPathComponent(file))
            let kept = try Data(contentsOf: committed.appendingPathComponent(file))
            #expect(fresh == kept, "\(file) is not what scripts/generate-assigned-numbers.py writes: run it again and commit")
        }
    }
}

/// Where the data and the generator are.
enum AssignedNumbersData {
    /// The repository's root.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `../shared/data/bluetooth-numbers` beside the repository, when it is there.
    static let directory: URL? = {
        let candidate = repository.deletingLastPathComponent().appendingPathComponent("shared/data/bluetooth-numbers")
        let present = FileManager.default.fileExists(atPath: candidate.appendingPathComponent("company_ids.json").path)
        return present ? candidate.standardizedFileURL : nil
    }()

    /// A Python 3 to run the generator with (standard library only): `BLEU_PYTHON` or `python3` on `PATH`.
    static let python: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let python = environment["BLEU_PYTHON"], !python.isEmpty { return python }
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// The JSON objects of one data file.
    static func objects(_ file: String) throws -> [[String: Any]] {
        let url = try #require(directory).appendingPathComponent(file)
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]], "\(file)")
    }
}
