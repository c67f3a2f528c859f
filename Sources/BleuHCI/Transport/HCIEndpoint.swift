import BleuCore

/// Where a controller is, as a user writes it on a command line:
///
/// - `tcp:HOST:PORT` — a controller listening on TCP (Bumble's virtual controllers);
/// - `serial:PATH` or `serial:PATH@BAUD`, or just a device path such as `/dev/ttyACM0` — an H4
///   UART (115200 baud and RTS/CTS by default);
/// - `hci-socket:N` — the Linux HCI user channel of `hciN` (Linux only; see Docs/BleuHCI.md).
public enum HCIEndpoint: Hashable, Sendable, CustomStringConvertible {
    case tcp(host: String, port: Int)
    case serial(path: String, baudRate: Int)
    case userChannel(index: UInt16)

    /// Parses an endpoint; `nil` for text of none of the forms above.
    public init?(_ text: String) {
        if text.hasPrefix("tcp:") {
            guard let (host, port) = parseTCPEndpoint(text) else { return nil }
            self = .tcp(host: host, port: port)
        } else if text.hasPrefix("hci-socket:") {
            guard let index = UInt16(text.dropFirst(11)) else { return nil }
            self = .userChannel(index: index)
        } else if text.hasPrefix("serial:") || text.hasPrefix("/") {
            let spec = text.hasPrefix("serial:") ? String(text.dropFirst(7)) : text
            let parts = spec.split(separator: "@", maxSplits: 1)
            guard let path = parts.first, !path.isEmpty else { return nil }
            var baud = 115_200
            if parts.count == 2 {
                guard let rate = Int(parts[1]) else { return nil }
                baud = rate
            }
            self = .serial(path: String(path), baudRate: baud)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case let .tcp(host, port): "tcp:\(host):\(port)"
        case let .serial(path, baud): "serial:\(path)@\(baud)"
        case .userChannel(let index): "hci-socket:\(index)"
        }
    }

    /// Opens the transport. Throws ``HCITransportError/io(_:)`` saying what failed and what to do.
    public func openTransport() async throws -> any HCITransport {
        switch self {
        case let .tcp(host, port):
            return try await NIOHCITransport.connect(host: host, port: port)
        case let .serial(path, baud):
            return try await SerialPort.open(path: path, baudRate: baud)
        case .userChannel(let index):
            #if os(Linux)
            return try HCIUserChannelTransport.open(deviceIndex: index)
            #else
            throw HCITransportError.unavailableOnPlatform(self)
            #endif
        }
    }
}
