@testable import Bleu
import BleuCore
import BleuEmulator
import BleuTesting
import BleuWire
import Distributed
import Foundation
import Testing

/// Methods with arguments and a large result, counting what actually ran.
distributed actor Arithmetic: PeripheralActor {
    typealias ActorSystem = BLEActorSystem
    private var executions = 0

    distributed func add(_ a: Int, _ b: Int) -> Int {
        executions += 1
        return a + b
    }

    distributed func blob(_ size: Int) -> Data {
        executions += 1
        return Data(count: size)
    }

    distributed func count() -> Int { executions }
}

/// A peripheral system logging into memory, hosting ``Arithmetic``; an actor-system central that
/// interned its methods (so their mangled names are known); and a raw central.
struct BadInputWorld {
    let logs = CapturedLogs()
    let bus = EmulatorBus(configuration: .instant)
    let peripheral: BLEActorSystem
    let hosted: Arithmetic
    let remote: Arithmetic
    let raw: RawCaller
    let add: String
    let blob: String

    static func make(maximumMessageSize: Int = 128 * 1024, clock: any Clock<Duration> = ContinuousClock()) async throws -> BadInputWorld {
        try await BadInputWorld(maximumMessageSize: maximumMessageSize, clock: clock)
    }

    private init(maximumMessageSize: Int, clock: any Clock<Duration>) async throws {
        var configuration = BLEActorSystem.Configuration.fast
        configuration.maximumMessageSize = maximumMessageSize
        configuration.logger = logs.logger
        configuration.clock = clock
        peripheral = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus), configuration: configuration)
        hosted = Arithmetic(actorSystem: peripheral)
        try await peripheral.startAdvertising(hosted)
        let central = BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus), configuration: .fast)
        remote = try await central.connect(to: hosted.id, as: Arithmetic.self)
        #expect(try await remote.add(1, 2) == 3)
        #expect(try await remote.blob(3).count == 3)
        add = try #require(peripheral.target(named: "3add"))
        blob = try #require(peripheral.target(named: "4blob"))
        raw = try await RawCaller.connect(on: bus, service: ActorServiceLayout.serviceUUID(for: Arithmetic.self))
    }

    static func cbor(_ value: some Encodable) throws -> [UInt8] { try CBOREncoder().encodeBytes(value) }
}

/// Issue 5, point 8, end to end: a raw central writes what a well-behaved one never would; every
/// request gets an error reply and the peripheral logs it.
@Suite("Bad input from a raw central")
struct BadInputTests {
    @Test("an undefined method id: unknownMethodID, logged")
    func undefinedMethodID() async throws {
        let world = try await BadInputWorld.make()
        try await world.raw.send(Request.call(id: 3, method: 77, arguments: []).encoded())
        let reply = try await world.raw.nextReply()
        #expect(reply.id == 3)
        #expect(reply.error as? BLEActorSystemError == .unknownMethodID(77))
        #expect(world.logs.contains("refused call 3", "77"))
    }

    @Test("a define with an argument of the wrong type: malformedRequest, the method does not run, logged")
    func wrongArgumentType() async throws {
        let world = try await BadInputWorld.make()
        let definition = MethodDefinition(target: world.add, substitutions: [])
        try await world.raw.send(Request.define(id: 4, method: 0, definition: definition,
                                                arguments: [BadInputWorld.cbor("two"), BadInputWorld.cbor(2)]).encoded())
        let reply = try await world.raw.nextReply()
        #expect(reply.id == 4)
        guard case BLEActorSystemError.malformedRequest(let reason)? = reply.error else {
            Issue.record("reply \(reply)")
            return
        }
        #expect(reason == .argumentType(index: 0, expected: "Int"))
        #expect(world.logs.contains("call 4", "failed before the method ran"))
        #expect(try await world.remote.count() == 2, "only the two good calls ran")
    }

    @Test("a define with too few or too many arguments: malformedRequest before the method runs, logged")
    func wrongArgumentCount() async throws {
        let world = try await BadInputWorld.make()
        let definition = MethodDefinition(target: world.add, substitutions: [])
        let one = try BadInputWorld.cbor(1)
        for (id, arguments) in [(UInt32(5), [one]), (6, [one, one, one]), (7, [])] {
            try await world.raw.send(Request.define(id: id, method: 0, definition: definition, arguments: arguments).encoded())
            let reply = try await world.raw.nextReply()
            #expect(reply.id == id)
            guard case BLEActorSystemError.malformedRequest(let reason)? = reply.error else {
                Issue.record("reply to \(arguments.count) arguments: \(reply)")
                continue
            }
            #expect(reason == .argumentCount(carried: arguments.count, expected: 2))
            #expect(world.logs.contains("call \(id)", "failed before the method ran"))
        }
        #expect(try await world.remote.count() == 2, "no call with the wrong number of arguments ran")
        // The definition itself was fine: the same method id with two arguments runs.
        try await world.raw.send(Request.call(id: 8, method: 0, arguments: [one, one]).encoded())
        #expect(try await world.raw.nextReply() == .value(id: 8, try BadInputWorld.cbor(2)))
    }

