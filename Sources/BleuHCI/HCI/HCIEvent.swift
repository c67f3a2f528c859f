import BleuCore

/// An HCI event the controller sends (Core Spec Vol 4 Part E §7.7), with symmetric
/// ``encoded`` / ``init(decoding:)``. Events this stack does not model stay ``unknown(code:parameters:)``.
public enum HCIEvent: Hashable, Sendable {
    /// A connection ended (0x05).
    case disconnectionComplete(status: UInt8, handle: UInt16, reason: UInt8)
    /// Encryption was switched on or off (0x08).
    case encryptionChange(status: UInt8, handle: UInt16, enabled: UInt8)
    /// An encrypted link was encrypted again with a fresh key (Encryption Key Refresh Complete, 0x30).
    case encryptionKeyRefreshComplete(status: UInt8, handle: UInt16)
    /// A command finished (0x0E): how many more commands the controller accepts, which command,
    /// and its return parameters (the first byte is usually a status).
    case commandComplete(numHCICommandPackets: UInt8, opcode: HCIOpcode, returnParameters: [UInt8])
    /// A command was accepted or refused and will finish later with another event (0x0F).
    case commandStatus(status: UInt8, numHCICommandPackets: UInt8, opcode: HCIOpcode)
    /// The controller hit a hardware error (0x10).
    case hardwareError(code: UInt8)
    /// ACL packets the controller has sent per connection handle, freeing its buffers (0x13).
    case numberOfCompletedPackets([CompletedPackets])
    /// The controller's data buffers overflowed (0x1A).
    case dataBufferOverflow(linkType: UInt8)
    /// An LE meta event (0x3E).
    case le(LEMetaEvent)
    /// Any other event: its code and parameter bytes.
    case unknown(code: UInt8, parameters: [UInt8])

    /// One entry of ``numberOfCompletedPackets(_:)``.
    public struct CompletedPackets: Hashable, Sendable {
        public var handle: UInt16
        public var count: UInt16
        public init(handle: UInt16, count: UInt16) {
            self.handle = handle
            self.count = count
        }
    }

    /// The event code.
    public var code: UInt8 {
        switch self {
        case .disconnectionComplete: 0x05
        case .encryptionChange: 0x08
        case .commandComplete: 0x0E
        case .commandStatus: 0x0F
        case .hardwareError: 0x10
        case .numberOfCompletedPackets: 0x13
        case .dataBufferOverflow: 0x1A
        case .encryptionKeyRefreshComplete: 0x30
        case .le: 0x3E
        case .unknown(let code, _): code
        }
    }

    /// The parameter bytes, without the event code and length.
    public var parameters: [UInt8] {
        var b: [UInt8] = []
        switch self {
        case let .disconnectionComplete(status, handle, reason):
            b.append(status)
            b.appendLE(handle)
            b.append(reason)
        case let .encryptionChange(status, handle, enabled):
            b.append(status)
            b.appendLE(handle)
            b.append(enabled)
        case let .commandComplete(n, opcode, returnParameters):
            b.append(n)
            b.appendLE(opcode.rawValue)
            b += returnParameters
        case let .commandStatus(status, n, opcode):
            b += [status, n]
            b.appendLE(opcode.rawValue)
        case .hardwareError(let code):
            b.append(code)
        case .numberOfCompletedPackets(let entries):
            b.append(UInt8(truncatingIfNeeded: entries.count))
            for e in entries {
                b.appendLE(e.handle)
                b.appendLE(e.count)
            }
        case .dataBufferOverflow(let linkType):
            b.append(linkType)
        case let .encryptionKeyRefreshComplete(status, handle):
            b.append(status)
            b.appendLE(handle)
        case .le(let meta):
            b = meta.parameters
        case .unknown(_, let parameters):
            b = parameters
        }
        return b
    }

    /// The HCI event packet: code, parameter length, parameters (no H4 indicator).
    public var encoded: [UInt8] {
        let p = parameters
        return [code, UInt8(truncatingIfNeeded: p.count)] + p
    }

    /// The event as an H4 packet.
    public var h4Packet: H4Packet { H4Packet(type: .event, body: encoded) }

