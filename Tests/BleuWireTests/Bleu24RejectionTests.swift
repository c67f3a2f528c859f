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