    @Test("an unknown request kind: refused naming the kind and id, logged")
    func unknownKind() async throws {
        let world = try await BadInputWorld.make()
        try await world.raw.send([0x7F, 0x09, 0x01, 0x02])
        let reply = try await world.raw.nextReply()
        guard case .refused(let id, let kind, let reason) = reply else {
            Issue.record("reply \(reply)")
            return
        }
        #expect(id == 9 && kind == 0x7F && reason.contains("0x7f"))
        #expect(world.logs.contains("malformed request", "0x7F"))
        // A malformed stream credit is refused as such, not as a failed call.
        try await world.raw.send([Request.Kind.streamCredit.rawValue, 0x02])
        guard case .refused(2, Request.Kind.streamCredit.rawValue, _) = try await world.raw.nextReply() else {
            Issue.record("a malformed credit was not refused")
            return
        }
    }

    @Test("a reply over the maximum message size: messageTooLarge instead, logged")
    func oversizedReply() async throws {
        let world = try await BadInputWorld.make(maximumMessageSize: 1024)
        let definition = MethodDefinition(target: world.blob, substitutions: [])
        try await world.raw.send(Request.define(id: 10, method: 0, definition: definition, arguments: [BadInputWorld.cbor(2000)]).encoded())
        let reply = try await world.raw.nextReply()
        #expect(reply.id == 10)
        guard case BLEActorSystemError.messageTooLarge(let size, let maximum)? = reply.error else {
            Issue.record("reply \(reply)")
            return
        }
        #expect(size > 2000 && maximum == 1024)
        #expect(world.logs.contains("reply 10", "exceeds the maximum message size"))
    }

    @Test("reassembly timeouts run on the configured clock")
    func reassemblyOnConfiguredClock() async throws {
        let clock = ManualClock()
        let world = try await BadInputWorld.make(clock: clock)
        // The first fragment of a request whose rest never comes.
        let partial = try await world.raw.fragments(of: Request.call(id: 11, method: 0, arguments: [[UInt8]](repeating: [0x01], count: 40)).encoded(),
                                                    length: 20)
        #expect(partial.count > 1)
        try await world.raw.write(partial[0])
        clock.advance(by: ReassemblyLimits().timeout + .seconds(1))
        // The next request makes the peripheral look at its reassembly timeouts; its reply
        // comes after the log line.
        try await world.raw.send(Request.call(id: 12, method: 99, arguments: []).encoded())
        #expect(try await world.raw.nextReply().id == 12)
        #expect(world.logs.contains("timed out after"), "the partial request expired on the manual clock")
    }
}

@Suite("Codable errors the caller does not know")
struct UnknownErrorTypeTests {
    @Test("a Codable error of a type missing at the caller keeps its readable type name and description")
    func unknownType() throws {
        var payload = try #require(ErrorEnvelope.payload(of: ExampleFailure(code: 3, reason: "overheated"), encoder: CBOREncoder()))
        #expect(payload.typeName == "BleuTesting.ExampleFailure")
        // As a process without the type sees it.
        payload.mangledType = "9Elsewhere7MissingV"
        let registered = RemoteTypeRegistry(ExampleFailure.self)
        let error = try #require(ErrorEnvelope.rebuild(payload, decoder: CBORDecoder(), registry: registered, declared: nil)
                                 as? RemoteCallError)
        #expect(error.typeName == "BleuTesting.ExampleFailure")
        #expect(error.message == String(describing: ExampleFailure(code: 3, reason: "overheated")))
        #expect(error.message.contains("overheated"))
        // A known (registered) type whose bytes do not decode keeps them too.
        payload.mangledType = _mangledTypeName(ExampleFailure.self)!
        payload.value = [0xFF]
        let undecodable = try #require(ErrorEnvelope.rebuild(payload, decoder: CBORDecoder(), registry: registered, declared: nil)
                                       as? RemoteCallError)
        #expect(undecodable.typeName == "BleuTesting.ExampleFailure" && undecodable.message.contains("overheated"))
    }
}
