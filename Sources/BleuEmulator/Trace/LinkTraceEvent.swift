import Foundation
import BleuCore

/// One link-level event an ``EmulatorBus`` recorded: a PDU delivered over a connection, a
/// connection made or ended, an advertisement heard, an injected fault.
public struct LinkTraceEvent: Sendable, Hashable, CustomStringConvertible {
    /// Which way a PDU went.
    public enum Direction: String, Sendable, Hashable {
        case centralToPeripheral = "C→P"
        case peripheralToCentral = "P→C"
    }

    /// What happened.
    public enum Kind: String, Sendable, Hashable {
        /// An Attribute Protocol PDU was delivered.
        case att = "ATT"
        /// A Security Manager PDU was delivered.
        case smp = "SMP"
        /// An L2CAP signaling PDU was delivered.
        case l2capSignaling = "L2CAP-SIG"
        /// An L2CAP K-frame of a connection-oriented channel was delivered.
        case l2capData = "L2CAP"
        /// A Link Layer control PDU was delivered (termination, encryption start).
        case linkControl = "LL"
        /// A connection was established.
        case connected = "CONNECTED"
        /// A connection ended.
        case disconnected = "DISCONNECTED"
        /// A link went silent; both sides report it after the supervision timeout.
        case linkLost = "LINK-LOST"
        /// A scanner heard an advertisement.
        case advertisement = "ADV"
        /// A fault was injected.
        case fault = "FAULT"
        /// Pairing or encryption changed the link's security.
        case security = "SECURITY"
        /// A device refused to send something on the link, so nothing went on air: a
        /// notification or indication longer than the central's ATT MTU − 3.
        case refused = "REFUSED"
    }

    /// The position of the event in the bus's trace, from 0.
    public var sequence: Int
    /// When the event happened (the end of the PDU's air time), on the bus's clock; always
    /// zero with instant timing.
    public var time: Duration
    /// When the PDU's first packet started on air (realistic timing).
    public var airStart: Duration?
    /// The connection, numbered by the bus from 1.
    public var connection: Int?
    public var direction: Direction?
    public var kind: Kind
    /// The PDU's opcode (ATT, SMP, L2CAP signaling code or LL control opcode).
    public var opcode: UInt8?
    /// The attribute handle an ATT PDU addresses, or the channel of an L2CAP K-frame.
    public var handle: UInt16?
    /// The PDU's length in bytes (ATT: opcode included; L2CAP and SMP: the payload without
    /// the basic header).
    public var length: Int?
    /// A readable detail: the PDU's name, a disconnect reason, the fault.
    public var detail: String
    /// The PDU's bytes (an ATT PDU, opcode first), kept only while a sink takes the bus's
    /// events as they happen (``EmulatorBus/traceEvents(_:)``); otherwise `nil`.
    public var pdu: [UInt8]?
    /// The devices a connection joins, on its ``Kind/connected`` event.
    public var endpoints: Endpoints?

    /// The two devices of a connection, by their 48-bit addresses on the bus.
    public struct Endpoints: Sendable, Hashable {
        /// The central's address (48 bits).
        public var central: UInt64
        /// The peripheral's address (48 bits).
        public var peripheral: UInt64

        /// The devices of a connection, by address.
        public init(central: UInt64, peripheral: UInt64) {
            self.central = central
            self.peripheral = peripheral
        }
    }

    /// An event; the bus numbers the events it records itself.
    public init(sequence: Int, time: Duration, airStart: Duration? = nil, connection: Int? = nil,
                direction: Direction? = nil, kind: Kind, opcode: UInt8? = nil, handle: UInt16? = nil,
                length: Int? = nil, detail: String, pdu: [UInt8]? = nil, endpoints: Endpoints? = nil) {
        self.sequence = sequence
        self.time = time
        self.airStart = airStart
        self.connection = connection
        self.direction = direction
        self.kind = kind
        self.opcode = opcode
        self.handle = handle
        self.length = length
        self.detail = detail
        self.pdu = pdu
        self.endpoints = endpoints
    }

    /// One line: `12.345678  #1  C→P  ATT  0x0A Read Request  handle 0x0003  len 3`.
    public var description: String {
        var fields = [String(format: "%11.6f", time.secondsValue)]
        fields.append(connection.map { "#\($0)" } ?? "-")
        fields.append(direction?.rawValue ?? "   ")
        fields.append(kind.rawValue)
        var what = detail
        if let opcode { what = "0x\(hex(opcode)) " + what }
        fields.append(what)
        if let handle { fields.append("handle 0x\(hex(handle))") }
        if let length { fields.append("len \(length)") }
        return fields.joined(separator: "  ")
    }
}

