import BleuATT
import BleuCore
import Foundation
import Testing

@testable import BleuHCI

/// The receive path from the controller to the GATT client's callers: responses resume their
/// waiters directly and in order; a link's end fails what waits on it at once.
@Suite("HCI radio: the receive path", .timeLimit(.minutes(1)))
struct ReceivePathTests {
    static func characteristic(_ peer: UUID, valueHandle: UInt16) -> RemoteCharacteristic {
        RemoteCharacteristic(peripheral: peer, service: BluetoothUUID(0x180F), uuid: BluetoothUUID(0x2A19),
                             properties: [.read, .write], handle: valueHandle - 1, valueHandle: valueHandle,
                             endHandle: valueHandle)
    }

    @Test("concurrent reads are answered one after another, each caller getting its own response")
    func responsesInOrder() async throws {
        let harness = try await RadioHarness.start()
        let id = try await harness.connect()
        let controller = harness.controller
        // The peer answers each Read Request with its handle, and records the order of requests.
        let order = Locked([UInt16]())
        let peer = Task {
            for await packet in controller.acl {
                guard let frame = try? L2CAPBFrame(decoding: packet.data), frame.channelID == L2CAPBFrame.attCID,
                      case .readRequest(let handle)? = try? ATTPDU(decoding: frame.payload) else { continue }
                order.withLock { $0.append(handle) }
                try await controller.send(ACLPacket(handle: 1, boundary: .firstFlushable, data: L2CAPBFrame(
                    channelID: L2CAPBFrame.attCID,
                    payload: ATTPDU.readResponse(value: [UInt8(handle & 0xFF), 0xAB]).encoded).encoded))
            }
        }
        defer { peer.cancel() }
        let handles: [UInt16] = Array(0x10..<0x30)
        let values = try await withThrowingTaskGroup(of: (UInt16, Data).self) { group in
            for handle in handles {
                group.addTask { (handle, try await harness.central.read(Self.characteristic(id, valueHandle: handle))) }
            }
            var values: [UInt16: Data] = [:]
            for try await (handle, value) in group { values[handle] = value }
            return values
        }
        for handle in handles { #expect(values[handle] == Data([UInt8(handle & 0xFF), 0xAB])) }
        #expect(Set(order.withLock { $0 }) == Set(handles), "one request each, one at a time")
    }

    @Test("a response the peer sends while the request is still being sent reaches its waiter")
    func responseDuringSend() async throws {
        let holder = Locked<ATTBearer?>(nil)
        let bearer = ATTBearer { bytes in
            // The answer arrives before `send` returns: the request is registered already.
            guard case .readRequest(let handle)? = try? ATTPDU(decoding: bytes) else { return }
            _ = holder.withLock { $0 }?.take(ATTPDU.readResponse(value: [UInt8(handle)]).encoded)
        }
        holder.withLock { $0 = bearer }
        for handle in UInt8(1)...5 {
            #expect(try await bearer.request(.readRequest(handle: UInt16(handle))) == .readResponse(value: [handle]))
        }
    }

    @Test("closing the bearer fails the request in flight and every request waiting for its turn")
    func closeFailsEveryWaiter() async throws {
        let sent = Locked(0)
        let bearer = ATTBearer { _ in sent.withLock { $0 += 1 } }
        let requests = (0..<3).map { index in
            Task { try await bearer.request(.readRequest(handle: UInt16(index + 1))) }
        }
        await eventually { sent.withLock { $0 } == 1 }
        let error = BleuError.disconnected(UUID(), .remoteUserTerminated)
        bearer.close(error)
        for request in requests {
            await #expect(throws: error) { try await request.value }
        }
        #expect(sent.withLock { $0 } == 1, "nothing more goes out on a closed bearer")
        await #expect(throws: error) { try await bearer.request(.readRequest(handle: 9)) }
    }

    @Test("a link that goes down fails its outstanding read at once")
    func linkEndFailsRead() async throws {
        let harness = try await RadioHarness.start()
        let id = try await harness.connect()
        var acl = harness.controller.acl.makeAsyncIterator()
        let central = harness.central
        let read = Task { try await central.read(Self.characteristic(id, valueHandle: 0x20)) }
        while let packet = await acl.next() {
            if let frame = try? L2CAPBFrame(decoding: packet.data), case .readRequest? = try? ATTPDU(decoding: frame.payload) { break }
        }
        try await harness.controller.send(.disconnectionComplete(status: 0, handle: 1, reason: 0x13))
        await #expect { try await read.value } throws: { error in
            if case .disconnected(id, _) = error as? BleuError { return true }
            return false
        }
    }

