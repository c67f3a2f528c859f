import BleuCore
import Foundation
import Testing
@testable import BleuEmulator

/// An event trace of every link-level event.
@Suite("Event trace")
struct TraceTests {
    @Test("the trace records connections, every PDU with direction, opcode, handle and length, and disconnections")
    func contents() async throws {
        let fixture = try await Fixture.make()
        fixture.store.set(Data("abc".utf8), for: TestUUID.value)
        _ = try await fixture.central.read(fixture[TestUUID.value])
        await fixture.central.cancelConnection(fixture.peripheralID)
        let trace = fixture.bus.trace
        #expect(trace.first { $0.kind == .advertisement } != nil)
        #expect(trace.first { $0.kind == .connected }?.connection == 1)
        let read = try #require(trace.first { $0.opcode == 0x0A })
        #expect(read.direction == .centralToPeripheral && read.handle == fixture[TestUUID.value].valueHandle && read.length == 3)
        let response = try #require(trace.first { $0.opcode == 0x0B })
        #expect(response.direction == .peripheralToCentral && response.length == 4)
        #expect(trace.last?.kind == .disconnected)
        #expect(trace.map(\.sequence) == Array(trace.indices))
        let text = fixture.bus.traceText()
        #expect(text.contains("C→P  ATT  0x0A Read Request  handle 0x\(String(format: "%04X", read.handle!))  len 3"))
        #expect(text.contains("P→C  ATT  0x0B Read Response"))
        #expect(text.contains("LL  0x02 LL_TERMINATE_IND"))
        #expect(text.split(separator: "\n").count == trace.count)
    }

    @Test("the trace is bounded, and can be off")
    func bounded() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.traceCapacity = 10
        let fixture = try await Fixture.make(configuration: configuration)
        for _ in 0..<20 { _ = try await fixture.central.read(fixture[TestUUID.fixed]) }
        let trace = fixture.bus.trace
        #expect(trace.count == 10)
        #expect(trace.first!.sequence > 40 && trace.last!.sequence == trace.first!.sequence + 9)
        fixture.bus.clearTrace()
        #expect(fixture.bus.trace.isEmpty)
        configuration.traceCapacity = 0
        let silent = try await Fixture.make(configuration: configuration)
        _ = try await silent.central.read(silent[TestUUID.fixed])
        #expect(silent.bus.trace.isEmpty)
    }

    @Test("with realistic timing the trace carries air times, in order")
    func realisticTimes() async throws {
        let clock = ManualClock()
        let bus = EmulatorBus(configuration: RealisticLinkTests.configuration(), clock: clock)
        let fixture = try await drive(clock) { try await Fixture.make(on: bus) }
        _ = try await drive(clock) { try await fixture.central.read(fixture[TestUUID.fixed]) }
        let pdus = bus.trace.filter { $0.kind == .att }
        #expect(pdus.allSatisfy { $0.airStart != nil && $0.airStart! < $0.time })
        #expect(zip(bus.trace, bus.trace.dropFirst()).allSatisfy { $0.time <= $1.time })
        let read = try #require(pdus.first { $0.opcode == 0x0A })
        #expect(read.time - read.airStart! == AirTime.exchange(payload: 7, phy: .le1M))
    }
}
