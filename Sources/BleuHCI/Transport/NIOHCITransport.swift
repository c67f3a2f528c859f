import BleuCore

import NIOCore
import NIOPosix

/// An H4 byte stream over a SwiftNIO channel: a TCP connection to a virtual controller (Bumble,
/// Zephyr's native_sim, an HCI bridge) or a serial device (see ``SerialPort``).
///
/// Incoming bytes go through an ``H4Deframer``; a framing error closes the channel and ends
/// ``incoming`` with ``HCITransportError/framing(_:)``. At most `bufferLimit` packets wait for
/// the host; past that ``incoming`` ends with ``HCITransportError/bufferOverflow(limit:)``.
public final class NIOHCITransport: HCITransport {
    public let incoming: AsyncThrowingStream<H4Packet, any Error>
    private let channel: any Channel

    private init(channel: any Channel, incoming: AsyncThrowingStream<H4Packet, any Error>) {
        self.channel = channel
        self.incoming = incoming
    }

    /// Connects over TCP to a controller listening at `host`:`port`.
    public static func connect(host: String, port: Int, bufferLimit: Int = 4096,
                               group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> NIOHCITransport {
        let (stream, continuation) = AsyncThrowingStream<H4Packet, any Error>.makeStream(bufferingPolicy: .bufferingOldest(bufferLimit))
        do {
            let channel = try await ClientBootstrap(group: group)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .connectTimeout(.seconds(5))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(H4InboundHandler(continuation, limit: bufferLimit))
                    }
                }
                .connect(host: host, port: port).get()
            return NIOHCITransport(channel: channel, incoming: stream)
        } catch {
            continuation.finish()
            throw HCITransportError.io(TransportFailure(.connect, target: "\(host):\(port)", message: "\(error)"))
        }
    }

    /// Takes ownership of an open file descriptor carrying an H4 byte stream (a serial device
    /// configured with termios, a pty). The descriptor is closed with the transport.
    public static func open(fileDescriptor: CInt, bufferLimit: Int = 4096,
                            group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> NIOHCITransport {
        let (stream, continuation) = AsyncThrowingStream<H4Packet, any Error>.makeStream(bufferingPolicy: .bufferingOldest(bufferLimit))
        do {
            let channel = try await NIOPipeBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(H4InboundHandler(continuation, limit: bufferLimit))
                    }
                }
                .takingOwnershipOfDescriptor(inputOutput: fileDescriptor).get()
            return NIOHCITransport(channel: channel, incoming: stream)
        } catch {
            continuation.finish()
            throw HCITransportError.io(TransportFailure(.adoptDescriptor, target: "\(fileDescriptor)", message: "\(error)"))
        }
    }

    public func send(_ packet: H4Packet) async throws {
        try await send(contentsOf: [packet])
    }

    /// Sends the packets' bytes, in order, in one write.
    public func send(contentsOf packets: [H4Packet]) async throws {
        var buffer = channel.allocator.buffer(capacity: packets.reduce(0) { $0 + 1 + $1.body.count })
        for packet in packets {
            buffer.writeInteger(packet.type.rawValue)
            buffer.writeBytes(packet.body)
        }
        do {
            try await channel.writeAndFlush(buffer)
        } catch {
            throw channel.isActive ? HCITransportError.io(TransportFailure(.write, target: "\(channel.remoteAddress.map { "\($0)" } ?? "the channel")", message: "\(error)")) : HCITransportError.closed
        }
    }

    public func close() async {
        try? await channel.close()
    }
}

/// Deframes H4 and feeds the transport's stream. Lives on the channel's event loop.
final class H4InboundHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private var deframer = H4Deframer()
    private let continuation: AsyncThrowingStream<H4Packet, any Error>.Continuation
    private let limit: Int

    init(_ continuation: AsyncThrowingStream<H4Packet, any Error>.Continuation, limit: Int) {
        self.continuation = continuation
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        do {
            for packet in try deframer.push(buffer.readableBytesView) {
                if case .dropped = continuation.yield(packet) {
                    continuation.finish(throwing: HCITransportError.bufferOverflow(limit: limit))
                    context.close(promise: nil)
                    return
                }
            }
        } catch {
            continuation.finish(throwing: HCITransportError.framing(error))
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish(throwing: HCITransportError.io(TransportFailure(.read, target: "\(context.remoteAddress.map { "\($0)" } ?? "the channel")", message: "\(error)")))
        context.close(promise: nil)
    }
}
