import BleuCore
import Testing

@testable import BleuHCI

@Suite("L2CAP: LE credit-based channel (pure)")
struct CreditBasedChannelTests {
    /// Our end: MTU 100, MPS 30, 4 credits given; the peer's: MTU 200, MPS 40, 3 credits.
    func channel() -> CreditBasedChannel {
        CreditBasedChannel(localCID: 0x40, remoteCID: 0x41, localMTU: 100, localMPS: 30, remoteMTU: 200, remoteMPS: 40,
                           sendCredits: 3, receiveCredits: 4)
    }

    @Test("an SDU is cut into K-frames of the peer's MPS, the first with the 2-byte SDU length")
    func segmentation() throws {
        let sdu = (0..<100).map { UInt8($0) }
        let frames = try #require(channel().segments(of: sdu))
        #expect(frames.map(\.count) == [40, 40, 22])
        #expect(Array(frames[0].prefix(2)) == [100, 0])
        #expect(Array(frames.joined().dropFirst(2)) == sdu)
        #expect(channel().segments(of: []) == [[0, 0]], "an empty SDU is one K-frame with its length")
        #expect(channel().segments(of: [UInt8](repeating: 0, count: 201)) == nil, "over the peer's MTU")
    }

    @Test("K-frames of our MPS are reassembled into the SDU with the K-frame count; credits are counted")
    func reassembly() throws {
        var c = channel()
        let partial = try c.receive([50, 0] + [UInt8](repeating: 1, count: 28))
        #expect(partial == nil)
        let done = try c.receive([UInt8](repeating: 2, count: 22))
        #expect(done?.sdu == [UInt8](repeating: 1, count: 28) + [UInt8](repeating: 2, count: 22))
        #expect(done?.frames == 2)
        #expect(c.receiveCredits == 2)
        let empty = try c.receive([0, 0])
        #expect(empty?.sdu == [], "an empty SDU")
        let one = try c.receive([1, 0, 9])
        #expect(one?.sdu == [9])
        #expect(throws: CreditBasedChannel.Violation.noCredit) { try c.receive([1, 0, 9]) }
        c.grantReceiveCredits(1)
        let after = try c.receive([1, 0, 7])
        #expect(after?.sdu == [7])
    }

    @Test("every violation by the peer is refused")
    func violations() {
        var c = channel()
        #expect(throws: CreditBasedChannel.Violation.frameOverMPS(length: 31, mps: 30)) {
            try c.receive([UInt8](repeating: 0, count: 31))
        }
        c = channel()
        #expect(throws: CreditBasedChannel.Violation.sduOverMTU(length: 101, mtu: 100)) { try c.receive([101, 0]) }
        c = channel()
        #expect(throws: CreditBasedChannel.Violation.truncatedFirstFrame) { try c.receive([5]) }
        c = channel()
        #expect(throws: CreditBasedChannel.Violation.sduOverrun(announced: 3)) { try c.receive([3, 0, 1, 2, 3, 4]) }
        c = channel()
        #expect(throws: CreditBasedChannel.Violation.creditOverflow) { try c.addSendCredits(65533) }
    }

    @Test("send credits are spent one per K-frame and refilled by the peer")
    func sendCredits() throws {
        var c = channel()
        let spent = (0..<4).map { _ in c.spendCredit() }
        #expect(spent == [true, true, true, false])
        try c.addSendCredits(2)
        #expect(c.sendCredits == 2)
    }
}
