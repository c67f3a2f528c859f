import BleuCore
import Foundation

/// The btsnoop capture format (what Android's HCI snoop log and Wireshark use), with the H4
/// datalink (1002): a 16-byte file header, then one record per HCI packet, all big-endian.
public enum BTSnoop {
    /// Which way a packet went.
    public enum Direction: Sendable {
        case hostToController, controllerToHost
    }

    /// Microseconds from 0000-01-01 to 1970-01-01, the offset btsnoop timestamps carry.
    static let epochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    /// The file header: "btsnoop\0", version 1, datalink 1002 (HCI UART / H4).
    public static let fileHeader: [UInt8] = Array("btsnoop".utf8) + [0] + bigEndian(UInt32(1)) + bigEndian(UInt32(1002))

    /// One record: original and included length, flags (bit 0 received, bit 1 command/event),
    /// cumulative drops, timestamp; then the packet with its H4 indicator.
    public static func record(_ packet: H4Packet, direction: Direction, time: Date) -> [UInt8] {
        let data = packet.encoded
        var flags: UInt32 = direction == .controllerToHost ? 1 : 0
        if packet.type == .command || packet.type == .event { flags |= 2 }
        let micros = Int64((time.timeIntervalSince1970 * 1_000_000).rounded()) + epochOffset
        return bigEndian(UInt32(data.count)) + bigEndian(UInt32(data.count)) + bigEndian(flags) + bigEndian(UInt32(0))
            + bigEndian(UInt64(bitPattern: micros)) + data
    }

    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }
}

/// A transport that writes every packet, both ways, to a btsnoop file while passing it on.
public final class BTSnoopTransport: HCITransport {
    private let inner: any HCITransport
    private let file: Locked<FileHandle?>
    public let incoming: AsyncThrowingStream<H4Packet, any Error>
    private let forwarder: Task<Void, Never>

    /// Wraps `transport`, creating (or truncating) the capture at `path`.
    public init(wrapping transport: any HCITransport, path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(BTSnoop.fileHeader)),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw HCITransportError.io(.system(.createCapture, target: path))
        }
        handle.seekToEndOfFile()
        inner = transport
        let file = Locked<FileHandle?>(handle)
        self.file = file
        let (stream, continuation) = AsyncThrowingStream<H4Packet, any Error>.makeStream()
        incoming = stream
        forwarder = Task {
            do {
                for try await packet in transport.incoming {
                    file.withLock { $0?.write(Data(BTSnoop.record(packet, direction: .controllerToHost, time: Date()))) }
                    continuation.yield(packet)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }

    public func send(_ packet: H4Packet) async throws {
        file.withLock { $0?.write(Data(BTSnoop.record(packet, direction: .hostToController, time: Date()))) }
        try await inner.send(packet)
    }

    /// Closes the wrapped transport and the capture file.
    public func close() async {
        await inner.close()
        file.withLock {
            try? $0?.close()
            $0 = nil
        }
    }
}
