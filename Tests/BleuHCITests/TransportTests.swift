#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BleuCore
import NIOCore
import NIOPosix
import Testing

@testable import BleuHCI

@Suite("Transports: in-memory, TCP (SwiftNIO), serial through a pty")
struct TransportTests {
    @Test("in-memory ends deliver in order, close both ways, and bound their buffers")
    func inMemory() async throws {
        let (a, b) = InMemoryHCITransport.makePair(bufferLimit: 2)
        try await a.send(HCICommand.reset.h4Packet)
        try await a.send(HCICommand.readBDADDR.h4Packet)
        await #expect(throws: HCITransportError.bufferOverflow(limit: 2)) { try await a.send(HCICommand.reset.h4Packet) }
        var received: [H4Packet] = []
        do {
            for try await packet in b.incoming { received.append(packet) }
            Issue.record("the stream should end with the overflow")
        } catch {
            #expect(error as? HCITransportError == .bufferOverflow(limit: 2))
        }
        #expect(received == [HCICommand.reset.h4Packet, HCICommand.readBDADDR.h4Packet])
        await b.close()
        await #expect(throws: HCITransportError.closed) { try await a.send(HCICommand.reset.h4Packet) }
    }

    @Test("the host starts over TCP against a loopback server that answers like a controller, one byte per write")
    func tcp() async throws {
        let server = try await MiniControllerServer.start()
        let transport = try await NIOHCITransport.connect(host: "127.0.0.1", port: server.port)
        let host = HCIHost(transport: transport, clock: ManualClock())
        let info = try await host.start()
        #expect(info.address == BluetoothAddress(string: "C0:00:00:00:00:01")!)
        #expect(info.aclDataPacketLength == 27)
        await host.stop()
        try await server.channel.close()
    }

    @Test("connecting to a port nobody listens on fails with one clear error")
    func tcpRefused() async throws {
        let server = try await MiniControllerServer.start()
        let port = server.port
        try await server.channel.close()
        await #expect {
            _ = try await NIOHCITransport.connect(host: "127.0.0.1", port: port)
        } throws: { error in
            guard case .io(let failure) = error as? HCITransportError else { return false }
            return failure.step == .connect && failure.target == "127.0.0.1:\(port)"
        }
    }

    @Test("a serial port configured with termios carries H4 both ways (through a pty)")
    func serialThroughPTY() async throws {
        let (master, path) = try #require(openPTY())
        defer { _ = close(master) }
        let transport = try await SerialPort.open(path: path, baudRate: 115_200, hardwareFlowControl: false)
        // Controller → host, in two pieces.
        let event = HCIEvent.commandComplete(numHCICommandPackets: 1, opcode: .reset, returnParameters: [0]).h4Packet
        let bytes = event.encoded
        _ = Array(bytes.prefix(3)).withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        _ = Array(bytes.dropFirst(3)).withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        var iterator = transport.incoming.makeAsyncIterator()
        #expect(try await iterator.next() == event)
        // Host → controller.
        let command = HCICommand.leSetScanEnable(enable: true, filterDuplicates: false).h4Packet
        try await transport.send(command)
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64)
        while out.count < command.encoded.count {
            let n = read(master, &chunk, chunk.count)
            try #require(n > 0)
            out += chunk[0..<n]
        }
        #expect(out == command.encoded)
        await transport.close()
    }

    @Test("opening a path that is not a serial device fails clearly")
    func serialErrors() async throws {
        await #expect {
            _ = try await SerialPort.open(path: "/nonexistent/tty")
        } throws: { error in
            guard case .io(let failure) = error as? HCITransportError else { return false }
            return failure.step == .open && failure.target == "/nonexistent/tty" && failure.errno == ENOENT
                && failure.description.contains("No such file or directory")
        }
        await #expect(throws: HCITransportError.unsupportedBaudRate(12345, supported: SerialPort.supportedBaudRates)) {
            _ = try await SerialPort.open(path: "/dev/null", baudRate: 12345)
        }
        await #expect {
            _ = try await SerialPort.open(path: "/dev/null")
        } throws: { error in
            guard case .io(let failure) = error as? HCITransportError else { return false }
            return failure.step == .readSerialSettings && failure.target == "/dev/null" && failure.errno == ENOTTY
        }
    }
}

/// Opens a pseudo-terminal pair: the master descriptor and the path of the slave (the "serial device").
func openPTY() -> (CInt, String)? {
    #if os(Linux)
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    guard master >= 0 else { return nil }
    var unlock: CInt = 0
    var number: CInt = 0
    // TIOCSPTLCK and TIOCGPTN: unlock the slave and ask its number (what unlockpt/ptsname do).
    guard ioctl(master, UInt(0x4004_5431), &unlock) == 0, ioctl(master, UInt(0x8004_5430), &number) == 0 else {
        _ = close(master)
        return nil
    }
    return (master, "/dev/pts/\(number)")
    #else
    let master = posix_openpt(O_RDWR | O_NOCTTY)
    guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0, let name = ptsname(master) else { return nil }
    return (master, String(cString: name))
    #endif
}

/// A loopback TCP server that answers the start-up commands the way ``FakeController`` does,
/// writing its answers one byte at a time to exercise the deframer.
enum MiniControllerServer {
    struct Running {
        let channel: any Channel
        var port: Int { channel.localAddress?.port ?? 0 }
    }

    static func start() async throws -> Running {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(Handler())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return Running(channel: channel)
    }

    final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        var deframer = H4Deframer()
        let answers = FakeController.startUpAnswers()

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            guard let packets = try? deframer.push(buffer.readableBytesView) else { return context.close(promise: nil) }
            for packet in packets where packet.type == .command {
                guard let command = try? HCICommand(decoding: packet.body) else { continue }
                for event in answers(command) ?? [] {
                    for byte in event.h4Packet.encoded {
                        context.write(wrapOutboundOut(ByteBuffer(bytes: [byte])), promise: nil)
                    }
                }
            }
            context.flush()
        }
    }
}
