import BleuCore
import Foundation
import Testing

@testable import BleuWire

/// Every way the bleu24 reassembler refuses a fragment, and that each refusal frees its state.
@Suite("Framing: bleu24 rejections")
struct Bleu24RejectionTests {
    let id = UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!

    func fragment(sequence: UInt16, total: UInt16, checksum: UInt32 = 0, payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        Bleu24Header(message: id, sequence: sequence, total: total, checksum: checksum).append(to: &bytes)
        return bytes + payload
    }

    @Test("malformed headers: too short, zero total, sequence out of range, empty payload")
    func malformed() throws {
        var r = TestReassembler(format: .bleu24)
        #expect(rejection { try r.receive([UInt8](repeating: 0, count: 23), from: 0, now: .zero) } == .malformedFragment(.tooShort(length: 23, minimum: 24)))
        #expect(rejection { try r.receive(fragment(sequence: 0, total: 0, payload: [1]), from: 0, now: .zero) } == .malformedFragment(.zeroFragmentTotal(id)))
        #expect(rejection { try r.receive(fragment(sequence: 2, total: 2, payload: [1]), from: 0, now: .zero) } == .malformedFragment(.sequenceOutOfRange(id, sequence: 2, total: 2)))
        #expect(rejection { try r.receive(fragment(sequence: 0, total: 2, payload: []), from: 0, now: .zero) } == .malformedFragment(.tooShort(length: 24, minimum: 25)))
        // A header alone is an empty message.
        #expect(try r.receive(fragment(sequence: 0, total: 1, checksum: 0, payload: []), from: 0, now: .zero) == .message([]))
        #expect(r.statistics.rejections == 4)
    }

    @Test("fragments that disagree with their message: total, CRC, payload lengths")
    func inconsistent() throws {
        var r = TestReassembler(format: .bleu24)
        #expect(try r.receive(fragment(sequence: 0, total: 3, checksum: 9, payload: [1, 2]), from: 0, now: .zero) == .incomplete)
        #expect(rejection { try r.receive(fragment(sequence: 1, total: 4, checksum: 9, payload: [3, 4]), from: 0, now: .zero) } == .malformedFragment(.inconsistentHeader(id)))
        #expect(r.bufferedBytes(for: 0) == 0)
        // The refused message's other fragments are discarded, not started anew.
        #expect(try r.receive(fragment(sequence: 2, total: 3, checksum: 9, payload: [5]), from: 0, now: .zero) == .discarded)

        // A CRC field that differs from the message's earlier fragments refuses it too.
        var crc = TestReassembler(format: .bleu24)
        #expect(try crc.receive(fragment(sequence: 1, total: 3, checksum: 9, payload: [3, 4]), from: 0, now: .zero) == .incomplete)
        #expect(rejection { try crc.receive(fragment(sequence: 0, total: 3, checksum: 10, payload: [1, 2]), from: 0, now: .zero) } == .malformedFragment(.inconsistentHeader(id)))
        #expect(crc.bufferedBytes(for: 0) == 0)
        #expect(crc.messagesInFlight(for: 0) == 0)
        #expect(try crc.receive(fragment(sequence: 2, total: 3, checksum: 9, payload: [5]), from: 0, now: .zero) == .discarded)

        var s = TestReassembler(format: .bleu24)
        #expect(try s.receive(fragment(sequence: 2, total: 3, checksum: 9, payload: [1, 2, 3]), from: 0, now: .zero) == .incomplete)
        // A middle fragment shorter than the last.
        #expect(rejection { try s.receive(fragment(sequence: 1, total: 3, checksum: 9, payload: [1, 2]), from: 0, now: .zero) } == .malformedFragment(.inconsistentLength(id, sequence: 1, length: 2)))
        var t = TestReassembler(format: .bleu24)
        #expect(try t.receive(fragment(sequence: 0, total: 3, checksum: 9, payload: [1, 2]), from: 0, now: .zero) == .incomplete)
        #expect(rejection { try t.receive(fragment(sequence: 1, total: 3, checksum: 9, payload: [1, 2, 3]), from: 0, now: .zero) } == .malformedFragment(.inconsistentLength(id, sequence: 1, length: 3)))
    }

