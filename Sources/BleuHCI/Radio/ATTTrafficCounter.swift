import BleuCore

/// Counts the ATT PDUs a radio sends and receives, and their bytes: for figures and demos
/// (`bleu demo --hci` prints the ATT bytes each step puts on air). Give one to
/// ``HCIRadio/init(host:configuration:clock:logger:attTraffic:bonds:random:)`` and read it whenever you like,
/// without waiting for the radio:
///
/// ```swift
/// let traffic = ATTTrafficCounter()
/// let radio = HCIRadio(host: host, attTraffic: traffic)
/// …
/// print("\(traffic.total.bytes) bytes of ATT PDUs")
/// ```
///
/// A PDU's bytes are the ATT PDU's (opcode and parameters), without the L2CAP and HCI headers.
/// Counting takes a lock, not a hop to an actor, so the radio pays little for it.
public final class ATTTrafficCounter: Sendable {
    /// PDUs and their bytes.
    public struct Traffic: Sendable, Hashable {
        /// ATT PDUs.
        public var pdus: Int
        /// Their bytes, summed.
        public var bytes: Int

        /// A count; zero by default.
        public init(pdus: Int = 0, bytes: Int = 0) {
            self.pdus = pdus
            self.bytes = bytes
        }

        mutating func add(_ byteCount: Int) {
            pdus += 1
            bytes += byteCount
        }
    }

    private let counts = Locked((sent: Traffic(), received: Traffic()))

    /// A counter at zero.
    public init() {}

    /// What the radio sent: requests and commands as a client, responses, notifications and
    /// indications as a server.
    public var sent: Traffic { counts.withLock { $0.sent } }
    /// What the radio received from its peers.
    public var received: Traffic { counts.withLock { $0.received } }
    /// Both ways.
    public var total: Traffic {
        counts.withLock { Traffic(pdus: $0.sent.pdus + $0.received.pdus, bytes: $0.sent.bytes + $0.received.bytes) }
    }

    /// Counts a PDU of `byteCount` bytes the radio sent.
    func countSent(_ byteCount: Int) {
        counts.withLock { $0.sent.add(byteCount) }
    }

    /// Counts a PDU of `byteCount` bytes the radio received.
    func countReceived(_ byteCount: Int) {
        counts.withLock { $0.received.add(byteCount) }
    }
}
