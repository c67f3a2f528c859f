import Foundation
import Testing

@Suite("The CoreBluetooth declarations fixture")
struct FixtureTests {
    @Test("the fixture is bundled and lists declarations")
    func fixtureLoads() throws {
        let url = try #require(Bundle.module.url(forResource: "corebluetooth-declarations", withExtension: "txt",
                                                 subdirectory: "Fixtures"))
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains("## CBCentralManager"))
    }
}
