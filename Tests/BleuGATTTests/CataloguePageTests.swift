import BleuCore
import Foundation
import Testing
@testable import BleuGATT

/// `Docs/GATTCatalogue.md` lists every typed service of the catalogue with its characteristics.
/// It is rendered from the declarations here; `BLEU_WRITE_CATALOGUE=1 swift test --filter
/// CataloguePageTests` rewrites it.
@Suite("The catalogue page")
struct CataloguePageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("every service type declared under Catalogue/ is in the SIG data source")
    func dataSourceComplete() throws {
        let catalogue = Self.root.appendingPathComponent("Sources/BleuGATT/Catalogue")
        let files = try #require(FileManager.default.enumerator(at: catalogue, includingPropertiesForKeys: nil))
        var declared: Set<String> = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let source = try String(contentsOf: file, encoding: .utf8)
            for line in source.split(separator: "\n") where line.hasPrefix("public enum ") && line.contains(": GATTService") {
                declared.insert(String(line.dropFirst("public enum ".count).prefix { $0 != ":" }))
            }
        }
        let listed = Set(SIGServiceDataSource.serviceTypes.map { String(describing: $0) })
        #expect(declared.count >= 14)
        #expect(declared == listed, "declared but not listed: \(declared.subtracting(listed)); listed but not declared: \(listed.subtracting(declared))")
    }

    @Test("Docs/GATTCatalogue.md is what the declarations render")
    func pageCurrent() throws {
        let page = Self.root.appendingPathComponent("Docs/GATTCatalogue.md")
        let rendered = Self.render()
        if ProcessInfo.processInfo.environment["BLEU_WRITE_CATALOGUE"] == "1" {
            try rendered.write(to: page, atomically: true, encoding: .utf8)
        }
        let committed = try String(contentsOf: page, encoding: .utf8)
        #expect(committed == rendered, "Docs/GATTCatalogue.md is stale: rerun with BLEU_WRITE_CATALOGUE=1")
    }

    static func render() -> String {
        var lines = [
            "# The typed GATT catalogue",
            "",
            "Every service BleuGATT declares, with the characteristics its type declares. Each",
            "characteristic is a static member of the service type, of type `Characteristic<Value>`; the",
            "DocC reference of BleuGATT gives each value type and its fields. Codecs are tested against",
            "bytes built from the GATT Specification Supplement's field tables.",
            "",
            "A typed central reaches them by key path (`strap.battery?.read(\\.level)`), and a",
            "`GATTPeripheral` discovered with `scope: .everything` gets these types for services it",
            "does not declare (`SIGServiceDataSource`).",
            "",
            "This page is generated from the declarations by `CataloguePageTests`; rewrite it with",
            "`BLEU_WRITE_CATALOGUE=1 swift test --filter CataloguePageTests`.",
            "",
            "| Service | UUID | Swift type | Characteristics |",
            "|---|---|---|---|",
        ]
        let services = SIGServiceDataSource.serviceTypes.sorted { $0.uuid.uuidString < $1.uuid.uuidString }
        for service in services {
            lines.append("| \(name(service.uuid)) | 0x\(service.uuid.uuidString) | `\(service)` | \(service.characteristics.count) |")
        }
        for service in services {
            lines += ["", "## \(name(service.uuid)) (0x\(service.uuid.uuidString))", "", "`\(service)`", "",
                      "| Characteristic | UUID | Properties |", "|---|---|---|"]
            for characteristic in service.characteristics {
                let properties = characteristic.properties.description.dropFirst().dropLast()
                lines.append("| \(characteristic.name) | 0x\(characteristic.uuid.uuidString) | \(properties) |")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func name(_ uuid: BluetoothUUID) -> String {
        uuid.name ?? uuid.uuidString
    }
}
