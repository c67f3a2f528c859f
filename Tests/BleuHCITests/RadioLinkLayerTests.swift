import BleuATT
import BleuCore
import Foundation
import Testing

@testable import BleuHCI

@Suite("Radio: link layer on a scripted controller", .timeLimit(.minutes(1)))
struct RadioLinkLayerTests {
    @Test("a new connection asks for the longest data length (DLE supported) and exchanges MTUs")
    func connectionSetUp() async throws {
        let harness = try await RadioHarness.start()
        var commands = harness.controller.commands.makeAsyncIterator()
        let id = try await harness.connect(mtu: 247)
        #expect(try await harness.central.attMTU(for: id) == 247)
        var dataLength: HCICommand?
        while let command = await commands.next() {
            if case .leSetDataLength = command {
                dataLength = command
                break
            }
        }
        #expect(dataLength == .leSetDataLength(handle: 1, txOctets: 251, txTime: .microseconds(2120)))
        try await harness.controller.send(.le(.dataLengthChange(handle: 1, maxTxOctets: 251, maxTxTime: .microseconds(2120),
                                                               maxRxOctets: 200, maxRxTime: .microseconds(1712))))
        var parameters: HCILinkParameters?
        for _ in 0..<10_000 {
            parameters = await harness.radio.linkParameters(of: id)
            if parameters?.maxTxOctets == 251 { break }
            await Task.yield()
        }
        #expect(parameters?.maxTxOctets == 251 && parameters?.maxRxOctets == 200)
        #expect(parameters?.interval == .milliseconds(30))
    }

    @Test("connection and PHY updates complete with the controller's events")
    func updates() async throws {
        let harness = try await RadioHarness.start { command in
            switch command {
            case .leConnectionUpdate(let handle, let p):
                [.commandStatus(status: 0, numHCICommandPackets: 1, opcode: command.opcode),
                 .le(.connectionUpdateComplete(status: 0, handle: handle, interval: p.intervalMax, latency: p.maxLatency,
                                               supervisionTimeout: p.supervisionTimeout))]
            case .leSetPHY(let handle, _, _, _, _):
                [.commandStatus(status: 0, numHCICommandPackets: 1, opcode: command.opcode),
                 .le(.phyUpdateComplete(status: 0, handle: handle, txPHY: .le2M, rxPHY: .le2M))]
            default: nil
            }
        }
        let id = try await harness.connect()
        try await harness.radio.updateConnection(of: id, LEConnectionParameters(
            intervalMin: .microseconds(7500), intervalMax: .microseconds(7500), maxLatency: 2, supervisionTimeout: .seconds(3)))
        try await harness.radio.setPHY(of: id, preferring: .le2M)
        let parameters = await harness.radio.linkParameters(of: id)
        #expect(parameters?.interval == .microseconds(7500) && parameters?.latency == 2 && parameters?.supervisionTimeout == .seconds(3))
        #expect(parameters?.txPHY == .le2M && parameters?.rxPHY == .le2M)
    }

    @Test("a PHY update the controller refuses fails with its status; one it never reports times out; the stack goes on")
    func refusalsAndSilence() async throws {
        let harness = try await RadioHarness.start { command in
            switch command {
            case .leSetPHY(_, _, let tx, _, _):
                // Coded: refused. 2M: accepted, but the update never completes (no event).
                tx == .leCoded
                    ? [.commandStatus(status: 0x11, numHCICommandPackets: 1, opcode: command.opcode)]
                    : [.commandStatus(status: 0, numHCICommandPackets: 1, opcode: command.opcode)]
            case .readRSSI(let handle):
                [FakeController.complete(command, [0, UInt8(handle), 0, UInt8(bitPattern: -61)])]
            default: nil
            }
        }
        let id = try await harness.connect()
        await #expect(throws: HCIHostError.commandFailed(.leSetPHY, HCIStatus(rawValue: 0x11))) {
            try await harness.radio.setPHY(of: id, preferring: .leCoded)
        }
        let silent = Task { try await harness.radio.setPHY(of: id, preferring: .le2M) }
        while await !harness.radio.linkLayer.hasWaiters { await Task.yield() }  // accepted, now waiting for the event
        // Move virtual time on until the wait gives up (its timer may not be asleep yet at first).
        while await harness.radio.linkLayer.hasWaiters {
            harness.clock.advance(by: .seconds(10))
            await Task.yield()
        }
        await #expect(throws: BleuError.timeout(.updatePHY, after: .seconds(10))) {
            try await silent.value
        }
        #expect(try await harness.central.readRSSI(of: id) == -61, "commands still flow after the silent update")
    }
}

@Suite("Radio: what a peer sends on a scripted controller", .timeLimit(.minutes(1)))
struct RadioPeerInputTests {
    /// Sends `payload` on `cid` from the peer of handle 1.
    func send(_ harness: RadioHarness, cid: UInt16, _ payload: [UInt8]) async throws {
        try await harness.controller.send(ACLPacket(handle: 1, boundary: .firstFlushable,
                                                    data: L2CAPBFrame(channelID: cid, payload: payload).encoded))
    }

