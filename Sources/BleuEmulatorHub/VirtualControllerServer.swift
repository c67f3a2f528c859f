import BleuCore
import BleuEmulator
import BleuHCI
import Foundation
import NIOCore
import NIOPosix

/// Virtual HCI controllers on a bus's air, each served as H4 over a loopback TCP port
/// (`bleu hub --hci tcp:127.0.0.1:PORT`): any HCI host that speaks H4 over TCP — BleuHCI's
/// `NIOHCITransport`, Bumble's `tcp-client:` transport — connects to one and drives a device
/// on the same air as the hub's clients (Docs/EmulatorLinkModel.md lists what the controller
/// implements).
///
/// One host at a time per port, as one host owns a controller: a second is refused with a log
/// line. Each host gets the device the port names, with the same address each time; when its
/// connection closes the device leaves the air, and its links end at their peers as a
/// supervision timeout.
public final class VirtualControllerServer: Sendable {
    private let bus: EmulatorBus
    private let log: @Sendable (String) -> Void
    private let group: any EventLoopGroup
    private let listeners = Locked<[any Channel]>([])
    /// The port each open host connection came to, by the connection's identity.
    private let hosts = Locked<[ObjectIdentifier: (port: Int, channel: any Channel)]>([:])

    /// - Parameters:
    ///   - bus: the air the controllers' devices are on (a bus of this process).
    ///   - log: gets a line for each host that connects, leaves, is refused or breaks H4.
    ///   - group: the event loops that run the sockets.
    public init(bus: EmulatorBus, log: @escaping @Sendable (String) -> Void = { _ in },
                group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.bus = bus
        self.log = log
        self.group = group
    }

    /// Listens on each loopback TCP endpoint (`tcp:127.0.0.1:PORT`; port 0 picks one). Returns
    /// the endpoints bound, with the ports chosen.
    @discardableResult
    public func start(at endpoints: [HubEndpoint]) async throws -> [HubEndpoint] {
        var bound: [HubEndpoint] = []
        for endpoint in endpoints {
            guard case let .tcp(host, port) = endpoint, endpoint.isLocal else {
                throw BleuError.invalidState(.invalidConfiguration(
                    setting: "controller endpoint \(endpoint)", requirement: "must be tcp: on a loopback address"))
            }
            let bootstrap = ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 8)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { [self] channel in
                    channel.eventLoop.makeCompletedFuture {
                        let port = channel.localAddress?.port ?? port
                        guard let handler = self.admit(channel, port: port) else {
                            self.log("controller tcp:\(host):\(port): a second host refused (one host at a time)")
                            channel.close(promise: nil)
                            return
                        }
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                }
            let channel = try await bootstrap.bind(host: host, port: port).get()
            listeners.withLock { $0.append(channel) }
            bound.append(.tcp(host: host, port: channel.localAddress?.port ?? port))
        }
        return bound
    }

    /// Stops listening and closes every host's connection (their devices leave the air).
    public func stop() async {
        let open = listeners.withLock { listeners in
            defer { listeners = [] }
            return listeners
        } + hosts.withLock { hosts in
            defer { hosts = [:] }
            return hosts.values.map(\.channel)
        }
        for channel in open { try? await channel.close() }
    }

    /// The handler for a host on `port`, or nil when that port has one already.
    private func admit(_ channel: any Channel, port: Int) -> H4ControllerHandler? {
        let id = ObjectIdentifier(channel)
        let admitted = hosts.withLock { hosts in
            guard !hosts.values.contains(where: { $0.port == port }) else { return false }
            hosts[id] = (port, channel)
            return true
        }
        guard admitted else { return nil }
        let log = log
        let controller = VirtualController(bus: bus, device: "hci:\(port)", send: { packet in
            channel.sendInOrder(packet.encoded)
        }, log: { log("controller tcp:\(port): \($0)") })
        log("controller tcp:\(port): a host connected; its device is \(controller.address)")
        return H4ControllerHandler(controller: controller, log: { log("controller tcp:\(port): \($0)") }) { [weak self] in
            _ = self?.hosts.withLock { $0.removeValue(forKey: id) }
        }
    }
}

/// Reads H4 packets from a host and hands them to its controller; the connection's end takes
/// the controller's device off the air.
final class H4ControllerHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let controller: VirtualController
    private let log: @Sendable (String) -> Void
    private let closed: @Sendable () -> Void
    private var deframer = H4Deframer()

    init(controller: VirtualController, log: @escaping @Sendable (String) -> Void, closed: @escaping @Sendable () -> Void) {
        self.controller = controller
        self.log = log
        self.closed = closed
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        do {
            for packet in try deframer.push(unwrapInboundIn(data).readableBytesView) { controller.receive(packet) }
        } catch {
            // H4 cannot find its place again in a stream that lost it.
            log("the host's H4 stream broke (\(error)); closing its connection")
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        controller.close()
        closed()
        log("its host left; its device left the air")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
