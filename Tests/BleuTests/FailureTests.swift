import Bleu
import BleuCore
import BleuEmulator
import BleuTesting
import Distributed
import Foundation
import Testing

@Suite("Timeouts, disconnections and refused calls")
struct FailureTests {
    @Test("a call without a reply in time fails with BleuError.timeout; the peripheral's method is cancelled")
    func timeout() async throws {
        let pair = ConnectedPair()
        let latch = Latch()
        let blocking = try await pair.host(BlockingActor.self) { BlockingActor(actorSystem: $0, latch: latch) }
        do {
            _ = try await BLEActorSystem.withCallTimeout(.milliseconds(100)) { try await blocking.block() }
            Issue.record("the call returned")
        } catch BleuError.timeout(.remoteCall(let method), let after) {
            #expect(method.contains("block"))
            #expect(after == .milliseconds(100))
        }
        var ended = latch.ended.makeAsyncIterator()
        #expect(await ended.next() == true)
        // The connection is still good.
        #expect(try await blocking.quick() == 7)
    }

    @Test("a lost link fails a call in progress with BleuError.disconnected, at once")
    func linkLossDuringCall() async throws {
        let pair = ConnectedPair()
        let latch = Latch()
        let blocking = try await pair.host(BlockingActor.self) { BlockingActor(actorSystem: $0, latch: latch) }
        let call = Task { try await blocking.block() }
        var entered = latch.entered.makeAsyncIterator()
        await entered.next()
        let peripheral = try #require(await pair.centralManager.retrieveConnectedPeripherals(withServices: []).first)
        pair.bus.loseLink(between: pair.centralManager, and: peripheral.id)
        await #expect(throws: BleuError.disconnected(peripheral.id, .supervisionTimeout)) { _ = try await call.value }
        var ended = latch.ended.makeAsyncIterator()
        #expect(await ended.next() == true)
    }

    @Test("disconnect(from:) fails the calls in progress with BleuError.disconnected")
    func localDisconnectDuringCall() async throws {
        let pair = ConnectedPair()
        let latch = Latch()
        let blocking = try await pair.host(BlockingActor.self) { BlockingActor(actorSystem: $0, latch: latch) }
        let calls = (0..<3).map { _ in Task { try await blocking.block() } }
        var entered = latch.entered.makeAsyncIterator()
        for _ in calls { await entered.next() }
        await pair.central.disconnect(from: blocking)
        for call in calls {
            do {
                _ = try await call.value
                Issue.record("a call returned")
            } catch BleuError.disconnected(_, let reason) {
                #expect(reason == .localHostTerminated)
            }
        }
    }

    @Test("cancelling the calling task ends the call with BleuError.cancelled")
    func cancellation() async throws {
        let pair = ConnectedPair()
        let latch = Latch()
        let blocking = try await pair.host(BlockingActor.self) { BlockingActor(actorSystem: $0, latch: latch) }
        let call = Task { try await blocking.block() }
        var entered = latch.entered.makeAsyncIterator()
        await entered.next()
        call.cancel()
        await #expect(throws: BleuError.cancelled) { _ = try await call.value }
        var ended = latch.ended.makeAsyncIterator()
        #expect(await ended.next() == true)
    }

    @Test("a method of another actor type is refused as unknownMethod (wrong actor)")
    func wrongActor() async throws {
        let pair = ConnectedPair()
        let value = try await pair.host(ValueActor.self) { ValueActor(actorSystem: $0) }
        let impostor = try CounterActor.resolve(id: value.id, using: pair.central)
        do {
            _ = try await impostor.increment()
            Issue.record("the call returned")
        } catch BLEActorSystemError.unknownMethod(let name) {
            #expect(name.contains("CounterActor"))
        }
        #expect(try await value.value() == 42)
    }

