import BleuCore

/// One LE credit-based connection-oriented channel (Core Spec Vol 3 Part A §3.4.3, §10.2) as a
/// pure value: segmentation of SDUs into K-frames within the peer's MPS and MTU, reassembly of
/// the peer's K-frames within ours, and credit accounting both ways.
///
/// Any violation by the peer — a K-frame without a credit, over our MPS, an SDU over our MTU or
/// longer than it announced, a credit count past 65535 — is an error after which the channel
/// must be disconnected (§10.2).
struct CreditBasedChannel: Sendable, Hashable {
    /// What the peer did wrong.
    typealias Violation = BleuError.ChannelViolation

    let localCID: UInt16
    let remoteCID: UInt16
    /// The largest SDU and K-frame payload we accept.
    let localMTU: Int
    let localMPS: Int
    /// The largest SDU and K-frame payload the peer accepts.
    let remoteMTU: Int
    let remoteMPS: Int
    /// K-frames we may still send.
    private(set) var sendCredits: Int
    /// K-frames the peer may still send us.
    private(set) var receiveCredits: Int

    private var partial: [UInt8] = []
    private var announced: Int?
    private var framesInPartial = 0

    init(localCID: UInt16, remoteCID: UInt16, localMTU: Int, localMPS: Int, remoteMTU: Int, remoteMPS: Int,
         sendCredits: Int, receiveCredits: Int) {
        self.localCID = localCID
        self.remoteCID = remoteCID
        self.localMTU = localMTU
        self.localMPS = localMPS
        self.remoteMTU = remoteMTU
        self.remoteMPS = remoteMPS
        self.sendCredits = sendCredits
        self.receiveCredits = receiveCredits
    }

    /// The K-frame payloads of one SDU: the first carries the 2-byte SDU length. `nil` when the
    /// SDU is longer than the peer's MTU.
    func segments(of sdu: [UInt8]) -> [[UInt8]]? {
        guard sdu.count <= remoteMTU else { return nil }
        var frames: [[UInt8]] = []
        var first: [UInt8] = [UInt8(sdu.count & 0xFF), UInt8(sdu.count >> 8)]
        let firstPart = min(sdu.count, remoteMPS - 2)
        first += sdu[0..<firstPart]
        frames.append(first)
        var offset = firstPart
        while offset < sdu.count {
            let end = min(offset + remoteMPS, sdu.count)
            frames.append(Array(sdu[offset..<end]))
            offset = end
        }
        return frames
    }

    /// Spends one send credit; `false` when there is none.
    mutating func spendCredit() -> Bool {
        guard sendCredits > 0 else { return false }
        sendCredits -= 1
        return true
    }

    /// The peer gave `credits` more (Flow Control Credit).
    mutating func addSendCredits(_ credits: Int) throws(Violation) {
        guard sendCredits + credits <= 65535 else { throw .creditOverflow }
        sendCredits += credits
    }

    /// We give the peer `credits` more (after the application consumed SDUs).
    mutating func grantReceiveCredits(_ credits: Int) {
        receiveCredits += credits
    }

    /// A K-frame from the peer. Returns a complete SDU and how many K-frames it took, or `nil`
    /// while the SDU is incomplete.
    mutating func receive(_ payload: [UInt8]) throws(Violation) -> (sdu: [UInt8], frames: Int)? {
        guard receiveCredits > 0 else { throw .noCredit }
        receiveCredits -= 1
        guard payload.count <= localMPS else { throw .frameOverMPS(length: payload.count, mps: localMPS) }
        framesInPartial += 1
        var data = payload[...]
        if announced == nil {
            guard payload.count >= 2 else { throw .truncatedFirstFrame }
            let length = Int(payload[0]) | Int(payload[1]) << 8
            guard length <= localMTU else { throw .sduOverMTU(length: length, mtu: localMTU) }
            announced = length
            data = payload.dropFirst(2)
        }
        let expected = announced!
        guard partial.count + data.count <= expected else { throw .sduOverrun(announced: expected) }
        partial += data
        guard partial.count == expected else { return nil }
        defer {
            partial = []
            announced = nil
            framesInPartial = 0
        }
        return (partial, framesInPartial)
    }
}
