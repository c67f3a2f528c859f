import BleuCore

/// An LE signalling command (Core Spec Vol 3 Part A §4), carried on channel 0x0005, one
/// command per B-frame. Symmetric ``encoded`` / ``init(decoding:)``.
public struct L2CAPSignal: Hashable, Sendable {
    /// Matches a response to its request; 0 is invalid.
    public var identifier: UInt8
    public var command: Command

    public init(identifier: UInt8, _ command: Command) {
        self.identifier = identifier
        self.command = command
    }

    /// The LE signalling commands.
    public enum Command: Hashable, Sendable {
        /// 0x01. Reason 0 command not understood, 1 signalling MTU exceeded, 2 invalid CID.
        case commandReject(reason: UInt16, data: [UInt8])
        /// 0x06.
        case disconnectionRequest(destinationCID: UInt16, sourceCID: UInt16)
        /// 0x07.
        case disconnectionResponse(destinationCID: UInt16, sourceCID: UInt16)
        /// 0x12: a peripheral asks the central for new parameters (1.25 ms / 10 ms units).
        case connectionParameterUpdateRequest(intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, timeout: UInt16)
        /// 0x13: 0 accepted, 1 rejected.
        case connectionParameterUpdateResponse(result: UInt16)
        /// 0x14.
        case leCreditBasedConnectionRequest(spsm: UInt16, sourceCID: UInt16, mtu: UInt16, mps: UInt16, initialCredits: UInt16)
        /// 0x15: result 0 success, 2 SPSM not supported, 4 no resources, …
        case leCreditBasedConnectionResponse(destinationCID: UInt16, mtu: UInt16, mps: UInt16, initialCredits: UInt16, result: UInt16)
        /// 0x16.
        case flowControlCredit(cid: UInt16, credits: UInt16)
        /// Any other code.
        case unknown(code: UInt8, data: [UInt8])

        /// The command code.
        public var code: UInt8 {
            switch self {
            case .commandReject: 0x01
            case .disconnectionRequest: 0x06
            case .disconnectionResponse: 0x07
            case .connectionParameterUpdateRequest: 0x12
            case .connectionParameterUpdateResponse: 0x13
            case .leCreditBasedConnectionRequest: 0x14
            case .leCreditBasedConnectionResponse: 0x15
            case .flowControlCredit: 0x16
            case .unknown(let code, _): code
            }
        }

        var data: [UInt8] {
            var b: [UInt8] = []
            switch self {
            case let .commandReject(reason, data):
                b.appendLE(reason)
                b += data
            case let .disconnectionRequest(d, s), let .disconnectionResponse(d, s):
                b.appendLE(d)
                b.appendLE(s)
            case let .connectionParameterUpdateRequest(min, max, latency, timeout):
                for v in [min, max, latency, timeout] { b.appendLE(v) }
            case .connectionParameterUpdateResponse(let result):
                b.appendLE(result)
            case let .leCreditBasedConnectionRequest(spsm, scid, mtu, mps, credits):
                for v in [spsm, scid, mtu, mps, credits] { b.appendLE(v) }
            case let .leCreditBasedConnectionResponse(dcid, mtu, mps, credits, result):
                for v in [dcid, mtu, mps, credits, result] { b.appendLE(v) }
            case let .flowControlCredit(cid, credits):
                b.appendLE(cid)
                b.appendLE(credits)
            case .unknown(_, let data):
                b = data
            }
            return b
        }
    }

    /// Code, identifier, length, data.
    public var encoded: [UInt8] {
        let data = command.data
        var b: [UInt8] = [command.code, identifier]
        b.appendLE(UInt16(truncatingIfNeeded: data.count))
        return b + data
    }

    /// Reads one signalling command. Unknown codes decode as ``Command/unknown(code:data:)`` (the
    /// channel answers them with a command reject); a known command of the wrong length throws.
    public init(decoding bytes: [UInt8]) throws(PacketDecodingError) {
        var head = ByteReader(bytes, packet: "L2CAP signalling command")
        let code = try head.u8()
        identifier = try head.u8()
        let length = Int(try head.u16())
        guard head.remaining == length else { throw head.error(.lengthMismatch(declared: length, actual: head.remaining)) }
        var r = ByteReader(head.rest(), packet: "L2CAP signalling command 0x\(hex2(code))")
        switch code {
        case 0x01: command = .commandReject(reason: try r.u16(), data: r.rest())
        case 0x06: command = .disconnectionRequest(destinationCID: try r.u16(), sourceCID: try r.u16())
        case 0x07: command = .disconnectionResponse(destinationCID: try r.u16(), sourceCID: try r.u16())
        case 0x12:
            command = .connectionParameterUpdateRequest(intervalMin: try r.u16(), intervalMax: try r.u16(),
                                                        latency: try r.u16(), timeout: try r.u16())
        case 0x13: command = .connectionParameterUpdateResponse(result: try r.u16())
        case 0x14:
            command = .leCreditBasedConnectionRequest(spsm: try r.u16(), sourceCID: try r.u16(), mtu: try r.u16(),
                                                      mps: try r.u16(), initialCredits: try r.u16())
        case 0x15:
            command = .leCreditBasedConnectionResponse(destinationCID: try r.u16(), mtu: try r.u16(), mps: try r.u16(),
                                                       initialCredits: try r.u16(), result: try r.u16())
        case 0x16: command = .flowControlCredit(cid: try r.u16(), credits: try r.u16())
        default: command = .unknown(code: code, data: r.rest())
        }
        try r.finish()
    }
}
