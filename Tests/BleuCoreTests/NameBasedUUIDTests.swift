import Foundation
import Testing
@testable import BleuCore

@Suite("Version-5 name-based UUIDs")
struct NameBasedUUIDTests {
    @Test("RFC 9562 Appendix A.4 example")
    func rfcExample() {
        let uuid = UUID(version5Of: "www.example.com", in: UUID.Namespace.dns)
        #expect(uuid.uuidString == "2ED6657D-E927-568B-95E1-2665A8AEA6A2")
    }

    /// Expected values computed with Python's `uuid.uuid5`, an independent implementation.
    @Test("agrees with Python's uuid.uuid5", arguments: [
        (UUID.Namespace.url, "https://bleu.example/TemperatureSensor", "24B97D36-7A2E-5211-81BF-E12BB7FFF9E6"),
        (UUID.Namespace.oid, "1.3.6.1", "1447FA61-5277-5FEF-A9B3-FBC6E44F4AF3"),
        (UUID.Namespace.x500, "cn=Bleu", "46EAC300-B08A-573C-819E-3A7D448FDA79"),
        (UUID.Namespace.dns, "été ✓", "3F19FF48-493C-5272-8928-67FF6E74AEB0"),
    ])
    func matchesPython(namespace: UUID, name: String, expected: String) {
        #expect(UUID(version5Of: name, in: namespace).uuidString == expected)
    }

    @Test("version and variant bits; deterministic; distinct per name")
    func bits() {
        let a = BluetoothUUID(version5Of: "MyThermometer", in: UUID.Namespace.url)
        let b = BluetoothUUID(version5Of: "MyThermometer", in: UUID.Namespace.url)
        let c = BluetoothUUID(version5Of: "MyThermometer2", in: UUID.Namespace.url)
        #expect(a == b)
        #expect(a != c)
        #expect(a.bytes[6] >> 4 == 5)
        #expect(a.bytes[8] >> 6 == 0b10)
        #expect(a.shortestWidth == .bits128)
    }
}
