import Foundation
import Testing
@testable import BleuWire

/// The encoder's single-buffer path against the tree builder it falls back to: same bytes for
/// every shape, and the fallback taken whenever containers are used out of order.
@Suite("CBOR encoder: single-buffer path")
struct CBORLinearEncodingTests {
    /// The tree builder's bytes (the encoder's fallback), for comparison.
    func treeBytes<T: Encodable>(_ value: T, _ encoder: CBOREncoder = CBOREncoder()) throws -> [UInt8] {
        let root = try EncodingNode.make(value, options: encoder, codingPath: [], depth: 0)
        var writer = CBORWriter()
        try root.write(to: &writer, depth: 0, limit: encoder.maximumDepth)
        return writer.bytes
    }

    /// Whether the single-buffer path finishes `value` without falling back.
    func staysLinear<T: Encodable>(_ value: T, _ encoder: CBOREncoder = CBOREncoder()) throws -> Bool {
        let linear = LinearEncoding(options: encoder)
        try linear.encodeValue(value, depth: 0)
        return linear.isLinear
    }

    struct Inner: Codable, Equatable { var a: Int; var b: [String]; var c: Double? }
    struct Outer: Codable, Equatable {
        var name: String
        var inner: Inner
        var many: [Inner]
        var table: [String: Int]
        var bytes: Data
        var flags: [Bool]
    }

    static let outer = Outer(
        name: "x", inner: Inner(a: -5, b: ["p", "q"], c: 21.5),
        many: (0..<30).map { Inner(a: $0, b: Array(repeating: "s", count: $0), c: $0 % 2 == 0 ? nil : Double($0) / 4) },
        table: Dictionary(uniqueKeysWithValues: (0..<40).map { ("k\($0)", $0) }), bytes: Data(0..<200),
        flags: Array(repeating: true, count: 24))

    @Test("same bytes as the tree builder, including heads of 24 elements and more")
    func sameBytes() throws {
        for encoder in [CBOREncoder(), CBOREncoder(keyEncoding: .integersWhenAvailable)] {
            #expect(try staysLinear(Self.outer, encoder))
            #expect(try encoder.encodeBytes(Self.outer) == treeBytes(Self.outer, encoder))
            #expect(try CBORDecoder().decode(Outer.self, from: encoder.encodeBytes(Self.outer)) == Self.outer)
            let values: [[Int]] = [[], [1], Array(0..<23), Array(0..<24), Array(0..<300)]
            for value in values {
                #expect(try encoder.encodeBytes(value) == treeBytes(value, encoder))
            }
        }
        // A 24-element array needs a two-byte head: 0x98 0x18.
        #expect(try Array(CBOREncoder().encodeBytes(Array(repeating: 0, count: 24)).prefix(2)) == [0x98, 0x18])
    }

    /// Writes to a nested container after writing to its parent: not depth-first.
    struct OutOfOrder: Encodable {
        enum Keys: String, CodingKey { case list, after }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            try list.encode(1)
            try container.encode("later", forKey: .after)
            try list.encode(2)  // back into the closed list
        }
    }

    /// Asks for its container twice, writing between the two.
    struct Twice: Encodable {
        enum Keys: String, CodingKey { case a, b }
        func encode(to encoder: any Encoder) throws {
            var first = encoder.container(keyedBy: Keys.self)
            try first.encode(1, forKey: .a)
            var second = encoder.container(keyedBy: Keys.self)
            try second.encode(2, forKey: .b)
        }
    }

    @Test("containers used out of order fall back to the tree builder, with its bytes")
    func fallback() throws {
        #expect(try !staysLinear(OutOfOrder()))
        let bytes = try CBOREncoder().encodeBytes(OutOfOrder())
        #expect(bytes == (try treeBytes(OutOfOrder())))
        #expect(hexString(bytes) == "a2646c697374820102656166746572656c61746572")  // {"list": [1, 2], "after": "later"}
        // Asking again for the same container is still depth-first.
        #expect(try staysLinear(Twice()))
        #expect(try CBOREncoder().encodeBytes(Twice()) == treeBytes(Twice()))
    }

    struct Failing: Encodable {
        struct Boom: Error {}
        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(1)
            throw Boom()
        }
    }

    /// Catches a failing element and goes on: the failed entry leaves no bytes behind.
    struct Forgiving: Encodable {
        enum Keys: String, CodingKey { case bad, good }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            do {
                try container.encode(Failing(), forKey: .bad)
                Issue.record("the failing value did not throw")
            } catch is Failing.Boom {}
            try container.encode(7, forKey: .good)
        }
    }

    @Test("an element whose encoding throws is taken back, key included")
    func rollback() throws {
        #expect(try staysLinear(Forgiving()))
        #expect(hexString(try CBOREncoder().encodeBytes(Forgiving())) == "a164676f6f6407")  // {"good": 7}
        #expect(throws: Failing.Boom.self) { try CBOREncoder().encodeBytes(Failing()) }
    }
}
