import BleuCore
import Foundation
import Testing

@testable import BleuWire

@Suite("Framing: byte layouts, timeouts and peers")
struct FramingLayoutTests {
    @Test("compact bytes: header byte, payload, CRC-32 little-endian after the message")
    func compactLayout() throws {
        var f = Fragmenter()
        let message = Array("123456789".utf8)
        // One fragment: last|first, slot 0, sequence 0; then the message and 0xCBF43926 LE.
        #expect(hexString(try f.fragments(of: message, maximumFragmentLength: 20)[0]) == "c0313233343536373839" + "2639f4cb")
        // The next message takes slot 1, 6 bytes a fragment: first (0x48: first, slot 1, sequence 0), middle (0x09), last (0x8A).
        let fragments = try f.fragments(of: message, maximumFragmentLength: 6)
        #expect(fragments.map { hexString($0) } == ["483132333435", "093637383926", "8a39f4cb"])
        #expect(fragments.map { $0[0] } == [0x48, 0x09, 0x8A])
    }

    @Test("CompactHeader reads slot, position and sequence from the first byte of the fragmenter's own fragments")
    func compactHeaderReadsFragments() throws {
        var f = Fragmenter()
        // Two rounds of 8 interleaved messages: every slot, and sequence numbers that continue
        // across a slot's messages (3 fragments each, so the second round starts at 3).
        for round in 0..<2 {
            let messages = try (0..<CompactHeader.slotCount).map { index in
                try f.begin([UInt8](repeating: UInt8(index), count: 20), maximumFragmentLength: 9)  // 8 + 8 + 8 (with the CRC)
            }
            var slots: Set<UInt8> = []
            for outgoing in messages {
                guard case .slot(let slot) = outgoing.id else { Issue.record("no slot"); return }
                slots.insert(slot)
                #expect(outgoing.count == 3)
                for (position, fragment) in outgoing.enumerated() {
                    let header = CompactHeader(fragment[0])
                    #expect(header.slot == slot, "round \(round), fragment \(position) of slot \(slot)")
                    #expect(header.isFirst == (position == 0))
                    #expect(header.isLast == (position == outgoing.count - 1))
                    #expect(header.sequence == UInt8(round * 3 + position) & 7)
                }
                f.finish(outgoing)
            }
            #expect(slots == Set(0..<8))
        }
        // A single-fragment message is first and last.
        let only = try f.fragments(of: [1, 2, 3], maximumFragmentLength: 20)
        #expect(only.count == 1 && CompactHeader(only[0][0]).isFirst && CompactHeader(only[0][0]).isLast)
        // The layout in Docs/WireFormat.md: last (bit 7), first (6), slot (5–3), sequence (2–0).
        let header = CompactHeader(0b0110_1010)
        #expect(!header.isLast && header.isFirst && header.slot == 5 && header.sequence == 2)
        #expect(CompactHeader(0b1000_0111) == CompactHeader(isFirst: false, isLast: true, slot: 0, sequence: 7))
    }

    @Test("bleu24 bytes: UUID in RFC order, then sequence, total and CRC-32 little-endian")
    func bleu24Layout() throws {
        var f = Fragmenter(format: .bleu24, random: SeededRandomNumberGenerator(seed: 3))
        let message = Array("123456789".utf8)
        let outgoing = try f.begin(message, maximumFragmentLength: 29)  // 5 payload bytes a fragment
        guard case .uuid(let id) = outgoing.id else { Issue.record("no UUID"); return }
        #expect(id.uuidString.dropFirst(14).first == "4")  // a version 4 UUID
        let uuidHex = hexString(withUnsafeBytes(of: id.uuid) { Array($0) })
        #expect(outgoing.map { hexString($0) } == [
            uuidHex + "0000" + "0200" + "2639f4cb" + "3132333435",
            uuidHex + "0100" + "0200" + "2639f4cb" + "36373839",
        ])
        #expect(outgoing.byteCount == 9 + 2 * 24)
    }

    @Test("a message whose fragments stop arriving times out through the injected clock", arguments: WireFormat.allCases)
    func timeout(_ format: WireFormat) throws {
        var f = Fragmenter(format: format, random: SeededRandomNumberGenerator(seed: 4))
        var r = TestReassembler(format: format, limits: ReassemblyLimits(timeout: .seconds(10)))
        let fragments = try f.fragments(of: [UInt8](repeating: 5, count: 200), maximumFragmentLength: 64)
        let start = TestInstant.zero
        #expect(try r.receive(fragments[0], from: 9, now: start) == .incomplete)
        #expect(try r.receive(fragments[1], from: 9, now: start.advanced(by: .seconds(4))) == .incomplete)
        #expect(r.nextDeadline == start.advanced(by: .seconds(14)))
        #expect(r.expire(now: start.advanced(by: .seconds(13))).isEmpty)
        let expired = r.expire(now: start.advanced(by: .seconds(14)))
        #expect(expired.count == 1)
        #expect(expired.first?.peer == 9)
        #expect(expired.first?.receivedBytes == (format == .compact ? 2 * 63 : 2 * 40))
        #expect(r.bufferedBytes(for: 9) == 0)
        #expect(r.nextDeadline == nil)
        // The rest of the message no longer completes anything.
        let late = fragments[2...].map { fragment in rejection { try r.receive(fragment, from: 9, now: start.advanced(by: .seconds(15))) } }
        if format == .compact {
            #expect(late.first == .malformedFragment(.unexpectedContinuation(slot: 0)))
        } else {
            #expect(late.allSatisfy { $0 == nil })
            #expect(r.statistics.fragmentsDiscarded == fragments.count - 2)
        }
        #expect(r.statistics.messagesDelivered == 0)
    }

    @Test("dropping a peer frees its state; other peers are untouched", arguments: WireFormat.allCases)
    func removePeer(_ format: WireFormat) throws {
        var f = Fragmenter(format: format, random: SeededRandomNumberGenerator(seed: 5))
        var r = TestReassembler(format: format)
        let fragments = try f.fragments(of: [UInt8](repeating: 5, count: 200), maximumFragmentLength: 64)
        _ = try r.receive(fragments[0], from: 1, now: .zero)
        _ = try r.receive(fragments[0], from: 2, now: .zero)
        #expect(r.bufferedBytes(for: 1) > 0)
        r.removePeer(1)
        #expect(r.bufferedBytes(for: 1) == 0)
        #expect(r.peerCount == 1)
        #expect(try r.deliver(fragments[1...], from: 2, now: .zero) == [[UInt8](repeating: 5, count: 200)])
    }

    @Test("errors describe what failed and what happened")
    func descriptions() {
        #expect(WireError.fragmentLengthTooSmall(length: 20, minimum: 25, format: .bleu24).description.contains("ATT MTU of 28"))
        #expect(WireError.checksumMismatch(expected: 0xCBF4_3926, computed: 1, message: .slot(2)).description
            == "CRC-32 mismatch for slot 2: the sender's is 0xcbf43926, the bytes give 0x00000001; the message was dropped")
        #expect(CBORError.depthLimitExceeded(limit: 64, offset: 3).description.contains("maximumDepth"))
    }
}