    /// The next frame the radio sends on `cid`.
    func next(_ acl: inout AsyncStream<ACLPacket>.Iterator, cid: UInt16) async throws -> [UInt8]? {
        while let packet = await acl.next() {
            let frame = try L2CAPBFrame(decoding: packet.data)
            if frame.channelID == cid { return frame.payload }
        }
        return nil
    }

    @Test("a peripheral's connection parameter update request is accepted and applied; its Pairing Request is refused")
    func signallingAndPairing() async throws {
        let harness = try await RadioHarness.start { command in
            if case .leConnectionUpdate = command {
                return [.commandStatus(status: 0, numHCICommandPackets: 1, opcode: command.opcode)]
            }
            return nil
        }
        var acl = harness.controller.acl.makeAsyncIterator()
        var commands = harness.controller.commands.makeAsyncIterator()
        _ = try await harness.connect()
        let request = L2CAPSignal(identifier: 9, .connectionParameterUpdateRequest(intervalMin: 12, intervalMax: 24,
                                                                                  latency: 0, timeout: 400))
        try await send(harness, cid: L2CAPBFrame.leSignalingCID, request.encoded)
        let reply = try await next(&acl, cid: L2CAPBFrame.leSignalingCID)
        #expect(reply == L2CAPSignal(identifier: 9, .connectionParameterUpdateResponse(result: 0)).encoded)
        var update: HCICommand?
        while let command = await commands.next() {
            if case .leConnectionUpdate = command {
                update = command
                break
            }
        }
        #expect(update == .leConnectionUpdate(handle: 1, LEConnectionParameters(
            intervalMin: .milliseconds(15), intervalMax: .milliseconds(30), maxLatency: 0, supervisionTimeout: .seconds(4))))
        // An SMP Pairing Request to the central: only a central initiates pairing, so Pairing
        // Failed (Command Not Supported).
        try await send(harness, cid: L2CAPBFrame.smpCID, [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07])
        #expect(try await next(&acl, cid: L2CAPBFrame.smpCID) == [0x05, 0x07])
    }

    @Test("an ATT traffic counter given to the radio counts ATT PDUs and their bytes each way, and no other channel")
    func attTrafficCounter() async throws {
        let traffic = ATTTrafficCounter()
        let harness = try await RadioHarness.start(attTraffic: traffic)
        var acl = harness.controller.acl.makeAsyncIterator()
        _ = try await harness.connect()
        // The MTU exchange: our 3-byte request, the peer's 3-byte response.
        #expect(traffic.sent == ATTTrafficCounter.Traffic(pdus: 1, bytes: 3))
        #expect(traffic.received == ATTTrafficCounter.Traffic(pdus: 1, bytes: 3))
        // SMP is not ATT: a Pairing Request and our Pairing Failed count nothing.
        try await send(harness, cid: L2CAPBFrame.smpCID, [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07])
        #expect(try await next(&acl, cid: L2CAPBFrame.smpCID) == [0x05, 0x07])
        // The peer reads the Device Name: a 3-byte request in, "Bleu" out (opcode and 4 bytes).
        try await send(harness, cid: L2CAPBFrame.attCID, ATTPDU.readRequest(handle: 3).encoded)
        #expect(try await next(&acl, cid: L2CAPBFrame.attCID) == ATTPDU.readResponse(value: Array("Bleu".utf8)).encoded)
        #expect(traffic.received == ATTTrafficCounter.Traffic(pdus: 2, bytes: 6))
        #expect(traffic.sent == ATTTrafficCounter.Traffic(pdus: 2, bytes: 8))
        #expect(traffic.total == ATTTrafficCounter.Traffic(pdus: 4, bytes: 14))
    }

    @Test("random frames on every channel never crash the radio; it still answers afterwards")
    func hostileFrames() async throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["BLEU_HCI_SEED"] ?? "") ?? UInt64.random(in: 0...UInt64.max)
        print("RadioPeerInputTests.hostileFrames seed \(seed) (replay: BLEU_HCI_SEED=\(seed))")
        var random = SeededRandomNumberGenerator(seed: seed)
        let harness = try await RadioHarness.start()
        let id = try await harness.connect()
        let peripheral = HCIPeripheralManager(radio: harness.radio)
        _ = try await peripheral.add(ServiceDefinition(uuid: BluetoothUUID(0x180F), characteristics: [
            CharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: [.read, .notify], permissions: .readable,
                                     value: nil),
        ]))
        _ = try await peripheral.publishL2CAPChannel(requiresEncryption: false)
        // The application answers whatever reaches it, so no request stays outstanding.
        let application = Task {
            for await event in peripheral.events() {
                switch event {
                case .readRequest(let request): await peripheral.respond(to: request, with: .failure(.unlikelyError))
                case .writeRequests(let requests): await peripheral.respond(to: requests, with: .failure(.unlikelyError))
                default: break
                }
            }
        }
        defer { application.cancel() }
        // Everything the radio sends is read. After every 250 frames an unknown signalling command
        // with identifier 0xEE is a barrier: its Command Reject proves the radio processed all the
        // frames before it (and paces the noise, as the air would). ATT is not used for the barrier:
        // a client's second outstanding request is dropped, and the noise may leave one pending.
        let acl = harness.controller.acl
        let (barriers, passed) = AsyncStream.makeStream(of: Void.self)
        let (names, named) = AsyncStream.makeStream(of: Void.self)
        let reader = Task {
            for await packet in acl {
                guard let frame = try? L2CAPBFrame(decoding: packet.data) else { continue }
                if frame.channelID == L2CAPBFrame.leSignalingCID,
                   frame.payload == L2CAPSignal(identifier: 0xEE, .commandReject(reason: 0, data: [])).encoded { passed.yield() }
                if frame.channelID == L2CAPBFrame.attCID,
                   frame.payload == ATTPDU.readResponse(value: Array("Bleu".utf8)).encoded { named.yield() }
            }
        }
        defer { reader.cancel() }
        var rounds = barriers.makeAsyncIterator()
        for _ in 0..<20 {
            for _ in 0..<250 {
                let cid: UInt16 = [4, 5, 6, 0x40, 0x41, UInt16.random(in: 0...0xFFFF, using: &random)].randomElement(using: &random)!
                let length = Int.random(in: 0...40, using: &random)
                var payload = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
                if cid == 5, payload.count >= 2, payload[1] == 0xEE { payload[1] = 0xED }  // 0xEE is the barrier's
                if cid == 5, payload.count >= 4, Bool.random(using: &random) {  // well-framed signalling commands
                    payload[0] = [0x01, 0x06, 0x07, 0x12, 0x13, 0x14, 0x15, 0x16].randomElement(using: &random)!
                    payload[2] = UInt8(payload.count - 4)
                    payload[3] = 0
                }
                try await send(harness, cid: cid, payload)
            }
            try await send(harness, cid: L2CAPBFrame.leSignalingCID, L2CAPSignal(identifier: 0xEE, .unknown(code: 0x7F, data: [])).encoded)
            #expect(await rounds.next() != nil, "the radio answered the barrier after the noise")
        }
        // No request left for the application: a client's read is answered again.
        while await !harness.radio.server.pendingRequests.isEmpty { await Task.yield() }
        try await send(harness, cid: L2CAPBFrame.attCID, ATTPDU.readRequest(handle: 3).encoded)
        var answers = names.makeAsyncIterator()
        #expect(await answers.next() != nil, "the radio still answers a Device Name read")
        #expect(await harness.central.isConnected(id))
        #expect(await harness.radio.currentState == .poweredOn)
    }
}

