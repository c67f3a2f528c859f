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
    /// What the hub allows its clients, so that one cannot take what the others need.
    public struct Limits: Sendable, Hashable {
        /// Most clients connected at once; one more is refused, with the reason.
        public var maximumClients: Int
        /// Bytes the hub may have waiting to be sent to one client: a client that stops
        /// reading is dropped once this much piles up, so its unread answers and events cannot
        /// grow the hub's memory without bound.
        public var maximumUnsentBytes: Int
        /// How long a client has to send its hello after connecting before it is dropped.
        public var helloDeadline: Duration

        /// Limits; the defaults suit a hub shared by a few dozen test processes.
        public init(maximumClients: Int = 256, maximumUnsentBytes: Int = 16 << 20, helloDeadline: Duration = .seconds(10)) {
            self.maximumClients = maximumClients
            self.maximumUnsentBytes = maximumUnsentBytes
            self.helloDeadline = helloDeadline
        }
    }

    /// What this hub allows its clients.
    public let limits: Limits

    /// The medium served.
    public let bus: EmulatorBus
    private let token: String?
    private let log: @Sendable (String) -> Void
    private let group: any EventLoopGroup
    /// The listening sockets and the clients' connections, so ``stop()`` closes them all.
    private let channels = Locked<[ObjectIdentifier: any Channel]>([:])
    private let clientCounter = Locked(0)
    private let connectedClients = Locked(0)

    /// - Parameters:
    ///   - bus: the medium to serve.
    ///   - token: a secret every client's hello must carry (for a hub on TCP); `nil` lets any
    ///     client that reaches the socket in.
    ///   - log: takes one line per refused or dropped client.
    ///   - limits: what the hub allows each client.
    ///   - group: the event loops that run the sockets.
    public init(bus: EmulatorBus, token: String? = nil, log: @escaping @Sendable (String) -> Void = { _ in },
                limits: Limits = Limits(), group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.bus = bus
        self.limits = limits
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
                // Reads only when the client's requests so far are done (HubSessionHandler).
                .childChannelOption(.autoRead, value: false)
                .childChannelOption(.writeBufferWaterMark, value: .init(low: limits.maximumUnsentBytes / 2, high: limits.maximumUnsentBytes))
                .childChannelInitializer { [self] channel in
                    channel.eventLoop.makeCompletedFuture {
                        switch self.admit(channel) {
                        case .success(let handler):
                            try channel.pipeline.syncOperations.addHandler(handler)
                        case .failure(let refusal):
                            // Full: the client reads the reason in place of a welcome; the
                            // connection closes once it is written.
                            channel.writeAndFlush(ByteBuffer(bytes: HubProtocol.refused(refusal.reason))).whenComplete { _ in
                                channel.close(promise: nil)
                            }
                        }
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

    /// How many clients are connected.
    public var connectedClientCount: Int { connectedClients.withLock { $0 } }

    /// Stops listening and closes every client's connection (their managers leave the air).
    public func stop() async {
        let open = channels.withLock { channels in
            defer { channels = [:] }
            return Array(channels.values)
        }
        for channel in open { try? await channel.close() }
    }

    /// Why a client was not let in.
    private struct Refusal: Error {
        let reason: String
    }

    /// The handler of a new client's connection, or the reason (logged) it is refused: the hub is full.
    private func admit(_ channel: any Channel) -> Result<HubSessionHandler, Refusal> {
        let number = clientCounter.withLock { count in
            count += 1
            return count
        }
        let name = "client \(number) (\(channel.remoteAddress.map { "\($0)" } ?? "unix socket"))"
        let admitted = connectedClients.withLock { count in
            guard count < self.limits.maximumClients else { return false }
            count += 1
            return true
        }
        guard admitted else {
            let refusal = Refusal(reason: "the hub has its maximum of \(limits.maximumClients) clients")
            log("hub: refused \(name): \(refusal.reason)")
            return .failure(refusal)
        }
        channel.closeFuture.whenComplete { [connectedClients] _ in connectedClients.withLock { $0 -= 1 } }
        let session = HubSession(bus: bus, token: token, name: name, send: { bytes in
            channel.sendInOrder(bytes)
        }, close: {
            channel.closeInOrder()
        }, log: log, isBackedUp: {
            !channel.isWritable
        })
        keep(channel)
        channel.eventLoop.scheduleTask(in: .milliseconds(Int64(self.limits.helloDeadline / .milliseconds(1)))) {
            if !session.isGreeted { session.drop("no hello within \(self.limits.helloDeadline)") }
        }
        return .success(HubSessionHandler(session: session))
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

    func channelActive(context: ChannelHandlerContext) {
        context.read()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        session.take(unwrapInboundIn(data).readableBytesView)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        handleFrames(context: context)
    }

    /// One request of this client per turn of the event loop: while more wait, the next is
    /// handled after the loop has served its other connections (a task due now would run in
    /// this turn still), and the socket is not read; once none waits, it is read again. So a
    /// client flooding the hub waits behind the others, and what it sends waits in its socket.
    private func handleFrames(context: ChannelHandlerContext) {
        guard session.handleNextFrame() else {
            context.read()
            return
        }
        let loop = context.eventLoop
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: loop)
        loop.scheduleTask(in: .nanoseconds(1)) { bound.value.handler.handleFrames(context: bound.value.context) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        session.connectionClosed()
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if !context.channel.isWritable {
            session.drop("not reading: its answers pile up unsent")
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

extension Channel {
    /// Writes `bytes` as a task of the channel's event loop, after what was sent before.
    ///
    /// Never at once, even on the loop: hub sessions and clients send from inside their locks
    /// and the engine's (a completion, an event), and a write made on the loop at once can run
    /// the pipeline there and then (a failed write closes the connection, a flush reads), back
    /// into the code that holds them.
    func sendInOrder(_ bytes: [UInt8]) {
        eventLoop.execute { self.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil) }
    }

    /// Closes the channel after what was sent before (``sendInOrder(_:)``) has been written.
    func closeInOrder() {
        eventLoop.execute { self.close(promise: nil) }
    }
}
