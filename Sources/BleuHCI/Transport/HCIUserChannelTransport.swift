#if os(Linux)
import BleuCore
import Foundation
import Glibc

/// The Linux HCI user channel: exclusive raw access to a local controller (`hciN`) with the
/// kernel's Bluetooth stack out of the way. Needs `CAP_NET_ADMIN` (or root) and the device
/// down (`sudo hciconfig hci0 down` or `btmgmt --index 0 power off`); see Docs/BleuHCI.md.
///
/// Each read and write on the socket is exactly one H4 packet, so this transport writes every
/// packet with its own `write(2)` (a stream transport could coalesce them) and reads on a
/// dedicated thread that polls, so it notices ``close()`` within 100 ms and closes the socket.
public final class HCIUserChannelTransport: HCITransport {
    public let incoming: AsyncThrowingStream<H4Packet, any Error>
    private let fd: CInt
    private let closed = Locked(false)

    private init(fd: CInt, bufferLimit: Int) {
        self.fd = fd
        let (stream, continuation) = AsyncThrowingStream<H4Packet, any Error>.makeStream(bufferingPolicy: .bufferingOldest(bufferLimit))
        incoming = stream
        let closed = self.closed
        let thread = Thread {
            // The reader owns the descriptor's lifetime: it closes it on the way out, so the number is
            // never reused while it might still poll it.
            defer {
                closed.withLock {
                    $0 = true
                    _ = Glibc.close(fd)
                }
            }
            var deframer = H4Deframer()
            var buffer = [UInt8](repeating: 0, count: 65_540)
            while !closed.withLock({ $0 }) {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&poller, 1, 100)
                if ready == 0 || (ready < 0 && errno == EINTR) { continue }
                let count = ready < 0 ? -1 : read(fd, &buffer, buffer.count)
                guard count > 0 else {
                    if closed.withLock({ $0 }) { break }
                    continuation.finish(throwing: count == 0 ? HCITransportError.closed : HCITransportError.io(.system(.read, target: "the HCI socket")))
                    return
                }
                do {
                    for packet in try deframer.push(buffer[0..<count]) {
                        if case .dropped = continuation.yield(packet) {
                            continuation.finish(throwing: HCITransportError.bufferOverflow(limit: bufferLimit))
                            return
                        }
                    }
                } catch {
                    deframer.reset()  // each read is one packet: the next read starts clean
                }
            }
            continuation.finish()
        }
        thread.start()
    }

    /// Opens `hci<deviceIndex>` as a user channel. Throws ``HCITransportError/io(_:)`` with the
    /// system error (EBUSY: the device is up — power it off first; EPERM: run with CAP_NET_ADMIN).
    public static func open(deviceIndex: UInt16, bufferLimit: Int = 4096) throws -> HCIUserChannelTransport {
        let afBluetooth: CInt = 31, btprotoHCI: CInt = 1, hciChannelUser: UInt16 = 1
        let fd = socket(afBluetooth, CInt(SOCK_RAW.rawValue) | CInt(SOCK_CLOEXEC.rawValue), btprotoHCI)
        guard fd >= 0 else { throw HCITransportError.io(.system(.createSocket, target: "hci\(deviceIndex)")) }
        // struct sockaddr_hci { sa_family_t hci_family; unsigned short hci_dev; unsigned short hci_channel; }
        var address: (UInt16, UInt16, UInt16) = (UInt16(afBluetooth), deviceIndex, hciChannelUser)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, 6) }
        }
        guard result == 0 else {
            let failure = TransportFailure.system(.bindUserChannel, target: "hci\(deviceIndex)")
            _ = Glibc.close(fd)
            throw HCITransportError.io(failure)
        }
        return HCIUserChannelTransport(fd: fd, bufferLimit: bufferLimit)
    }

    public func send(_ packet: H4Packet) async throws {
        let bytes = packet.encoded
        let fd = self.fd
        // Under the lock, so the reader cannot close the descriptor mid-write.
        try closed.withLock { isClosed throws(HCITransportError) in
            guard !isClosed else { throw .closed }
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written == bytes.count else { throw .io(.system(.write, target: "the HCI socket")) }
        }
    }

    /// Stops the reader, which closes the socket within 100 ms.
    public func close() async {
        closed.withLock { $0 = true }
    }
}
#endif
