import BleuCore

/// An L2CAP basic information frame (B-frame, Core Spec Vol 3 Part A §3.1): a length, a channel
/// identifier and the payload.
public struct L2CAPBFrame: Hashable, Sendable {
    /// The fixed channel of the Attribute Protocol.
    public static let attCID = FixedL2CAPChannel.att
    /// The fixed LE signalling channel.
    public static let leSignalingCID = FixedL2CAPChannel.leSignaling
    /// The fixed Security Manager channel.
    public static let smpCID = FixedL2CAPChannel.smp
    /// The first dynamically allocated LE channel.
    public static let firstDynamicCID: UInt16 = 0x0040

    public var channelID: UInt16
    public var payload: [UInt8]

    public init(channelID: UInt16, payload: [UInt8]) {
        self.channelID = channelID
        self.payload = payload
    }

    /// Length, channel identifier, payload.
    public var encoded: [UInt8] {
        var b: [UInt8] = []
        b.appendLE(UInt16(truncatingIfNeeded: payload.count))
        b.appendLE(channelID)
        return b + payload
    }

    /// Reads one whole B-frame; throws when the length field disagrees with the bytes.
    public init(decoding bytes: [UInt8]) throws(PacketDecodingError) {
        var r = ByteReader(bytes, packet: "L2CAP B-frame")
        let length = Int(try r.u16())
        channelID = try r.u16()
        guard r.remaining == length else { throw r.error(.lengthMismatch(declared: length, actual: r.remaining)) }
        payload = r.rest()
    }

    /// The PDU length a first fragment declares (its first two bytes), or `nil` when fewer than
    /// two bytes arrived.
    static func declaredLength(_ firstFragment: [UInt8]) -> Int? {
        firstFragment.count >= 2 ? Int(firstFragment[0]) | Int(firstFragment[1]) << 8 : nil
    }
}