    @Test("a corrupted byte fails the CRC-32; the message's repeats are then discarded")
    func checksumMismatch() throws {
        var f = Fragmenter(format: .bleu24, random: SeededRandomNumberGenerator(seed: 1))
        var r = TestReassembler(format: .bleu24)
        let message = Array(0..<200).map { UInt8($0) }
        var fragments = try f.fragments(of: message, maximumFragmentLength: 64)
        fragments[2][30] ^= 1
        _ = try r.receive(fragments[0], from: 0, now: .zero)
        _ = try r.receive(fragments[1], from: 0, now: .zero)
        _ = try r.receive(fragments[3], from: 0, now: .zero)
        _ = try r.receive(fragments[4], from: 0, now: .zero)
        let error = rejection { try r.receive(fragments[2], from: 0, now: .zero) }
        guard case .checksumMismatch(let expected, _, .uuid) = error else {
            Issue.record("expected a checksum mismatch, got \(String(describing: error))")
            return
        }
        #expect(expected == CRC32.checksum(message))
        #expect(r.bufferedBytes(for: 0) == 0)
        #expect(try r.receive(fragments[0], from: 0, now: .zero) == .discarded)
    }

    @Test("a header claiming a huge message is refused at its first fragment, holding nothing")
    func messageTooLarge() {
        var r = TestReassembler(format: .bleu24, limits: ReassemblyLimits(maximumMessageSize: 1_000))
        let payload = [UInt8](repeating: 1, count: 100)
        #expect(rejection { try r.receive(fragment(sequence: 0, total: 65_535, payload: payload), from: 0, now: .zero) } == .messageTooLarge(size: 6_553_401, maximum: 1_000))
        #expect(r.bufferedBytes(for: 0) == 0)
        #expect(r.messagesInFlight(for: 0) == 0)
        // Also when the last fragment comes first: 99 more fragments of at least a byte each.
        var s = TestReassembler(format: .bleu24, limits: ReassemblyLimits(maximumMessageSize: 1_000))
        #expect(rejection { try s.receive(fragment(sequence: 999, total: 1_000, payload: [1, 2]), from: 0, now: .zero) } == .messageTooLarge(size: 1_001, maximum: 1_000))
    }

    @Test("messages in flight and buffered bytes per peer are bounded")
    func limits() throws {
        var f = Fragmenter(format: .bleu24, random: SeededRandomNumberGenerator(seed: 2))
        var r = TestReassembler(format: .bleu24, limits: ReassemblyLimits(maximumMessagesInFlight: 2, maximumBufferedBytes: 100))
        let message = [UInt8](repeating: 3, count: 120)
        let outgoing = try (0..<3).map { _ in try f.fragments(of: message, maximumFragmentLength: 64) }  // 40 bytes each
        #expect(try r.receive(outgoing[0][0], from: 0, now: .zero) == .incomplete)
        #expect(try r.receive(outgoing[1][0], from: 0, now: .zero) == .incomplete)
        #expect(rejection { try r.receive(outgoing[2][0], from: 0, now: .zero) } == .tooManyMessagesInFlight(limit: 2))
        #expect(try r.receive(outgoing[2][1], from: 0, now: .zero) == .discarded)
        #expect(rejection { try r.receive(outgoing[0][1], from: 0, now: .zero) } == .bufferLimitExceeded(bytes: 120, limit: 100))
        #expect(r.bufferedBytes(for: 0) == 40)
        #expect(r.messagesInFlight(for: 0) == 1)
    }

    @Test("peers are bounded: a new peer takes an idle one's place, else it is refused with tooManyPeers")
    func tooManyPeers() throws {
        var f = Fragmenter(format: .bleu24, random: SeededRandomNumberGenerator(seed: 6))
        var r = TestReassembler(format: .bleu24, limits: ReassemblyLimits(maximumPeers: 2))
        let long = try f.fragments(of: [UInt8](repeating: 4, count: 60), maximumFragmentLength: 64)
        let short = try f.fragments(of: [1, 2, 3], maximumFragmentLength: 64)
        #expect(try r.receive(short[0], from: 1, now: .zero) == .message([1, 2, 3]))
        #expect(try r.receive(long[0], from: 2, now: .zero) == .incomplete)
        // Peer 1 is idle: peer 3 takes its place.
        #expect(try r.receive(try f.fragments(of: [9], maximumFragmentLength: 64)[0], from: 3, now: .zero) == .message([9]))
        #expect(r.peerCount == 2)
        // Now peer 3 is idle and peer 2 busy: peer 4 evicts peer 3, and a fifth peer finds both busy.
        let other = try f.fragments(of: [UInt8](repeating: 5, count: 60), maximumFragmentLength: 64)
        #expect(try r.receive(other[0], from: 4, now: .zero) == .incomplete)
        #expect(rejection { try r.receive(short[0], from: 5, now: .zero) } == .tooManyPeers(limit: 2))
        #expect(r.peerCount == 2)
        #expect(r.statistics.rejections == 1)
        // The busy peers are untouched and finish their messages.
        #expect(try r.receive(long[1], from: 2, now: .zero) == .message([UInt8](repeating: 4, count: 60)))
        #expect(try r.receive(other[1], from: 4, now: .zero) == .message([UInt8](repeating: 5, count: 60)))
    }

