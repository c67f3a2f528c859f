import BleuCore
import BleuEmulator
import Foundation
import NIOCore
import NIOPosix

extension EmulatorBus {
    /// A bus whose medium is a hub's (`bleu hub`, or an ``EmulatorHubServer`` in another
    /// process): managers created on it behave as on an in-process bus — the same events in
    /// the same order, the same link model — and meet every other process's managers on that
    /// medium. The bus has the hub's configuration and seed.
    ///
    /// - Parameters:
    ///   - endpoint: `unix:PATH` or `tcp:HOST:PORT`.
    ///   - token: the hub's secret, if it has one.
    ///   - group: the event loops that run the connection.
    /// - Throws: ``/BleuCore/BleuError/InvalidState/invalidConfiguration(setting:requirement:)`` for
    ///   text that is not an endpoint; ``/BleuCore/BleuError/InvalidState/hubConnectionLost(reason:)``
    ///   when the hub cannot be reached or refuses the client (its reason included).
    public convenience init(connectingTo endpoint: String, token: String? = nil,
                            group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws {
        guard let parsed = HubEndpoint(endpoint) else {
            throw BleuError.invalidState(.invalidConfiguration(setting: "hub endpoint '\(endpoint)'",
                                                               requirement: "must be unix:PATH or tcp:HOST:PORT"))
        }
        let pending = PendingClient()
        let bootstrap = ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let client = HubClient(send: { bytes in channel.sendInOrder(bytes) },
                                           close: { channel.closeInOrder() },
                                           isTransportThread: { channel.eventLoop.inEventLoop })
                    pending.client = client
                    try channel.pipeline.syncOperations.addHandler(HubClientHandler(client: client))
                }
            }
        let channel: any Channel
        do {
            switch parsed {
            case .unix(let path): channel = try await bootstrap.connect(unixDomainSocketPath: path).get()
            case let .tcp(host, port): channel = try await bootstrap.connect(host: host, port: port).get()
            }
        } catch {
            throw BleuError.invalidState(.hubConnectionLost(reason: "could not connect to \(parsed): \(error)"))
        }
        guard let client = pending.client else {
            channel.close(promise: nil)
            throw BleuError.invalidState(.hubConnectionLost(reason: "the connection to \(parsed) was not set up"))
        }
        do {
            try await client.greet(token: token)
        } catch {
            channel.close(promise: nil)
            throw error
        }
        self.init(hub: client)
        closesConnection { channel.closeInOrder() }
    }
}

/// The client made while the channel is set up.
private final class PendingClient: Sendable {
    private let value = Locked<HubClient?>(nil)

    var client: HubClient? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

/// Feeds a client what the hub sends; lives on the connection's event loop.
final class HubClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let client: HubClient

    init(client: HubClient) {
        self.client = client
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        client.receive(unwrapInboundIn(data).readableBytesView)
    }

    func channelInactive(context: ChannelHandlerContext) {
        client.connectionClosed(reason: "the hub closed the connection")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        client.connectionClosed(reason: "\(error)")
        context.close(promise: nil)
    }
}
