import BleuCore
import Foundation

extension EmulatorBus {
    /// A bus whose medium is `hub`'s, joined to it in memory as a socket would join two
    /// processes: every call, reply and event goes through the hub protocol's bytes, on two
    /// queues (one each way) that deliver them in order. The hub protocol's tests run on it;
    /// `EmulatorBus(connectingTo:)` (BleuEmulatorHub) joins processes the same way over a socket.
    package convenience init(loopbackTo hub: EmulatorBus, token: String? = nil, hubToken: String? = nil,
                             log: @escaping @Sendable (String) -> Void = { _ in }) async throws {
        let link = HubLoopbackLink()
        let client = HubClient(send: { link.toHub($0) }, close: { link.close() }, isTransportThread: { link.isClientThread })
        let session = HubSession(bus: hub, token: hubToken, name: "loopback client", send: { link.toClient($0) },
                                 close: { link.close() }, log: log)
        link.connect(client: client, session: session)
        do {
            try await client.greet(token: token)
        } catch {
            link.close()
            throw error
        }
        self.init(hub: client)
        closesConnection { link.close() }
    }
}

/// Two ordered byte pipes between a client and a hub session in one process.
package final class HubLoopbackLink: Sendable {
    private let clientQueue = DispatchQueue(label: "bleu.hub.loopback.client")
    private let hubQueue = DispatchQueue(label: "bleu.hub.loopback.hub")
    private let clientKey = DispatchSpecificKey<Bool>()
    private let ends = Locked<(client: HubClient?, session: HubSession?, closed: Bool)>((nil, nil, false))

    init() {
        clientQueue.setSpecific(key: clientKey, value: true)
    }

    func connect(client: HubClient, session: HubSession) {
        ends.withLock { $0 = (client, session, false) }
    }

    var isClientThread: Bool { DispatchQueue.getSpecific(key: clientKey) == true }

    func toHub(_ bytes: [UInt8]) {
        hubQueue.async { [ends] in ends.withLock { $0.session }?.receive(bytes) }
    }

    func toClient(_ bytes: [UInt8]) {
        clientQueue.async { [ends] in ends.withLock { $0.client }?.receive(bytes) }
    }

    /// Either side closed: both learn it, after what was already sent.
    package func close() {
        hubQueue.async { [ends] in
            let session = ends.withLock { $0.closed ? nil : $0.session }
            session?.connectionClosed()
            self.clientQueue.async {
                let client: HubClient? = ends.withLock { state in
                    guard !state.closed else { return nil }
                    state.closed = true
                    defer { state = (nil, nil, true) }
                    return state.client
                }
                client?.connectionClosed(reason: "the loopback link closed")
            }
        }
    }
}
