import BleuCore

/// An HCI ACL data packet (Core Spec Vol 4 Part E §5.4.2).
public struct ACLPacket: Hashable, Sendable {
    /// The Packet_Boundary_Flag.
    public enum Boundary: UInt8, Sendable, Hashable {
        /// The first fragment of an L2CAP PDU, host to controller (non-flushable).
        case firstNonFlushable = 0b00
        /// A continuing fragment.
        case continuing = 0b01
        /// The first fragment of an L2CAP PDU (flushable; what controllers send in LE).
        case firstFlushable = 0b10
        /// A complete, automatically flushable L2CAP PDU (BR/EDR only).
        case complete = 0b11

        /// Whether this fragment starts an L2CAP PDU.
        public var startsPDU: Bool { self != .continuing }
    }

    /// The 12-bit connection handle.
    public var handle: UInt16
    public var boundary: Boundary
    /// The 2-bit Broadcast_Flag (0 in LE).
    public var broadcast: UInt8
    public var data: [UInt8]

    public init(handle: UInt16, boundary: Boundary, broadcast: UInt8 = 0, data: [UInt8]) {
        self.handle = handle & 0x0FFF
        self.boundary = boundary
        self.broadcast = broadcast & 0x03
        self.data = data
    }

    /// The HCI packet: handle and flags, data length, data (no H4 indicator).
    public var encoded: [UInt8] {
        var b: [UInt8] = []
        b.appendLE(handle & 0x0FFF | UInt16(boundary.rawValue) << 12 | UInt16(broadcast) << 14)
        b.appendLE(UInt16(truncatingIfNeeded: data.count))
        return b + data
    }

    /// The packet as an H4 packet.
    public var h4Packet: H4Packet { H4Packet(type: .acl, body: encoded) }

    /// Reads an ACL packet; throws when the length field disagrees with the data.
    public init(decoding bytes: [UInt8]) throws(PacketDecodingError) {
        var r = ByteReader(bytes, packet: "HCI ACL packet")
        let word = try r.u16()
        let length = Int(try r.u16())
        guard r.remaining == length else { throw r.error(.lengthMismatch(declared: length, actual: r.remaining)) }
        self.init(handle: word & 0x0FFF, boundary: Boundary(rawValue: UInt8(word >> 12 & 0x03))!,
                  broadcast: UInt8(word >> 14), data: r.rest())
    }
}
