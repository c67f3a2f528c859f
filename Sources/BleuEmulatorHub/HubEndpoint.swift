import BleuCore
import Foundation

/// Where a hub listens, or where a client finds it, as a user writes it on a command line:
///
/// - `unix:PATH` — a Unix-domain socket (the default: only processes of this machine that may
///   open the path reach it);
/// - `tcp:HOST:PORT` — a TCP socket. A hub listens on loopback addresses only unless told
///   otherwise (see ``EmulatorHubServer/start(at:allowingRemoteClients:)``).
public enum HubEndpoint: Hashable, Sendable, CustomStringConvertible {
    case unix(path: String)
    case tcp(host: String, port: Int)

    /// Parses an endpoint; `nil` for text of neither form.
    public init?(_ text: String) {
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard !path.isEmpty else { return nil }
            self = .unix(path: path)
        } else if let (host, port) = parseTCPEndpoint(text) {
            self = .tcp(host: host, port: port)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .unix(let path): "unix:\(path)"
        case let .tcp(host, port): "tcp:\(host):\(port)"
        }
    }

    /// Whether the endpoint is reachable only from this machine.
    public var isLocal: Bool {
        switch self {
        case .unix: true
        case .tcp(let host, _): ["127.0.0.1", "::1", "localhost"].contains(host) || host.hasPrefix("127.")
        }
    }

    /// A Unix-domain socket path of its own in the temporary directory, for a hub started
    /// without an endpoint.
    public static func temporary() -> HubEndpoint {
        .unix(path: FileManager.default.temporaryDirectory.appendingPathComponent("bleu-hub-\(getpid()).sock").path)
    }
}
