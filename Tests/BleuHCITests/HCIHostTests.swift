import BleuCore
import Testing

@testable import BleuHCI

@Suite("HCI host: start-up, command flow control, timeouts")
struct HCIHostCommandTests {
    /// The default clock never advances, so no command times out unless a test moves it (a loaded
    /// machine cannot make a test fail by being slow).
    func makeHost(clock: any Clock<Duration> = ManualClock(),
                  answer: @escaping @Sendable (HCICommand) -> [HCIEvent]? = FakeController.startUpAnswers())
        -> (HCIHost, FakeController) {
        let (hostEnd, controllerEnd) = InMemoryHCITransport.makePair()
        return (HCIHost(transport: hostEnd, clock: clock), FakeController(transport: controllerEnd, answer: answer))
    }

    @Test("start-up sends the init sequence in order and reads the controller's answers")
    func startUp() async throws {
        let (host, controller) = makeHost()
        let info = try await host.start()
        var seen: [HCICommand] = []
        for await command in controller.commands {
            seen.append(command)
            if seen.count == 8 { break }
        }
        #expect(seen == [.reset, .readLocalVersionInformation, .readLocalSupportedFeatures, .readBDADDR,
                         .setEventMask(HCIHost.eventMask), .leSetEventMask(HCIHost.leEventMask), .leReadBufferSize,
                         .leReadLocalSupportedFeatures])
        #expect(info.address == controller.address)
        #expect(info.aclDataPacketLength == 27 && info.totalNumACLDataPackets == 2)
        #expect(info.version?.companyIdentifier == 0x05F1)
        #expect(info.supportsExtendedAdvertising)
        #expect(HCIHost.leEventMask & 1 << 12 != 0 && HCIHost.eventMask & 1 << 61 != 0)
        await host.stop()
    }

    @Test("an LE buffer size of zero falls back to the shared BR/EDR buffers")
    func sharedBuffers() async throws {
        let base = FakeController.startUpAnswers(bufferLength: 0, bufferCount: 0)
        let (host, _) = makeHost(answer: base)
        let info = try await host.start()
        #expect(info.aclDataPacketLength == 0x03FD && info.totalNumACLDataPackets == 8)
        await host.stop()
    }

    @Test("a command waits while Num_HCI_Command_Packets is 0, and goes out when the controller allows it")
    func commandFlowControl() async throws {
        let base = FakeController.startUpAnswers()
        let (host, controller) = makeHost { command in
            if case .leSetScanParameters = command { return [FakeController.complete(command, credits: 0)] }
            if case .leSetScanEnable = command { return [FakeController.complete(command)] }
            return base(command)
        }
        try await host.start()
        _ = try await host.execute(.leSetScanParameters(LEScanParameters()))
        #expect(await host.availableCommandSlots == 0)
        async let enable = host.execute(.leSetScanEnable(enable: true, filterDuplicates: false))
        await eventually { await host.queuedCommandCount == 1 }
        #expect(await host.queuedCommandCount == 1, "the command must wait for a slot, not go out")
        // The controller frees a slot with a no-op Command Complete (opcode 0x0000).
        try await controller.send(.commandComplete(numHCICommandPackets: 1, opcode: HCIOpcode(rawValue: 0), returnParameters: []))
        _ = try await enable
        var last: HCICommand?
        for await command in controller.commands {
            last = command
            if case .leSetScanEnable = command { break }
        }
        #expect(last == .leSetScanEnable(enable: true, filterDuplicates: false))
        await host.stop()
    }

    @Test("a command the controller never answers times out on the injected clock; the next one still goes out")
    func commandTimeout() async throws {
        let clock = ManualClock()
        let base = FakeController.startUpAnswers()
        let (host, _) = makeHost(clock: clock) { command in
            if case .leSetDataLength = command { return [] }  // Bumble's controller does this
            if case .readRSSI = command { return [FakeController.complete(command, [0, 1, 0, 0xC4])] }
            return base(command)
        }
        try await host.start()
        let dataLength = Task { try await host.execute(.leSetDataLength(handle: 1, txOctets: 251, txTime: .microseconds(2120))) }
        await eventually { clock.sleeperCount >= 1 }
        clock.advance(by: .seconds(5))
        await #expect(throws: HCIHostError.commandTimeout(.leSetDataLength, after: .seconds(5))) { try await dataLength.value }
        let rssi = try await host.execute(.readRSSI(handle: 1))
        #expect(rssi == [0, 1, 0, 0xC4])
        await host.stop()
    }

    @Test("a Command Status with an error fails the command with that status")
    func commandStatusFailure() async throws {
        let base = FakeController.startUpAnswers()
        let (host, _) = makeHost { command in
            if case .leCreateConnectionCancel = command {
                return [.commandStatus(status: 0x0C, numHCICommandPackets: 1, opcode: command.opcode)]
            }
            return base(command)
        }
        try await host.start()
        await #expect(throws: HCIHostError.commandFailed(.leCreateConnectionCancel, .commandDisallowed)) {
            try await host.send(.leCreateConnectionCancel)
        }
        await host.stop()
    }

    @Test("a failing start-up step names itself")
    func startUpFailure() async throws {
        let base = FakeController.startUpAnswers()
        let (host, _) = makeHost { command in
            if case .readBDADDR = command { return [FakeController.complete(command, [0x01])] }
            return base(command)
        }
        await #expect {
            try await host.start()
        } throws: { error in
            guard case let .initializationFailed(step, _) = error as? HCIHostError else { return false }
            return step == .readBDADDR
        }
        await host.stop()
    }

    @Test("closing the transport fails waiting commands instead of hanging them")
    func transportClosed() async throws {
        let base = FakeController.startUpAnswers()
        let (host, controller) = makeHost { command in
            if case .leReadMaximumDataLength = command { return [] }
            return base(command)
        }
        try await host.start()
        let pending = Task { try await host.execute(.leReadMaximumDataLength) }
        for await command in controller.commands where command == .leReadMaximumDataLength { break }
        await controller.transport.close()
        await #expect { try await pending.value } throws: { error in
            if case .transportClosed = error as? HCIHostError { return true }
            return false
        }
        await #expect(throws: HCIHostError.self) { try await host.execute(.reset) }
    }
}

