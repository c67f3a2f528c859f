import BleuCore
import Foundation
import Testing
@testable import BleuEmulator

/// L2CAP: connection-oriented channels with credits.
@Suite("L2CAP channels")
struct L2CAPTests {
    /// A connected fixture with a channel open; returns both ends.
    static func open(_ configuration: EmulatorConfiguration = .instant, requiresEncryption: Bool = false) async throws
        -> (Fixture, central: any L2CAPChannel, peripheral: any L2CAPChannel) {
        let fixture = try await Fixture.make(configuration: configuration)
        var events = fixture.peripheral.events()
        let psm = try await fixture.peripheral.publishL2CAPChannel(requiresEncryption: requiresEncryption)
        let central = try await fixture.central.openL2CAPChannel(psm: psm, on: fixture.peripheralID)
        guard case .l2capChannelOpened(let peripheral)? = await events.first(matching: {
            if case .l2capChannelOpened = $0 { true } else { false }
        }) else { throw BleuError.invalidState(.unexpectedOutcome(.openChannel(psm: psm))) }
        return (fixture, central, peripheral)
    }

    @Test("PSMs are assigned from the dynamic range without collisions")
    func psms() async throws {
        let fixture = try await Fixture.make()
        let first = try await fixture.peripheral.publishL2CAPChannel(requiresEncryption: false)
        let second = try await fixture.peripheral.publishL2CAPChannel(requiresEncryption: false)
        #expect(first == 0x0080 && second == 0x0081)
        try await fixture.peripheral.unpublishL2CAPChannel(first)
        #expect(try await fixture.peripheral.publishL2CAPChannel(requiresEncryption: false) == 0x0080)
        #expect(await throwsError(.invalidState(.psmNotPublished(0x99))) { try await fixture.peripheral.unpublishL2CAPChannel(0x99) })
        let error = await thrownError { try await fixture.central.openL2CAPChannel(psm: 0x00F0, on: fixture.peripheralID) }
        #expect(error as? BleuError == .notSupported(.channelNotPublished(psm: 0x00F0)))
    }

    @Test("a channel carries SDUs both ways, in order, and either side can close it")
    func dataAndClose() async throws {
        let (fixture, central, peripheral) = try await Self.open()
        #expect(central.peer == fixture.peripheralID)
        #expect(await fixture.peripheral.connectedCentrals == [peripheral.peer])
        let big = Data((0..<2000).map { UInt8($0 % 256) })
        try await central.send(Data("hello".utf8))
        try await central.send(big)
        try await peripheral.send(Data("back".utf8))
        var fromCentral = peripheral.incoming.makeAsyncIterator()
        #expect(try await fromCentral.next() == Data("hello".utf8))
        #expect(try await fromCentral.next() == big, "an SDU segmented into K-frames arrives whole")
        var fromPeripheral = central.incoming.makeAsyncIterator()
        #expect(try await fromPeripheral.next() == Data("back".utf8))
        #expect(await throwsError(.valueTooLong(length: 2049, maximum: 2048)) { try await central.send(Data(count: 2049)) })
        await peripheral.close()
        #expect(try await fromPeripheral.next() == nil, "the peer's input ends when one side closes")
        let error = await thrownError { try await central.send(Data([1])) }
        #expect((error as? BleuError).map { if case .invalidState = $0 { true } else { false } } == true)
    }

    @Test("credits: a sender waits while the receiver's application has not taken its SDUs")
    func credits() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.l2cap = L2CAPConfiguration(mtu: 512, mps: 64, initialCredits: 3)
        let (fixture, central, peripheral) = try await Self.open(configuration)
        defer { withExtendedLifetime(fixture) {} }
        for i in 0..<3 { try await central.send(Data([UInt8(i)])) }
        let fourthSent = Locked(false)
        let fourth = Task {
            try await central.send(Data([3]))
            fourthSent.withLock { $0 = true }
        }
        // Wait (without a timer) until the fourth SDU is queued on the central's end: with
        // instant timing a send with a credit goes out at once, so a queued one has none.
        var queued = 0
        for _ in 0..<100_000 where queued == 0 {
            await Task.yield()
            queued = fixture.bus.withEngine { engine in
                engine.channels.values.first?.ends[.central].outgoing.count ?? 0
            }
        }
        #expect(queued == 1, "the fourth send never reached the channel")
        let credits = fixture.bus.withEngine { $0.channels.values.first?.ends[.central].credits }
        #expect(credits == 0, "the peer granted three credits and three SDUs spent them")
        #expect(!fourthSent.withLock { $0 }, "the send beyond the peer's credits is still pending")
        #expect(fixture.bus.trace.filter { $0.kind == .l2capData }.count == 3, "only three K-frames went on air")
        let long = Task { try await central.send(Data(count: 300)) }
        var input = peripheral.incoming.makeAsyncIterator()
        #expect(try await input.next() == Data([0]))
        try await fourth.value
        #expect(fourthSent.withLock { $0 })
        for i in 1...3 { #expect(try await input.next() == Data([UInt8(i)])) }
        try await long.value
        #expect(try await input.next()?.count == 300)
    }

