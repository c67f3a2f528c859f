import BleuCore
import Foundation

/// The hub protocol's framing and handshake.
///
/// On the stream (a Unix-domain or TCP socket) every frame is a u32 little-endian length, then
/// that many bytes: a kind byte and the payload. A length of zero or above
/// ``maximumFrameLength`` ends the connection. The client opens with ``Kind/hello`` (magic,
/// version, optional token); the hub answers ``Kind/welcome`` (version, its configuration) or
/// ``Kind/refused`` (why) and closes.
package enum HubProtocol {
    /// The first bytes of a client's hello.
    static let magic: [UInt8] = Array("BLEUHUB".utf8)
    /// The protocol version; a hub and a client of different versions refuse each other.
    package static let version: UInt16 = 2
    /// The largest frame (kind and payload): an L2CAP SDU or a trace fits with room to spare.
    package static let maximumFrameLength = 1 << 20

    enum Kind: UInt8 {
        case hello = 1
        case welcome = 2
        case refused = 3
        case request = 4
        case reply = 5
        case push = 6
    }

    /// One frame, length prefix included.
    static func frame(_ kind: Kind, _ body: (inout HubWriter) -> Void) -> [UInt8] {
        var writer = HubWriter(capacity: 64)
        writer.u32(0)
        writer.u8(kind.rawValue)
        body(&writer)
        var bytes = writer.bytes
        let length = UInt32(bytes.count - 4)
        for index in 0..<4 { bytes[index] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(index))) }
        return bytes
    }

    static func hello(token: String?) -> [UInt8] {
        frame(.hello) { writer in
            writer.raw(magic)
            writer.u16(version)
            writer.optional(token) { $0.string($1) }
        }
    }

    static func welcome(configuration: EmulatorConfiguration, seed: UInt64) -> [UInt8] {
        frame(.welcome) { writer in
            writer.u16(version)
            // The configuration crosses once, as its Codable form; it always encodes.
            writer.data((try? JSONEncoder().encode(configuration)) ?? Data())
            writer.u64(seed)
        }
    }

    package static func refused(_ reason: String) -> [UInt8] {
        frame(.refused) { $0.string(reason) }
    }

    static func request(_ id: UInt64, _ request: HubRequest) -> [UInt8] {
        frame(.request) { writer in
            writer.u64(id)
            writer.value(request)
        }
    }

    static func reply(_ id: UInt64, _ reply: HubReply) -> [UInt8] {
        frame(.reply) { writer in
            writer.u64(id)
            writer.value(reply)
        }
    }

    static func push(_ push: HubPush) -> [UInt8] {
        frame(.push) { $0.value(push) }
    }

    /// A client's hello: its version and token, or the error that refuses it.
    static func decodeHello(_ payload: [UInt8]) throws(PacketDecodingError) -> (version: UInt16, token: String?) {
        var reader = HubReader(payload, packet: "hub hello")
        guard try reader.raw(magic.count) == magic else { throw reader.invalid("magic", 0) }
        let version = try reader.u16()
        let token = try reader.optional { reader throws(PacketDecodingError) in try reader.string() }
        try reader.finish()
        return (version, token)
    }

    static func decodeWelcome(_ payload: [UInt8]) throws(PacketDecodingError) -> (version: UInt16, configuration: EmulatorConfiguration, seed: UInt64) {
        var reader = HubReader(payload, packet: "hub welcome")
        let version = try reader.u16()
        let json = try reader.data()
        let seed = try reader.u64()
        try reader.finish()
        do {
            return (version, try JSONDecoder().decode(EmulatorConfiguration.self, from: json), seed)
        } catch {
            throw reader.invalid("configuration", json.count)
        }
    }

    static func decodeRefused(_ payload: [UInt8]) throws(PacketDecodingError) -> String {
        var reader = HubReader(payload, packet: "hub refusal")
        let reason = try reader.string()
        try reader.finish()
        return reason
    }

    static func decodeRequest(_ payload: [UInt8]) throws(PacketDecodingError) -> (id: UInt64, request: HubRequest) {
        var reader = HubReader(payload, packet: "hub request")
        let id = try reader.u64()
        let request = try reader.value(HubRequest.self)
        try reader.finish()
        return (id, request)
    }

    static func decodeReply(_ payload: [UInt8]) throws(PacketDecodingError) -> (id: UInt64, reply: HubReply) {
        var reader = HubReader(payload, packet: "hub reply")
        let id = try reader.u64()
        let reply = try reader.value(HubReply.self)
        try reader.finish()
        return (id, reply)
    }

    static func decodePush(_ payload: [UInt8]) throws(PacketDecodingError) -> HubPush {
        var reader = HubReader(payload, packet: "hub push")
        let push = try reader.value(HubPush.self)
        try reader.finish()
        return push
    }
}

/// Cuts a byte stream into frames: feed it what arrives, take the frames it completes. It
/// holds at most one frame's bytes; a frame longer than ``HubProtocol/maximumFrameLength``, an
/// empty one, or an unknown kind is an error, after which the connection must close.
package struct HubFrameDecoder {
    private var buffer: [UInt8] = []
    private var start = 0

    package init() {}

    /// Appends bytes and returns the frames now complete, as (kind, payload).
    mutating func feed(_ bytes: some Collection<UInt8>) throws(PacketDecodingError) -> [(HubProtocol.Kind, [UInt8])] {
        buffer += bytes
        var frames: [(HubProtocol.Kind, [UInt8])] = []
        while buffer.count - start >= 4 {
            var length = 0
            for index in 0..<4 { length |= Int(buffer[start + index]) << (8 * index) }
            guard length >= 1, length <= HubProtocol.maximumFrameLength else {
                throw PacketDecodingError("hub frame", .invalidValue(field: "frame length", value: length))
            }
            guard buffer.count - start >= 4 + length else { break }
            let raw = buffer[start + 4]
            guard let kind = HubProtocol.Kind(rawValue: raw) else {
                throw PacketDecodingError("hub frame", .unknownType(UInt32(raw)))
            }
            frames.append((kind, Array(buffer[(start + 5)..<(start + 4 + length)])))
            start += 4 + length
        }
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 64 * 1024 {
            buffer.removeFirst(start)
            start = 0
        }
        return frames
    }

    /// Bytes received that do not yet make a frame.
    var pendingCount: Int { buffer.count - start }
}
