/// How long Link Layer packets occupy the air (Core Spec Vol 6 Part B §2.1 and §4.1).
///
/// An uncoded data channel packet is preamble (1 byte on LE 1M, 2 on LE 2M), access address
/// (4), PDU header (2), payload, MIC (4, only on an encrypted link with a non-empty payload) and
/// CRC (3), sent at 1 or 2 Mb/s. A coded packet (LE Coded) has an 80 µs preamble, then access
/// address (32 bits), coding indicator (2 bits) and TERM1 (3 bits), each coded with S = 8, then
/// the header, payload, MIC and CRC followed by TERM2 (3 bits), coded with S = 2 or S = 8.
///
/// Everything here is pure integer arithmetic in microseconds.
public enum AirTime {
    /// The inter frame space between two consecutive packets on a channel (T_IFS, 150 µs).
    public static let interFrameSpace: Duration = .microseconds(150)

    /// The largest LL data channel payload (with the Data Length Extension).
    public static let maximumPayload = 251
    /// The smallest LL data channel payload every controller supports.
    public static let minimumPayload = 27

    /// The air time of one data channel packet, in microseconds.
    ///
    /// - Parameters:
    ///   - payload: the LL payload in bytes (0 for an empty PDU), without the MIC.
    ///   - phy: the physical layer.
    ///   - encrypted: whether the link is encrypted (a non-empty payload then carries a 4-byte MIC).
    public static func packetMicroseconds(payload: Int, phy: PHY, encrypted: Bool = false) -> Int {
        let mic = encrypted && payload > 0 ? 4 : 0
        let pduBytes = 2 + payload + mic + 3  // header, payload, MIC, CRC
        switch phy {
        case .le1M:
            return (1 + 4 + pduBytes) * 8
        case .le2M:
            return (2 + 4 + pduBytes) * 8 / 2
        case .leCodedS2, .leCodedS8:
            let s = phy == .leCodedS2 ? 2 : 8
            let fixed = 80 + (32 + 2 + 3) * 8  // preamble; access address, CI, TERM1 at S = 8
            return fixed + (pduBytes * 8 + 3) * s  // header..CRC and TERM2 at S
        }
    }

    /// The air time of one data channel packet.
    public static func packet(payload: Int, phy: PHY, encrypted: Bool = false) -> Duration {
        .microseconds(packetMicroseconds(payload: payload, phy: phy, encrypted: encrypted))
    }

    /// One exchange that carries `payload` bytes one way: the data packet, T_IFS, the empty
    /// packet that acknowledges it, and the T_IFS before the next exchange, in microseconds.
    public static func exchangeMicroseconds(payload: Int, phy: PHY, encrypted: Bool = false) -> Int {
        packetMicroseconds(payload: payload, phy: phy, encrypted: encrypted)
            + 150 + packetMicroseconds(payload: 0, phy: phy, encrypted: encrypted) + 150
    }

    /// One exchange that carries `payload` bytes one way (see ``exchangeMicroseconds(payload:phy:encrypted:)``).
    public static func exchange(payload: Int, phy: PHY, encrypted: Bool = false) -> Duration {
        .microseconds(exchangeMicroseconds(payload: payload, phy: phy, encrypted: encrypted))
    }

    /// The LL payloads an L2CAP PDU of `l2capLength` bytes (its 4-byte basic header included)
    /// is fragmented into, at most `dataLength` bytes each.
    public static func fragments(l2capLength: Int, dataLength: Int) -> [Int] {
        precondition(dataLength > 0, "dataLength must be positive")
        var left = l2capLength
        var result: [Int] = []
        result.reserveCapacity(left / dataLength + 1)
        repeat {
            let part = min(left, dataLength)
            result.append(part)
            left -= part
        } while left > 0
        return result
    }
}