    @Test("credits come back for SDUs handed straight to a consumer that was waiting, not only for buffered ones")
    func creditsForWaitingConsumer() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.l2cap = L2CAPConfiguration(mtu: 512, mps: 64, initialCredits: 3)
        let (fixture, central, peripheral) = try await Self.open(configuration)
        defer { withExtendedLifetime(fixture) {} }
        let (received, sink) = AsyncStream<Data>.makeStream()
        let consumer = Task {
            for try await sdu in peripheral.incoming { sink.yield(sdu) }
        }
        defer { consumer.cancel() }
        var arrivals = received.makeAsyncIterator()
        // More SDUs than the peer granted credits, each sent while the consumer waits for it.
        for i in 0..<10 {
            var waiting = false
            for _ in 0..<100_000 where !waiting {
                await Task.yield()
                waiting = fixture.bus.withEngine { engine in
                    engine.streams.values.contains { stream in
                        guard case .channel(_, let side) = stream.owner, side == .peripheral else { return false }
                        return stream.waiter != nil
                    }
                }
            }
            #expect(waiting, "the consumer never waited")
            try await central.send(Data([UInt8(i)]))
            #expect(await arrivals.next() == Data([UInt8(i)]))
        }
    }

    @Test("the central closing a channel ends the peripheral's input after what it holds, and fails sends on both ends")
    func centralCloses() async throws {
        let (fixture, central, peripheral) = try await Self.open()
        try await central.send(Data("last words".utf8))
        await central.close()
        let signals = fixture.bus.trace.filter { $0.kind == .l2capSignaling }
        #expect(signals.last?.direction == .centralToPeripheral, "the central sent the disconnection request")
        var fromCentral = peripheral.incoming.makeAsyncIterator()
        #expect(try await fromCentral.next() == Data("last words".utf8), "an SDU sent before the close still arrives")
        #expect(try await fromCentral.next() == nil, "then the peripheral's input ends, without an error")
        let peripheralSend = await thrownError { try await peripheral.send(Data([1])) }
        #expect((peripheralSend as? BleuError).map { if case .invalidState = $0 { true } else { false } } == true)
        let centralSend = await thrownError { try await central.send(Data([1])) }
        #expect((centralSend as? BleuError).map { if case .invalidState = $0 { true } else { false } } == true)
        for try await _ in central.incoming { Issue.record("the closed end's input must be over") }
        #expect(fixture.bus.withEngine { $0.channels.isEmpty }, "both ends closed: the channel is forgotten")
        #expect(await fixture.central.isConnected(fixture.peripheralID), "closing a channel keeps the link")
    }

    @Test("a disconnection ends both ends with the disconnection")
    func closedOnDisconnect() async throws {
        let (fixture, central, peripheral) = try await Self.open()
        await fixture.central.cancelConnection(fixture.peripheralID)
        let centralError = await thrownError { for try await _ in central.incoming {} }
        #expect(centralError as? BleuError == .disconnected(fixture.peripheralID, .localHostTerminated))
        let peripheralError = await thrownError { for try await _ in peripheral.incoming {} }
        #expect(peripheralError as? BleuError == .disconnected(peripheral.peer, .remoteUserTerminated))
        let sendError = await thrownError { try await central.send(Data([1])) }
        #expect(sendError != nil)
    }

    @Test("a channel nobody on the peripheral takes is closed, and the central hears it")
    func unclaimedChannel() async throws {
        let bus = EmulatorBus(configuration: .instant)
        let peripheral = EmulatedPeripheralManager(bus: bus)  // no application listening
        let psm = try await peripheral.publishL2CAPChannel(requiresEncryption: false)
        try await peripheral.startAdvertising(AdvertisingData(localName: "L"))
        let central = EmulatedCentralManager(bus: bus)
        let id = try await central.discover(name: "L")
        try await central.connect(id)
        let channel = try await central.openL2CAPChannel(psm: psm, on: id)
        for try await _ in channel.incoming { Issue.record("nothing was sent") }
        let error = await thrownError { try await channel.send(Data([1])) }
        #expect(error != nil)
    }

    @Test("a PSM that requires encryption pairs first, or refuses")
    func encryption() async throws {
        let (fixture, central, _) = try await Self.open(requiresEncryption: true)
        #expect(fixture.bus.trace.contains { $0.kind == .security })
        try await central.send(Data([1]))
        var strict = EmulatorConfiguration.instant
        strict.pairing.pairsOnInsufficientSecurity = false
        let other = try await Fixture.make(configuration: strict)
        let psm = try await other.peripheral.publishL2CAPChannel(requiresEncryption: true)
        #expect(await throwsError(.att(.insufficientEncryption)) {
            try await other.central.openL2CAPChannel(psm: psm, on: other.peripheralID)
        })
    }
}
