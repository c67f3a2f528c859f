@testable import Bleu
import BleuCore
import BleuEmulator
import BleuTesting
import BleuWire
import Distributed
import Foundation
import Testing

/// Streams whose source ends in ways a well-behaved source does not.
distributed actor OddSources: PeripheralActor {
    typealias ActorSystem = BLEActorSystem

    /// `count` integers, then the source throws `CancellationError` by itself.
    distributed func selfCancelling(after count: Int) -> BLEStream<Int> {
        BLEStream(AsyncThrowingStream<Int, any Error> { continuation in
            for value in 0..<count { continuation.yield(value) }
            continuation.finish(throwing: CancellationError())
        })
    }
}

/// The hosting side ends calls and streams: no caller is left waiting.
@Suite("Ending streams and calls from the hosting side", .timeLimit(.minutes(1)))
struct HostingEndTests {
    @Test("a source that is cancelled on the peripheral ends the caller's iteration with cancelledByPeripheral")
    func sourceCancelledOnPeripheral() async throws {
        let pair = ConnectedPair()
        let odd = try await pair.host(OddSources.self) { OddSources(actorSystem: $0) }
        var received: [Int] = []
        do {
            for try await value in try await odd.selfCancelling(after: 3) { received.append(value) }
            Issue.record("the stream ended normally")
        } catch BLEActorSystemError.cancelledByPeripheral {
            // Any other error fails the test: it propagates out of it.
        }
        #expect(received == [0, 1, 2])
    }

    @Test("endStreams(of:) ends each caller's iteration normally and cancels the source")
    func endStreamsNormally() async throws {
        let pair = ConnectedPair()
        let host = StreamingSensorActor(actorSystem: pair.peripheral)
        try await pair.peripheral.startAdvertising(host)
        let sensor = try await pair.central.connect(to: host.id, as: StreamingSensorActor.self)
        var iterator = try await sensor.endless().makeAsyncIterator()
        for expected in 0..<3 { #expect(try await iterator.next() == expected) }
        await pair.peripheral.endStreams(of: host)
        var last = 2
        while let value = try await iterator.next() {
            #expect(value == last + 1, "in order up to the end")
            last = value
        }
        #expect(try await iterator.next() == nil)
        // The source was cancelled before the end was sent; it notices at its next step.
        #expect(try await waitForEndedSources(of: host) == 1)
    }

    @Test("endStreams(of:throwing:) ends each caller's iteration with the error, as itself when Codable and registered")
    func endStreamsWithError() async throws {
        var configuration = BLEActorSystem.Configuration.fast
        configuration.remoteTypes.register(ExampleFailure.self)
        let pair = ConnectedPair(configuration: configuration)
        let host = StreamingSensorActor(actorSystem: pair.peripheral)
        try await pair.peripheral.startAdvertising(host)
        let sensor = try await pair.central.connect(to: host.id, as: StreamingSensorActor.self)
        var iterator = try await sensor.endless().makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        await pair.peripheral.endStreams(of: host, throwing: ExampleFailure(code: 12, reason: "sensor unplugged"))
        await #expect(throws: ExampleFailure(code: 12, reason: "sensor unplugged")) {
            while try await iterator.next() != nil {}
        }
    }

    @Test("stopAdvertising answers a running call and ends a stream with hostingStopped (raw central)")
    func stopHostingAnswers() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let peripheral = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus), configuration: .fast)
        let latch = Latch()
        let blocking = BlockingActor(actorSystem: peripheral, latch: latch)
        try await peripheral.startAdvertising(blocking)
        // Intern the method's name through a real call.
        let central = BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus), configuration: .fast)
        let remote = try await central.connect(to: blocking.id, as: BlockingActor.self)
        #expect(try await remote.quick() == 7)
        // `block()` runs until cancelled, so its name is derived from `quick()`'s: both are
        // `() -> Int` methods of the same actor.
        let block = try #require(peripheral.target(named: "5quick")).replacingOccurrences(of: "5quick", with: "5block")

        let raw = try await RawCaller.connect(on: bus, service: ActorServiceLayout.serviceUUID(for: BlockingActor.self))
        try await raw.send(Request.define(id: 1, method: 0, definition: MethodDefinition(target: block, substitutions: []),
                                          arguments: []).encoded())
        var entered = latch.entered.makeAsyncIterator()
        await entered.next()
        await peripheral.stopAdvertising()
        let reply = try await raw.nextAnswer()
        #expect(reply.id == 1)
        #expect(reply.error as? BLEActorSystemError == .hostingStopped(blocking.id))
        var ended = latch.ended.makeAsyncIterator()
        #expect(await ended.next() == true, "the method's task was cancelled")
    }

    @Test("stopAdvertising ends a running stream with hostingStopped (raw central)")
    func stopHostingEndsStreams() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let peripheral = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus), configuration: .fast)
        let host = StreamingSensorActor(actorSystem: peripheral)
        try await peripheral.startAdvertising(host)
        let central = BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus), configuration: .fast)
        let remote = try await central.connect(to: host.id, as: StreamingSensorActor.self)
        for try await _ in try await remote.readings(count: 1) {}
        let readings = try #require(peripheral.target(named: "8readings"))

        let raw = try await RawCaller.connect(on: bus, service: ActorServiceLayout.serviceUUID(for: StreamingSensorActor.self))
        try await raw.send(Request.define(id: 2, method: 0, definition: MethodDefinition(target: readings, substitutions: []),
                                          arguments: [CBOREncoder().encodeBytes(1000)]).encoded())
        guard case .value(2, let bytes) = try await raw.nextReply() else {
            Issue.record("no stream id")
            return
        }
        let stream = try CBORDecoder().decode(UInt32.self, from: bytes)
        try await raw.send(Request.streamCredit(stream: stream, credits: 2).encoded())
        for _ in 0..<2 {
            guard case .streamElement(stream, _) = try await raw.nextReply() else {
                Issue.record("no element")
                return
            }
        }
        await peripheral.stopAdvertising()
        let end = try await raw.nextReply()
        guard case .streamError(stream, _) = end else {
            Issue.record("the stream did not end with an error: \(end)")
            return
        }
        #expect(end.error as? BLEActorSystemError == .hostingStopped(host.id))
        withExtendedLifetime(remote) {}
    }

    @Test("stopAdvertising: an actor-system caller's call and stream fail promptly with a typed error")
    func stopHostingThroughTheSystem() async throws {
        let pair = ConnectedPair()
        let latch = Latch()
        let blocking = BlockingActor(actorSystem: pair.peripheral, latch: latch)
        let host = StreamingSensorActor(actorSystem: pair.peripheral)
        try await pair.peripheral.startAdvertising(blocking, host)
        let remoteBlocking = try await pair.central.connect(to: blocking.id, as: BlockingActor.self)
        let sensor = try await pair.central.connect(to: host.id, as: StreamingSensorActor.self)
        var iterator = try await sensor.endless().makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        let call = Task { try await remoteBlocking.block() }
        var entered = latch.entered.makeAsyncIterator()
        await entered.next()
        await pair.peripheral.stopAdvertising()
        do {
            _ = try await call.value
            Issue.record("the call returned")
        } catch let error as BLEActorSystemError {
            #expect(error == .hostingStopped(blocking.id) || error == .actorNotFound(blocking.id), "\(error)")
        }
        do {
            while try await iterator.next() != nil {}
            Issue.record("the stream ended normally")
        } catch let error as BLEActorSystemError {
            #expect(error == .hostingStopped(host.id) || error == .actorNotFound(host.id), "\(error)")
        }
    }
}
