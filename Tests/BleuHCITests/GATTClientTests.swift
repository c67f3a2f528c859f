import BleuATT
import BleuCore
import Foundation
import Testing

@testable import BleuHCI

/// An ``ATTServer`` answering a bearer in memory, as the far side of a link would.
actor LoopbackServer {
    var database: GATTDatabase
    var connection = ATTServerConnection()
    weak var bearer: ATTBearer?
    /// Drop every request (a peer that never answers).
    var silent = false
    private(set) var received: [[UInt8]] = []

    init(database: GATTDatabase) {
        self.database = database
    }

    func attach(_ bearer: ATTBearer) { self.bearer = bearer }
    func setSilent(_ value: Bool) { silent = value }

    func handle(_ bytes: [UInt8]) async {
        received.append(bytes)
        guard !silent else { return }
        var reply: ATTPDU?
        switch ATTServer.handle(bytes, database: database, connection: &connection) {
        case .respond(let pdu): reply = pdu
        case .read(let op): reply = op.response(value: Array(Array(repeating: UInt8(0x5A), count: 60).dropFirst(op.offset)),
                                                mtu: connection.mtu)
        case .write(let op): reply = op.successResponse
        case .subscriptionChanged(_, _, let response): reply = response
        case .ignore: break
        }
        if let reply { await bearer?.receive(reply.encoded) }
    }
}

@Suite("ATT bearer running the shared GATT procedures")
struct GATTClientTests {
    func makeClient(clock: any Clock<Duration> = ContinuousClock()) throws -> (ATTBearer, LoopbackServer, PublishedService) {
        var database = GATTDatabase(deviceName: "bleu-loop")
        let service = try database.add(ServiceDefinition(uuid: BluetoothUUID.Service.battery, characteristics: [
            CharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: [.read, .notify], permissions: .readable,
                                     descriptors: [.userDescription("level")]),
            CharacteristicDefinition(uuid: BluetoothUUID(0x2A24), properties: .read, permissions: .readable,
                                     value: Data((0..<100).map { UInt8($0) })),
        ]))
        let server = LoopbackServer(database: database)
        let bearer = ATTBearer(clock: clock) { bytes in await server.handle(bytes) }
        return (bearer, server, service)
    }

    @Test("discovers services, characteristics and descriptors, and reads a long value in blobs")
    func discovery() async throws {
        let (bearer, server, published) = try makeClient()
        await server.attach(bearer)
        #expect(try await bearer.run(.exchangeMTU(clientMTU: 517), mtu: 23) == .mtu(517))
        guard case .services(let services) = try await bearer.run(.discoverPrimaryServices, mtu: 517) else {
            Issue.record("no services"); return
        }
        #expect(services.map(\.uuid) == [BluetoothUUID.Service.genericAccess, BluetoothUUID.Service.genericAttribute,
                                         BluetoothUUID.Service.battery])
        let battery = try #require(services.last)
        #expect(battery.handle == published.handle && battery.endHandle == published.endHandle)
        guard case .characteristics(let characteristics) = try await bearer.run(
            .discoverCharacteristics(start: battery.handle, end: battery.endHandle), mtu: 517) else {
            Issue.record("no characteristics"); return
        }
        #expect(characteristics.map(\.uuid) == [BluetoothUUID(0x2A19), BluetoothUUID(0x2A24)])
        #expect(characteristics.map(\.valueHandle) == published.characteristics.map(\.valueHandle))
        #expect(characteristics[0].properties == [.read, .notify])
        #expect(characteristics[0].endHandle == characteristics[1].declarationHandle - 1)
        guard case .descriptors(let descriptors) = try await bearer.run(
            .discoverDescriptors(valueHandle: characteristics[0].valueHandle, end: characteristics[0].endHandle), mtu: 517) else {
            Issue.record("no descriptors"); return
        }
        #expect(descriptors.map(\.uuid) == [BluetoothUUID(0x2902), BluetoothUUID(0x2901)])
        // MTU 517 reads it in one go; a fresh bearer at MTU 23 needs blobs.
        let expected = (0..<100).map { UInt8($0) }
        #expect(try await bearer.run(.read(handle: characteristics[1].valueHandle), mtu: 517) == .value(expected))
        let (smallBearer, smallServer, _) = try makeClient()
        await smallServer.attach(smallBearer)
        #expect(try await smallBearer.run(.read(handle: characteristics[1].valueHandle), mtu: 23) == .value(expected))
        let blobs = await smallServer.received.filter { $0.first == 0x0C }.count
        #expect(blobs == 4, "22 + 22 + 22 + 22 + 12 bytes: one read and four blobs")
        await #expect(throws: BleuError.att(.invalidHandle)) { try await bearer.run(.read(handle: 0x0999), mtu: 23) }
    }

    @Test("a request with no response times out after 30 s on the injected clock and closes the bearer")
    func transactionTimeout() async throws {
        let clock = ManualClock()
        let (bearer, server, _) = try makeClient(clock: clock)
        await server.attach(bearer)
        await server.setSilent(true)
        let discovery = Task { try await bearer.run(.discoverPrimaryServices, mtu: 23) }
        await eventually { clock.sleeperCount >= 1 }
        clock.advance(by: .seconds(29))
        #expect(clock.sleeperCount == 1, "not yet")
        clock.advance(by: .seconds(1))
        await #expect { try await discovery.value } throws: { error in
            if case .timeout = error as? BleuError { return true }
            return false
        }
        await server.setSilent(false)
        await #expect(throws: BleuError.self, "a timed-out bearer sends nothing more") { try await bearer.run(.exchangeMTU(clientMTU: 517), mtu: 23) }
        #expect(await server.received.count == 1)
    }

    @Test("requests go one at a time; indications are confirmed; notifications are delivered")
    func sequencingAndIndications() async throws {
        let (bearer, server, _) = try makeClient()
        await server.attach(bearer)
        async let a = bearer.run(.exchangeMTU(clientMTU: 100), mtu: 23)
        async let b = bearer.run(.discoverPrimaryServices, mtu: 23)
        _ = try await (a, b)
        // Each request's response arrived before the next request went out (the loopback answers inline).
        let opcodes = await server.received.map { $0[0] }
        #expect(Set(opcodes) == [0x02, 0x10])
        var iterator = bearer.notifications.makeAsyncIterator()
        #expect(await bearer.receive(ATTPDU.handleValueIndication(handle: 12, value: [1]).encoded))
        #expect(await iterator.next() == .init(handle: 12, value: [1], isIndication: true))
        #expect(await server.received.last == [0x1E], "the indication was confirmed")
        #expect(await bearer.receive(ATTPDU.handleValueNotification(handle: 12, value: [2]).encoded))
        #expect(await iterator.next() == .init(handle: 12, value: [2], isIndication: false))
        #expect(await bearer.receive(ATTPDU.readRequest(handle: 1).encoded) == false, "requests are for the local server")
    }

    @Test("notifications the consumer leaves behind past the bearer's limit are counted, not buffered without bound")
    func notificationOverflow() async throws {
        let bearer = ATTBearer(notificationLimit: 2) { _ in }
        for value in 0..<3 {
            #expect(await bearer.receive(ATTPDU.handleValueNotification(handle: 12, value: [UInt8(value)]).encoded))
        }
        #expect(bearer.droppedNotifications == 1)
        var iterator = bearer.notifications.makeAsyncIterator()
        #expect(await iterator.next()?.value == [0], "the oldest are kept")
    }
}