    @Test("a notification reaches the subscriber's stream; a stream dropped by its consumer is forgotten by the radio")
    func notificationsAndStreamEnd() async throws {
        let harness = try await RadioHarness.start()
        let id = try await harness.connect()
        let peer = Self.peerWithOneCCCD(harness.controller)
        defer { peer.cancel() }
        let radio = harness.radio
        do {
            let stream = try await harness.central.subscribe(to: Self.notifying(id))
            var values = stream.makeAsyncIterator()
            try await Self.notify([7, 8], from: harness.controller)
            #expect(try await values.next() == Data([7, 8]))
            #expect(await radio.client.subscription(0x20, on: ConnectionHandle(1))?.subscribers.count == 1)
        }
        // The dropped stream's termination reaches the radio on its chore lane.
        await eventually { await radio.client.subscription(0x20, on: ConnectionHandle(1))?.subscribers.isEmpty == true }
        #expect(await radio.client.subscription(0x20, on: ConnectionHandle(1))?.subscribers.isEmpty == true)
    }

    @Test("a notification reaches a receiver from the radio's own task; a cancelled receiver is silenced and forgotten")
    func notificationsToReceiver() async throws {
        let harness = try await RadioHarness.start()
        let id = try await harness.connect()
        let peer = Self.peerWithOneCCCD(harness.controller)
        defer { peer.cancel() }
        let radio = harness.radio
        let (deliveries, sink) = AsyncStream.makeStream(of: ValueDelivery.self)
        let subscription = try await harness.central.subscribe(to: Self.notifying(id), receive: { sink.yield($0) })
        try await Self.notify([7, 8], from: harness.controller)
        var received = deliveries.makeAsyncIterator()
        guard case .value(let value)? = await received.next() else { Issue.record("no value"); return }
        #expect(value == Data([7, 8]))
        #expect(await radio.client.subscription(0x20, on: ConnectionHandle(1))?.subscribers.count == 1)
        subscription.cancel()
        await eventually { await radio.client.subscription(0x20, on: ConnectionHandle(1))?.subscribers.isEmpty == true }
        // A stream subscribed after it still gets values; the receiver gets nothing more.
        let stream = try await harness.central.subscribe(to: Self.notifying(id))
        var values = stream.makeAsyncIterator()
        try await Self.notify([10], from: harness.controller)
        #expect(try await values.next() == Data([10]))
        sink.finish()
        #expect(await received.next() == nil)
    }

    @Test("a malformed notification is counted and dropped; the next one still reaches the subscriber")
    func malformedNotification() async throws {
        let harness = try await RadioHarness.start()
        let id = try await harness.connect()
        let controller = harness.controller
        let peer = Self.peerWithOneCCCD(controller)
        defer { peer.cancel() }
        let stream = try await harness.central.subscribe(to: Self.notifying(id))
        var values = stream.makeAsyncIterator()
        for payload: [UInt8] in [[0x1B, 0x20], ATTPDU.handleValueNotification(handle: 0x20, value: [1]).encoded] {
            try await controller.send(ACLPacket(handle: 1, boundary: .firstFlushable, data: L2CAPBFrame(
                channelID: L2CAPBFrame.attCID, payload: payload).encoded))
        }
        #expect(try await values.next() == Data([1]))
        #expect(await harness.radio.malformedNotifications == 1)
    }

    /// A peer whose one CCCD is at 0x21, found by Find Information and accepting writes.
    /// A notifying battery level at value handle 0x20, its CCCD at 0x21 (``peerWithOneCCCD(_:)``).
    private static func notifying(_ peer: UUID) -> RemoteCharacteristic {
        RemoteCharacteristic(peripheral: peer, service: BluetoothUUID(0x180F), uuid: BluetoothUUID(0x2A19),
                             properties: [.read, .notify], handle: 0x1F, valueHandle: 0x20, endHandle: 0x21)
    }

    /// Sends a notification of value handle 0x20 on connection 1, as the peer's server would.
    private static func notify(_ value: [UInt8], from controller: FakeController) async throws {
        try await controller.send(ACLPacket(handle: 1, boundary: .firstFlushable, data: L2CAPBFrame(
            channelID: L2CAPBFrame.attCID,
            payload: ATTPDU.handleValueNotification(handle: 0x20, value: value).encoded).encoded))
    }

    private static func peerWithOneCCCD(_ controller: FakeController) -> Task<Void, any Error> {
        Task {
            for await packet in controller.acl {
                guard let frame = try? L2CAPBFrame(decoding: packet.data), frame.channelID == L2CAPBFrame.attCID,
                      let pdu = try? ATTPDU(decoding: frame.payload) else { continue }
                let answer: ATTPDU
                switch pdu {
                case .findInformationRequest:
                    answer = .findInformationResponse(ATTPDU.FindInformationResponse(entries: [
                        .init(handle: 0x21, type: BluetoothUUID.Descriptor.clientCharacteristicConfiguration)]))
                case .writeRequest: answer = .writeResponse
                default: continue
                }
                try await controller.send(ACLPacket(handle: 1, boundary: .firstFlushable, data: L2CAPBFrame(
                    channelID: L2CAPBFrame.attCID, payload: answer.encoded).encoded))
            }
        }
    }
}