@Suite("HCI host: every drop counted under its cause")
struct HCIHostDropTests {
    @Test("malformed input, unexpected packets and a consumer too slow are counted apart, and each is told to the observer")
    func dropsByCause() async throws {
        let (hostEnd, _) = InMemoryHCITransport.makePair()
        var configuration = HCIHost.Configuration()
        configuration.streamBufferLimit = 1
        let host = HCIHost(transport: hostEnd, clock: ManualClock(), configuration: configuration)
        let told = Locked<[HCIHostDrops.Cause]>([])
        await host.observeDrops { cause, _ in told.withLock { $0.append(cause) } }

        await host.receive(H4Packet(type: .event, body: [0x0E]))           // an event cut short
        await host.receive(H4Packet(type: .acl, body: [0x01]))             // an ACL header cut short
        await host.receive(H4Packet(type: .command, body: [0x03, 0x0C, 0])) // a controller never sends commands
        // Nobody reads `inbound`: the first item fills its buffer of one, the second overflows.
        await host.deliver(.framesCompleted(handle: 1, tags: []))
        await host.deliver(.framesCompleted(handle: 1, tags: []))

        let drops = await host.drops
        #expect(drops.malformed == 2 && drops.unexpected == 1 && drops.inboundOverflow == 1)
        #expect(await host.malformedPacketCount == 2, "a slow consumer is not counted as malformed input")
        #expect(told.withLock { $0 } == [.malformed, .malformed, .unexpected, .inboundOverflow])
        await host.stop()
    }
}
