import BleuCore
import Foundation
import Testing
@testable import BleuEmulator

@Suite("Smoke")
struct SmokeTests {
    @Test("connect, read, write, notify on .instant")
    func basics() async throws {
        let fixture = try await Fixture.make()
        fixture.store.set(Data("hello".utf8), for: TestUUID.value)
        let value = try await fixture.central.read(fixture[TestUUID.value])
        #expect(value == Data("hello".utf8))
        try await fixture.central.write(Data("bye".utf8), to: fixture[TestUUID.value], type: .withResponse)
        #expect(fixture.store.value(TestUUID.value) == Data("bye".utf8))
        let stream = try await fixture.central.subscribe(to: fixture[TestUUID.stream])
        let sent = await fixture.peripheral.updateValue(Data([1, 2, 3]), for: fixture.characteristic(TestUUID.stream))
        #expect(sent)
        var iterator = stream.makeAsyncIterator()
        let received = try await iterator.next()
        #expect(received == Data([1, 2, 3]))
        #expect(try await fixture.central.attMTU(for: fixture.peripheralID) == 185)
    }
}
