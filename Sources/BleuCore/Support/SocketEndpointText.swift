/// The `tcp:HOST:PORT` form that endpoints take on a command line (a controller, a hub), parsed
/// once for every kind of endpoint: the host is everything before the last colon (so an IPv6
/// address may be written bare), the port 1–65535 (also 0, "pick one", for a caller that binds it).
package func parseTCPEndpoint(_ text: some StringProtocol, allowingAnyPort: Bool = false) -> (host: String, port: Int)? {
    guard text.hasPrefix("tcp:") else { return nil }
    let rest = text.dropFirst(4)
    guard let colon = rest.lastIndex(of: ":"), colon > rest.startIndex,
          let port = Int(rest[rest.index(after: colon)...]), ((allowingAnyPort ? 0 : 1)...65535).contains(port) else { return nil }
    return (String(rest[..<colon]), port)
}