    @Test("with 1-byte fragments out of order the bound still holds: a message is charged up to its furthest fragment")
    func tinyFragments() throws {
        let limit = 4_096
        let limits = ReassemblyLimits(maximumMessageSize: 64 * 1024, maximumMessagesInFlight: 8, maximumBufferedBytes: limit)
        // The last fragment of a 60,000-byte message first, then the one before it: that places
        // the message's end, so 60,000 bytes would be held, over the limit.
        var reverse = TestReassembler(format: .bleu24, limits: limits)
        #expect(try reverse.receive(fragment(sequence: 59_999, total: 60_000, payload: [1]), from: 0, now: .zero) == .incomplete)
        #expect(reverse.bufferedBytes(for: 0) == 1)
        #expect(rejection { try reverse.receive(fragment(sequence: 59_998, total: 60_000, payload: [1]), from: 0, now: .zero) }
                == .bufferLimitExceeded(bytes: 60_000, limit: limit))
        #expect(reverse.bufferedBytes(for: 0) == 0 && reverse.allocatedBytes(for: 0) == 0)

        // A hostile peer scattering 1-byte fragments of many messages: what is held, counted and
        // allocated, never passes the bound (twice the limit for doubling arrays, an eighth more
        // for the bitsets, and the early last fragments).
        var rng = seededGenerator("Bleu24RejectionTests.tinyFragments")
        var hostile = TestReassembler(format: .bleu24, limits: limits)
        let ids = (0..<12).map { _ in UUID() }
        var refusals = 0
        var accepted = 0
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            let total = UInt16.random(in: 2...8_000, using: &rng)
            let sequence = UInt16.random(in: 0..<total, using: &rng)
            Bleu24Header(message: ids.randomElement(using: &rng)!, sequence: sequence, total: total, checksum: 0).append(to: &bytes)
            bytes.append(UInt8.random(in: 0...255, using: &rng))
            do {
                if try hostile.receive(bytes, from: 0, now: .zero) == .incomplete { accepted += 1 }
            } catch {
                refusals += 1
            }
            #expect(hostile.bufferedBytes(for: 0) <= limit)
            #expect(hostile.allocatedBytes(for: 0) <= 2 * limit + 2 * limit / 8 + 8 * 64, "seed \(rng.seed)")
        }
        #expect(refusals > 0 && accepted > 0)

        // Within the bound, 1-byte fragments out of order still make a message.
        var fragmenter = Fragmenter(format: .bleu24, random: rng)
        var ordinary = TestReassembler(format: .bleu24, limits: limits)
        let message = randomBytes(4_000, &rng)
        var fragments = try fragmenter.fragments(of: message, maximumFragmentLength: Bleu24Header.length + 1)
        #expect(fragments.count == 4_000)
        for start in stride(from: 0, to: fragments.count, by: 16) { fragments[start..<min(start + 16, fragments.count)].shuffle(using: &rng) }
        #expect(try ordinary.deliver(fragments, from: 0, now: .zero) == [message])
        #expect(ordinary.bufferedBytes(for: 0) == 0)
    }

    @Test("the sender refuses lengths that cannot carry the header, and messages beyond 65,535 fragments")
    func senderLimits() {
        var f = Fragmenter(format: .bleu24)
        #expect(throws: WireError.fragmentLengthTooSmall(length: 24, minimum: 25, format: .bleu24)) { try f.fragments(of: [1], maximumFragmentLength: 24) }
        var c = Fragmenter(format: .compact)
        #expect(throws: WireError.fragmentLengthTooSmall(length: 1, minimum: 2, format: .compact)) { try c.fragments(of: [1], maximumFragmentLength: 1) }
        var big = Fragmenter(format: .bleu24, maximumMessageSize: 1 << 20)
        #expect(throws: WireError.messageTooLarge(size: 70_000, maximum: 65_535)) { try big.fragments(of: [UInt8](repeating: 0, count: 70_000), maximumFragmentLength: 25) }
    }
}
