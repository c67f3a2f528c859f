import Bleu
import BleuCore
import BleuEmulator
import BleuTesting
import Distributed
import Foundation
import Testing

/// A struct argument and result, to check CBOR both ways.
struct Reading: Codable, Sendable, Hashable {
    var sensor: String
    var values: [Double]
    var note: String?
}

distributed actor EchoActor: PeripheralActor {
    typealias ActorSystem = BLEActorSystem
    private var received: [String] = []

    distributed func echo(_ text: String) -> String { text }
    distributed func combine(_ reading: Reading, scale: Double) -> Reading {
        Reading(sensor: reading.sensor.uppercased(), values: reading.values.map { $0 * scale }, note: reading.note)
    }
    distributed func record(_ text: String) { received.append(text) }
    distributed func log() -> [String] { received }
    distributed func optional(_ value: Int?) -> Int? { value.map { $0 + 1 } }
    distributed func wrap<T: Codable & Sendable>(_ value: T) -> [T] { [value, value] }
    distributed func bytes(_ data: Data) -> Int { data.count }
}

@Suite("Remote calls")
struct CallTests {
    @Test("a call returns its result; arguments and results of several types round-trip")
    func results() async throws {
        let pair = ConnectedPair()
        let echo = try await pair.host(EchoActor.self) { EchoActor(actorSystem: $0) }
        #expect(try await echo.echo("héllo") == "héllo")
        let reading = Reading(sensor: "a", values: [1.5, -2], note: nil)
        #expect(try await echo.combine(reading, scale: 2) == Reading(sensor: "A", values: [3, -4], note: nil))
        #expect(try await echo.optional(nil) == nil)
        #expect(try await echo.optional(4) == 5)
        #expect(try await echo.bytes(Data(count: 3000)) == 3000)
    }

    @Test("Void methods run, throwing and non-throwing")
    func voidResults() async throws {
        let pair = ConnectedPair()
        let echo = try await pair.host(EchoActor.self) { EchoActor(actorSystem: $0) }
        try await echo.record("one")
        try await echo.record("two")
        #expect(try await echo.log() == ["one", "two"])
        let counter = try await pair.host(CounterActor.self) { CounterActor(actorSystem: $0) }
        try await counter.add(5)
        #expect(try await counter.current() == 5)
    }

    @Test("a generic method on a concrete actor type works, one interned method per substitution")
    func genericOnConcreteType() async throws {
        let pair = ConnectedPair()
        let echo = try await pair.host(EchoActor.self) { EchoActor(actorSystem: $0) }
        #expect(try await echo.wrap(3) == [3, 3])
        #expect(try await echo.wrap("x") == ["x", "x"])
        #expect(try await echo.wrap(3) == [3, 3])
    }

    @Test("a registered Codable error arrives as its own type; another as RemoteCallError with type name and message")
    func errors() async throws {
        var configuration = BLEActorSystem.Configuration.fast
        configuration.remoteTypes.register(ExampleFailure.self)
        let pair = ConnectedPair(configuration: configuration)
        let failing = try await pair.host(FailingActor.self) { FailingActor(actorSystem: $0) }
        await #expect(throws: ExampleFailure(code: 7, reason: "always fails")) { try await failing.fail() }
        do {
            try await failing.failOpaquely()
            Issue.record("failOpaquely returned")
        } catch let error as RemoteCallError {
            #expect(error.typeName == "BleuTesting.OpaqueFailure")
            #expect(error.message == "opaque failure: not codable")
        }
    }

    @Test("many concurrent calls on one connection each get their own reply")
    func concurrentCalls() async throws {
        let pair = ConnectedPair()
        let echo = try await pair.host(EchoActor.self) { EchoActor(actorSystem: $0) }
        let replies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<40 {
                group.addTask { (index, try await echo.echo("call \(index)")) }
            }
            return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }
        #expect(replies.count == 40)
        for (index, reply) in replies { #expect(reply == "call \(index)") }
    }

    @Test("calls to several peripherals run in parallel, each answered by its own actor")
    func parallelPeripherals() async throws {
        let bus = EmulatorBus(configuration: .instant)
        var hosts: [BLEActorSystem] = []
        var counters: [CounterActor] = []
        for _ in 0..<3 {
            let system = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus), configuration: .fast)
            let counter = CounterActor(actorSystem: system)
            try await system.startAdvertising(counter)
            hosts.append(system)
            counters.append(counter)
        }
        let central = BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus), configuration: .fast)
        let remote = try await central.discover(CounterActor.self, timeout: .seconds(5), count: 3)
        #expect(Set(remote.map(\.id)) == Set(counters.map(\.id)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, counter) in remote.enumerated() {
                group.addTask { try await counter.add(index + 1) }
            }
            try await group.waitForAll()
        }
        for (index, counter) in remote.enumerated() {
            #expect(try await counter.current() == index + 1)
        }
        withExtendedLifetime(hosts) {}
    }
}
