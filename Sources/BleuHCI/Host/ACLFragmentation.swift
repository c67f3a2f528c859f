import BleuCore

/// Cuts an L2CAP PDU into ACL packets no longer than the controller's buffer (Core Spec Vol 4
/// Part E §5.4.2): the first marked "first, non-flushable" (what LE hosts send), the rest "continuing".
public enum ACLFragmenter {
    /// The ACL packets for `pdu` on `handle`, each with at most `maxLength` data bytes (at least 1).
    public static func fragments(of pdu: [UInt8], handle: UInt16, maxLength: Int) -> [ACLPacket] {
        let size = max(1, maxLength)
        var packets: [ACLPacket] = []
        var start = 0
        repeat {
            let end = min(start + size, pdu.count)
            packets.append(ACLPacket(handle: handle, boundary: start == 0 ? .firstNonFlushable : .continuing,
                                     data: Array(pdu[start..<end])))
            start = end
        } while start < pdu.count
        return packets
    }
}

/// Rebuilds L2CAP PDUs from ACL packets, per connection handle.
///
/// Accepts ACL packets of any size, larger than the buffer the controller advertised included
/// (Bumble's controller sends whole PDUs). Memory is bounded: a PDU may declare at most
/// `maxPDULength` payload bytes, and at most `maxConnections` partial PDUs are held.
public struct ACLReassembler: Sendable {
    /// Why a packet was dropped. The PDU being rebuilt on that handle is dropped with it.
    public enum Failure: Error, Hashable, Sendable {
        /// A continuing fragment with no PDU started.
        case unexpectedContinuation(handle: UInt16)
        /// A new first fragment arrived before the previous PDU completed.
        case interruptedPDU(handle: UInt16, missing: Int)
        /// The fragments carried more bytes than the PDU's length field.
        case overrun(handle: UInt16, extra: Int)
        /// The PDU declares more than the bound.
        case tooLong(handle: UInt16, declared: Int, limit: Int)
        /// More handles have partial PDUs than the bound.
        case tooManyConnections(limit: Int)
    }

    public let maxPDULength: Int
    public let maxConnections: Int
    private var partial: [UInt16: [UInt8]] = [:]

    public init(maxPDULength: Int = 65_535, maxConnections: Int = 64) {
        self.maxPDULength = maxPDULength
        self.maxConnections = maxConnections
    }

    /// Adds a packet. Returns the B-frame this packet completes, if any, and the failure that made
    /// the reassembler drop bytes, if any. A first fragment that interrupts a partial PDU reports
    /// ``Failure/interruptedPDU(handle:missing:)`` and starts the new PDU.
    public mutating func push(_ packet: ACLPacket) -> (frame: L2CAPBFrame?, failure: Failure?) {
        let handle = packet.handle
        var failure: Failure?
        var buffer: [UInt8]
        if packet.boundary.startsPDU {
            if let previous = partial.removeValue(forKey: handle) {
                failure = .interruptedPDU(handle: handle, missing: Self.expected(previous).map { $0 - previous.count } ?? 0)
            }
            guard partial.count < maxConnections else { return (nil, .tooManyConnections(limit: maxConnections)) }
            buffer = packet.data
        } else {
            guard let previous = partial.removeValue(forKey: handle) else {
                return (nil, .unexpectedContinuation(handle: handle))
            }
            buffer = previous + packet.data
        }
        guard let expected = Self.expected(buffer) else {
            partial[handle] = buffer  // not even the length field yet
            return (nil, failure)
        }
        guard expected - 4 <= maxPDULength else {
            return (nil, .tooLong(handle: handle, declared: expected - 4, limit: maxPDULength))
        }
        if buffer.count < expected {
            partial[handle] = buffer
            return (nil, failure)
        }
        guard buffer.count == expected else { return (nil, .overrun(handle: handle, extra: buffer.count - expected)) }
        return (L2CAPBFrame(channelID: UInt16(buffer[2]) | UInt16(buffer[3]) << 8, payload: Array(buffer[4...])), failure)
    }

    /// Forgets a handle's partial PDU (on disconnection).
    public mutating func drop(handle: UInt16) {
        partial[handle] = nil
    }

    /// Bytes held in partial PDUs.
    public var bufferedByteCount: Int { partial.values.reduce(0) { $0 + $1.count } }

    /// The whole B-frame length (header included) once the length field has arrived.
    private static func expected(_ buffer: [UInt8]) -> Int? {
        L2CAPBFrame.declaredLength(buffer).map { $0 + 4 }
    }
}
