import BleuCore

/// The packet indicator H4 (the UART transport of Core Spec Vol 4 Part A) puts before every
/// HCI packet, so a byte stream can carry commands, data and events.
public enum H4PacketType: UInt8, Sendable, Hashable, CaseIterable {
    /// Host to controller: an HCI command.
    case command = 0x01
    /// Either direction: ACL data.
    case acl = 0x02
    /// Either direction: synchronous (SCO) data; unused in LE.
    case sco = 0x03
    /// Controller to host: an HCI event.
    case event = 0x04
    /// Either direction: isochronous data; unused by this stack.
    case iso = 0x05

    /// How many header bytes follow the indicator before the payload length is known.
    var headerLength: Int {
        switch self {
        case .command: 3  // opcode (2), parameter length (1)
        case .acl: 4      // handle and flags (2), data length (2)
        case .sco: 3      // handle and flags (2), data length (1)
        case .event: 2    // event code (1), parameter length (1)
        case .iso: 4      // handle and flags (2), data length (14 bits)
        }
    }

    /// The payload length a complete header declares.
    func payloadLength(header: ArraySlice<UInt8>) -> Int {
        let h = Array(header)
        switch self {
        case .command: return Int(h[2])
        case .acl: return Int(h[2]) | Int(h[3]) << 8
        case .sco: return Int(h[2])
        case .event: return Int(h[1])
        case .iso: return (Int(h[2]) | Int(h[3]) << 8) & 0x3FFF
        }
    }
}

/// One HCI packet with its H4 indicator: the unit every transport moves.
public struct H4Packet: Sendable, Hashable, CustomStringConvertible {
    /// What kind of packet this is.
    public var type: H4PacketType
    /// The HCI packet, header included, without the indicator byte.
    public var body: [UInt8]

    /// A packet of `type` whose HCI bytes (header included) are `body`.
    public init(type: H4PacketType, body: [UInt8]) {
        self.type = type
        self.body = body
    }

    /// The bytes on the wire: indicator, then the HCI packet.
    public var encoded: [UInt8] { [type.rawValue] + body }

    /// Reads exactly one packet; throws when the bytes are not one whole packet.
    public init(decoding bytes: [UInt8]) throws(PacketDecodingError) {
        var deframer = H4Deframer()
        let packets = try deframer.push(bytes)
        guard packets.count == 1, deframer.bufferedByteCount == 0 else {
            if packets.isEmpty {
                throw PacketDecodingError("H4 packet", .truncated(offset: bytes.count, needed: 1, available: 0))
            }
            throw PacketDecodingError("H4 packet", .trailingBytes(count: bytes.count - packets[0].encoded.count))
        }
        self = packets[0]
    }

    public var description: String {
        "H4 \(type) [\(body.count) bytes]"
    }
}

/// Cuts an H4 byte stream into packets, whatever the chunks it arrives in.
///
/// Memory is bounded by the largest packet H4 can describe (4 header bytes and 65 535 payload
/// bytes). An unknown indicator means the stream lost sync; the deframer throws and must be
/// reset with the transport (H4 has no way to resynchronise).
public struct H4Deframer: Sendable {
    private var buffer: [UInt8] = []

    /// An empty deframer.
    public init() {}

    /// Bytes held for a packet not yet complete.
    public var bufferedByteCount: Int { buffer.count }

    /// Adds bytes and returns the packets they complete, in order.
    public mutating func push(_ bytes: some Collection<UInt8>) throws(PacketDecodingError) -> [H4Packet] {
        buffer.append(contentsOf: bytes)
        var packets: [H4Packet] = []
        var start = 0
        while start < buffer.count {
            guard let type = H4PacketType(rawValue: buffer[start]) else {
                let bad = buffer[start]
                buffer.removeAll()
                throw PacketDecodingError("H4 stream", .unknownType(UInt32(bad)))
            }
            let headerEnd = start + 1 + type.headerLength
            guard headerEnd <= buffer.count else { break }
            let end = headerEnd + type.payloadLength(header: buffer[(start + 1)..<headerEnd])
            guard end <= buffer.count else { break }
            packets.append(H4Packet(type: type, body: Array(buffer[(start + 1)..<end])))
            start = end
        }
        buffer.removeFirst(start)
        return packets
    }

    /// Forgets any partial packet (after the transport reconnects).
    public mutating func reset() {
        buffer.removeAll()
    }
}