    /// Reads an event packet (code, length, parameters; no H4 indicator). A modelled event
    /// whose parameters do not fit its layout throws; an unmodelled one decodes as ``unknown(code:parameters:)``.
    public init(decoding bytes: [UInt8]) throws(PacketDecodingError) {
        var header = ByteReader(bytes, packet: "HCI event")
        let code = try header.u8()
        let length = Int(try header.u8())
        guard header.remaining == length else {
            throw header.error(.lengthMismatch(declared: length, actual: header.remaining))
        }
        var r = ByteReader(header.rest(), packet: "HCI event 0x\(hex2(code))")
        switch code {
        case 0x05:
            self = .disconnectionComplete(status: try r.u8(), handle: try r.u16(), reason: try r.u8())
        case 0x08:
            self = .encryptionChange(status: try r.u8(), handle: try r.u16(), enabled: try r.u8())
        case 0x0E:
            self = .commandComplete(numHCICommandPackets: try r.u8(), opcode: HCIOpcode(rawValue: try r.u16()),
                                    returnParameters: r.rest())
        case 0x0F:
            self = .commandStatus(status: try r.u8(), numHCICommandPackets: try r.u8(),
                                  opcode: HCIOpcode(rawValue: try r.u16()))
        case 0x10:
            self = .hardwareError(code: try r.u8())
        case 0x13:
            let count = Int(try r.u8())
            try r.need(count * 4)
            var entries: [CompletedPackets] = []
            for _ in 0..<count { entries.append(CompletedPackets(handle: try r.u16(), count: try r.u16())) }
            self = .numberOfCompletedPackets(entries)
        case 0x1A:
            self = .dataBufferOverflow(linkType: try r.u8())
        case 0x30:
            self = .encryptionKeyRefreshComplete(status: try r.u8(), handle: try r.u16())
        case 0x3E:
            self = .le(try LEMetaEvent(decoding: r.rest()))
        default:
            self = .unknown(code: code, parameters: r.rest())
        }
        try r.finish()
    }
}

/// An HCI status or error code (Core Spec Vol 1 Part F), with the names a log needs.
public struct HCIStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible, Error {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let success = HCIStatus(rawValue: 0x00)
    public static let unknownCommand = HCIStatus(rawValue: 0x01)
    public static let unknownConnectionIdentifier = HCIStatus(rawValue: 0x02)
    public static let commandDisallowed = HCIStatus(rawValue: 0x0C)
    public static let connectionTimeout = HCIStatus(rawValue: 0x08)
    public static let pinOrKeyMissing = HCIStatus(rawValue: 0x06)
    public static let invalidParameters = HCIStatus(rawValue: 0x12)
    public static let remoteUserTerminated = HCIStatus(rawValue: 0x13)
    public static let localHostTerminated = HCIStatus(rawValue: 0x16)
    public static let unsupportedFeature = HCIStatus(rawValue: 0x11)
    public static let unknownAdvertisingIdentifier = HCIStatus(rawValue: 0x42)
    public static let unsupportedRemoteFeature = HCIStatus(rawValue: 0x1A)
    public static let connectionAlreadyExists = HCIStatus(rawValue: 0x0B)
    public static let unknownConnectionCancelled = HCIStatus(rawValue: 0x02)
    public static let failedToEstablish = HCIStatus(rawValue: 0x3E)

    public var description: String {
        let names: [UInt8: String] = [
            0x00: "Success", 0x01: "Unknown HCI Command", 0x02: "Unknown Connection Identifier",
            0x05: "Authentication Failure", 0x06: "PIN or Key Missing",
            0x07: "Memory Capacity Exceeded", 0x08: "Connection Timeout", 0x0B: "Connection Already Exists",
            0x0C: "Command Disallowed", 0x11: "Unsupported Feature or Parameter Value",
            0x12: "Invalid HCI Command Parameters", 0x13: "Remote User Terminated Connection",
            0x16: "Connection Terminated by Local Host", 0x1A: "Unsupported Remote Feature",
            0x3B: "Unacceptable Connection Parameters", 0x3E: "Connection Failed to be Established",
            0x42: "Unknown Advertising Identifier",
        ]
        return "HCI status 0x\(hex2(rawValue)) (\(names[rawValue] ?? "see Core Spec Vol 1 Part F"))"
    }
}