    @Test("a generic method of a @Resolvable protocol is refused before anything is sent; its other methods work")
    func genericThroughProtocol() async throws {
        let pair = ConnectedPair()
        let wrapper = try await pair.host(Wrapper.self) { Wrapper(actorSystem: $0) }
        #expect(try await wrapper.wrap(5) == [5])
        let stub = try $Wrapping.resolve(id: wrapper.id, using: pair.central)
        #expect(try await stub.name() == "wrapper")
        do {
            _ = try await stub.wrap(5)
            Issue.record("the call returned")
        } catch BLEActorSystemError.unsupportedCall(let reason) {
            #expect(reason == .genericProtocolMethod)
            #expect(reason.description.contains("@Resolvable"))
        }
        #expect(try await stub.name() == "wrapper")
    }

    @Test("arguments over the maximum message size fail with messageTooLarge and nothing is sent")
    func oversizedArguments() async throws {
        var configuration = BLEActorSystem.Configuration.fast
        configuration.maximumMessageSize = 1024
        let pair = ConnectedPair(configuration: configuration)
        let echo = try await pair.host(EchoActor.self) { EchoActor(actorSystem: $0) }
        await #expect(throws: BLEActorSystemError.self) { _ = try await echo.bytes(Data(count: 2000)) }
        #expect(try await echo.bytes(Data(count: 500)) == 500)
    }
}

@Suite("Calls through a protocol the actor does not conform to")
struct WrongProtocolTests {
    @Test("a protocol method on an actor that does not conform is refused, not executed")
    func wrongProtocol() async throws {
        let pair = ConnectedPair()
        let counter = try await pair.host(CounterActor.self) { CounterActor(actorSystem: $0) }
        let stub = try $TemperatureReading.resolve(id: counter.id, using: pair.central)
        await #expect(throws: BLEActorSystemError.self) { _ = try await stub.temperature() }
        #expect(try await counter.increment() == 1)
    }
}

@Suite("Bounds on the peripheral")
struct PeripheralBoundsTests {
    @Test("a request over the peripheral's maximum message size gets a messageTooLarge reply, not silence")
    func oversizedAtPeripheral() async throws {
        var small = BLEActorSystem.Configuration.fast
        small.maximumMessageSize = 1024
        let bus = EmulatorBus(configuration: .instant)
        let peripheral = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus), configuration: small)
        let central = BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus), configuration: .fast)
        let hosted = EchoActor(actorSystem: peripheral)
        try await peripheral.startAdvertising(hosted)
        let echo = try await central.connect(to: hosted.id, as: EchoActor.self)
        do {
            _ = try await echo.bytes(Data(count: 4000))
            Issue.record("the call returned")
        } catch BLEActorSystemError.messageTooLarge(_, let maximum) {
            #expect(maximum == 1024)
        }
        #expect(try await echo.bytes(Data(count: 100)) == 100)
    }

    @Test("calls past the peripheral's concurrency limit are refused with tooManyConcurrentCalls")
    func concurrencyLimit() async throws {
        var strict = BLEActorSystem.Configuration.fast
        strict.maximumConcurrentCallsPerCentral = 2
        var eager = BLEActorSystem.Configuration.fast
        eager.maximumConcurrentCallsPerCentral = 8
        let bus = EmulatorBus(configuration: .instant)
        let peripheral = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus), configuration: strict)
        let central = BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus), configuration: eager)
        let latch = Latch()
        let hosted = BlockingActor(actorSystem: peripheral, latch: latch)
        try await peripheral.startAdvertising(hosted)
        let blocking = try await central.connect(to: hosted.id, as: BlockingActor.self)
        let running = (0..<2).map { _ in Task { try await blocking.block() } }
        var entered = latch.entered.makeAsyncIterator()
        await entered.next()
        await entered.next()
        await #expect(throws: BLEActorSystemError.tooManyConcurrentCalls(limit: 2)) { _ = try await blocking.quick() }
        for task in running { task.cancel() }
    }
}