@Suite("HCI radio: frames wait for the host's ACL queue", .timeLimit(.minutes(1)))
struct RadioBackPressureTests {
    @Test("frames beyond the host's ACL queue wait for the controller's completions instead of being dropped")
    func framesWaitForRoom() async throws {
        var host = HCIHost.Configuration()
        host.maxQueuedACLPackets = 4
        let harness = try await RadioHarness.start(completesPackets: false, host: host)
        var acl = harness.controller.acl.makeAsyncIterator()
        // Connect by hand: the controller completes nothing on its own here.
        let id = await harness.radio.identify(RadioHarness.peer, type: .randomDevice)
        async let connected: Void = harness.central.connect(id, timeout: nil)
        try await harness.controller.send(.le(.connectionComplete(LEConnectionComplete(
            handle: 1, role: .central, peerAddressType: .randomDevice, peerAddress: RadioHarness.peer, interval: .milliseconds(30)))))
        _ = await acl.next()  // the MTU exchange request
        try await harness.controller.send(.numberOfCompletedPackets([.init(handle: 1, count: 1)]))
        try await harness.controller.send(ACLPacket(handle: 1, boundary: .firstFlushable, data: L2CAPBFrame(
            channelID: L2CAPBFrame.attCID, payload: ATTPDU.exchangeMTUResponse(serverRxMTU: 23).encoded).encoded))
        try await connected

        // 8 controller buffers and 4 queued packets: 20 frames are 8 more than fit at once.
        for index in 0..<20 {
            try await harness.radio.sendChecked(L2CAPBFrame(channelID: 0x0040, payload: [UInt8(index)]), on: ConnectionHandle(1))
        }
        var payloads: [UInt8] = []
        while payloads.count < 20, let packet = await acl.next() {
            payloads.append(try L2CAPBFrame(decoding: packet.data).payload[0])
            try await harness.controller.send(.numberOfCompletedPackets([.init(handle: 1, count: 1)]))
        }
        #expect(payloads == (0..<20).map { UInt8($0) })
        #expect(await harness.radio.framesForClosedLinks == 0)
    }
}
