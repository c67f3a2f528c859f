import BleuCore
import BleuEmulator
import Foundation
import NIOCore
import NIOPosix

/// Serves an ``/BleuEmulator/EmulatorBus`` to other processes: each connection is a client
/// whose managers live on this bus (see Docs/EmulatorLinkModel.md, "Several processes").
///
/// ```swift
/// let bus = EmulatorBus(configuration: .default)
/// let hub = EmulatorHubServer(bus: bus)
/// try await hub.start(at: [HubEndpoint("unix:/tmp/bleu.sock")!])
/// // in another process:
/// let remote = try await EmulatorBus(connectingTo: "unix:/tmp/bleu.sock")
/// let central = EmulatedCentralManager(bus: remote)
/// ```
public final class EmulatorHubServer: Sendable {
    /// The medium served.
    public let bus: EmulatorBus
    private let token: String?
    private let log: @Sendable (String) -> Void
    private let group: any EventLoopGroup
    /// The listening sockets and the clients' connections, so ``stop()`` closes them all.
    private let channels = Locked<[ObjectIdentifier: any Channel]>([:])
    private let clientCounter = Locked(0)

    /// - Parameters:
    ///   - bus: the medium to serve.
    ///   - token: a secret every client's hello must carry (for a hub on TCP); `nil` lets any
    ///     client that reaches the socket in.
    ///   - log: takes one line per refused or dropped client.
    ///   - group: the event loops that run the sockets.
    public init(bus: EmulatorBus, token: String? = nil, log: @escaping @Sendable (String) -> Void = { _ in },
                group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.bus = bus
        self.token = token
        self.log = log
        self.group = group
    }

    /// Listens at `endpoints`. A TCP endpoint on an address other than loopback is refused
    /// unless `allowingRemoteClients` (then give the hub a token). A Unix-domain socket path
    /// that exists is replaced. Returns the endpoints bound (a TCP port 0 becomes the port the
    /// system chose).
    @discardableResult
    public func start(at endpoints: [HubEndpoint], allowingRemoteClients: Bool = false) async throws -> [HubEndpoint] {
        var bound: [HubEndpoint] = []
        for endpoint in endpoints {
            guard endpoint.isLocal || allowingRemoteClients else {
                throw BleuError.invalidState(.invalidConfiguration(
                    setting: "hub endpoint \(endpoint)", requirement: "must be a loopback address unless remote clients are allowed"))
            }
            let bootstrap = ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 64)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { [self] channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(self.sessionHandler(for: channel))
                    }
                }
            let channel: any Channel
            switch endpoint {
            case .unix(let path):
                if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
                channel = try await bootstrap.bind(unixDomainSocketPath: path).get()
                bound.append(endpoint)
            case let .tcp(host, port):
                channel = try await bootstrap.bind(host: host, port: port).get()
                bound.append(.tcp(host: host, port: channel.localAddress?.port ?? port))
            }
            keep(channel)
        }
        return bound
    }

    /// Stops listening and closes every client's connection (their managers leave the air).
    public func stop() async {
        let open = channels.withLock { channels in
            defer { channels = [:] }
            return Array(channels.values)
        }
        for channel in open { try? await channel.close() }
    }

    private func sessionHandler(for channel: any Channel) -> HubSessionHandler {
        let number = clientCounter.withLock { count in
            count += 1
            return count
        }
        let name = "client \(number) (\(channel.remoteAddress.map { "\($0)" } ?? "unix socket"))"
        let session = HubSession(bus: bus, token: token, name: name, send: { bytes in
            channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
        }, close: {
            channel.close(promise: nil)
        }, log: log)
        keep(channel)
        return HubSessionHandler(session: session)
    }

    /// Holds a channel until it closes.
    private func keep(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        channels.withLock { $0[key] = channel }
        channel.closeFuture.whenComplete { [channels] _ in channels.withLock { $0[key] = nil } }
    }
}

/// Feeds a session what its client sends; lives on the connection's event loop.
final class HubSessionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let session: HubSession

    init(session: HubSession) {
        self.session = session
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        session.receive(unwrapInboundIn(data).readableBytesView)
    }

    func channelInactive(context: ChannelHandlerContext) {
        session.connectionClosed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
