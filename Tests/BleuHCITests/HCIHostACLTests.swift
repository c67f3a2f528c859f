import BleuCore
import Testing

@testable import BleuHCI

@Suite("HCI host: ACL flow control, fragmentation and reassembly")
struct HCIHostACLTests {
    let peer = BluetoothAddress(string: "C0:11:22:33:44:55")!

    /// A started host with one connection (handle 1) on a controller with two 27-byte buffers.
    func connectedHost() async throws -> (HCIHost, FakeController) {
        let (hostEnd, controllerEnd) = InMemoryHCITransport.makePair()
        let host = HCIHost(transport: hostEnd, clock: ManualClock())  // no spurious command timeouts
        let controller = FakeController(transport: controllerEnd, answer: FakeController.startUpAnswers())
        try await host.start()
        try await controller.send(.le(.connectionComplete(LEConnectionComplete(
            handle: 1, role: .central, peerAddressType: .randomDevice, peerAddress: peer))))
        for await event in host.events {
            if case .le(.connectionComplete) = event { break }
        }
        return (host, controller)
    }

    @Test("a frame is cut to the 27-byte buffers, PB first-non-flushable then continuing, and waits for Number Of Completed Packets")
    func fragmentationAndCredits() async throws {
        let (host, controller) = try await connectedHost()
        let frame = L2CAPBFrame(channelID: 0x0004, payload: (0..<60).map { UInt8($0) })
        try await host.send(frame, on: 1)
        var received: [ACLPacket] = []
        var iterator = controller.acl.makeAsyncIterator()
        for _ in 0..<2 { received.append(try #require(await iterator.next())) }
        #expect(await host.queuedACLPacketCount == 1, "two buffers: the third fragment must wait")
        #expect(await host.availableACLBuffers == 0)
        try await controller.send(.numberOfCompletedPackets([.init(handle: 1, count: 1)]))
        received.append(try #require(await iterator.next()))
        #expect(received.map(\.data.count) == [27, 27, 10])
        #expect(received.map(\.boundary) == [.firstNonFlushable, .continuing, .continuing])
        #expect(received.flatMap(\.data) == frame.encoded)
        // A controller that reports more completions than packets sent does not inflate the credits.
        try await controller.send(.numberOfCompletedPackets([.init(handle: 1, count: 9)]))
        await eventually { await host.availableACLBuffers == 2 }
        #expect(await host.availableACLBuffers == 2)
        await host.stop()
    }

    @Test("ACL is refused on a handle that is not connected, and the queue bound is enforced")
    func refusals() async throws {
        let (host, _) = try await connectedHost()
        await #expect(throws: HCIHostError.unknownConnection(7)) {
            try await host.send(L2CAPBFrame(channelID: 4, payload: [1]), on: 7)
        }
        let big = L2CAPBFrame(channelID: 4, payload: [UInt8](repeating: 0, count: 27 * 600))
        await #expect(throws: HCIHostError.aclQueueFull(limit: 512)) { try await host.send(big, on: 1) }
        #expect(await host.queuedACLPacketCount == 0, "a refused frame queues nothing")
        await host.stop()
    }

    @Test("a disconnection gives the connection's buffers back and drops its queue")
    func disconnectionReturnsCredits() async throws {
        let (host, controller) = try await connectedHost()
        try await host.send(L2CAPBFrame(channelID: 4, payload: [UInt8](repeating: 1, count: 80)), on: 1)
        #expect(await host.availableACLBuffers == 0)
        try await controller.send(.disconnectionComplete(status: 0, handle: 1, reason: 0x13))
        await eventually { await host.availableACLBuffers == 2 }
        #expect(await host.availableACLBuffers == 2)
        #expect(await host.queuedACLPacketCount == 0)
        await #expect(throws: HCIHostError.unknownConnection(1)) {
            try await host.send(L2CAPBFrame(channelID: 4, payload: [1]), on: 1)
        }
        await host.stop()
    }

    @Test("incoming ACL is reassembled, oversize packets (larger than the advertised buffer) accepted, bad fragments dropped")
    func reassembly() async throws {
        let (host, controller) = try await connectedHost()
        let small = L2CAPBFrame(channelID: 4, payload: (0..<50).map { UInt8($0) })
        let bytes = small.encoded
        // A continuation with nothing started, and an undecodable event: dropped, counted.
        try await controller.send(ACLPacket(handle: 1, boundary: .continuing, data: [9, 9]))
        try await controller.transport.send(H4Packet(type: .event, body: [0x0E, 0x05, 0x01]))
        try await controller.send(ACLPacket(handle: 1, boundary: .firstFlushable, data: Array(bytes[0..<1])))
        try await controller.send(ACLPacket(handle: 1, boundary: .continuing, data: Array(bytes[1..<30])))
        try await controller.send(ACLPacket(handle: 1, boundary: .continuing, data: Array(bytes[30...])))
        let oversize = L2CAPBFrame(channelID: 5, payload: [UInt8](repeating: 0xAB, count: 300))
        try await controller.send(ACLPacket(handle: 1, boundary: .firstFlushable, data: oversize.encoded))
        var frames: [HCIHost.ReceivedFrame] = []
        for await frame in host.frames {
            frames.append(frame)
            if frames.count == 2 { break }
        }
        #expect(frames == [.init(handle: 1, frame: small), .init(handle: 1, frame: oversize)])
        #expect(await host.malformedPacketCount == 2)
        await host.stop()
    }

    @Test("the reassembler bounds PDU length and reports interrupted and overrun PDUs")
    func reassemblerBounds() {
        var r = ACLReassembler(maxPDULength: 100, maxConnections: 1)
        #expect(r.push(ACLPacket(handle: 1, boundary: .firstFlushable, data: [0xFF, 0x00, 4, 0])).failure
                == .tooLong(handle: 1, declared: 255, limit: 100))
        #expect(r.bufferedByteCount == 0)
        #expect(r.push(ACLPacket(handle: 1, boundary: .firstFlushable, data: [3, 0, 4, 0, 1])).frame == nil)
        let restarted = r.push(ACLPacket(handle: 1, boundary: .firstFlushable, data: [1, 0, 4, 0, 7]))
        #expect(restarted.failure == .interruptedPDU(handle: 1, missing: 2))
        #expect(restarted.frame == L2CAPBFrame(channelID: 4, payload: [7]))
        #expect(r.push(ACLPacket(handle: 1, boundary: .firstFlushable, data: [1, 0, 4, 0, 7, 8])).failure
                == .overrun(handle: 1, extra: 1))
        _ = r.push(ACLPacket(handle: 1, boundary: .firstFlushable, data: [9, 0]))
        #expect(r.push(ACLPacket(handle: 2, boundary: .firstFlushable, data: [9, 0])).failure == .tooManyConnections(limit: 1))
        #expect(ACLFragmenter.fragments(of: [], handle: 3, maxLength: 27) == [ACLPacket(handle: 3, boundary: .firstNonFlushable, data: [])])
    }
}
