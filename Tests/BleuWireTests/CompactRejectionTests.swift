import BleuCore
import Foundation
import Testing

@testable import BleuWire

/// Every way the compact reassembler refuses a fragment, and that each refusal frees its state.
@Suite("Framing: compact rejections")
struct CompactRejectionTests {
    var message: [UInt8] { (0..<100).map { UInt8($0) } }

    @Test("fragments too short to hold a header and a byte")
    func tooShort() {
        var r = TestReassembler(format: .compact)
        #expect(rejection { try r.receive([], from: 0, now: .zero) } == .malformedFragment(.tooShort(length: 0, minimum: 2)))
        #expect(rejection { try r.receive([0xC0], from: 0, now: .zero) } == .malformedFragment(.tooShort(length: 1, minimum: 2)))
        #expect(r.statistics.rejections == 2)
        #expect(r.peerCount == 0)
    }

    @Test("a continuation with no message in progress")
    func unexpectedContinuation() throws {
        var r = TestReassembler(format: .compact)
        let middle = CompactHeader(isFirst: false, isLast: false, slot: 3, sequence: 1).byte
        #expect(rejection { try r.receive([middle, 1, 2], from: 0, now: .zero) } == .malformedFragment(.unexpectedContinuation(slot: 3)))
    }

    @Test("a lost fragment is a sequence gap; the rest of that message is discarded, the next one arrives")
    func sequenceGap() throws {
        var f = Fragmenter()
        var r = TestReassembler(format: .compact)
        let fragments = try f.fragments(of: message, maximumFragmentLength: 20)  // 6 fragments
        #expect(try r.receive(fragments[0], from: 0, now: .zero) == .incomplete)
        #expect(rejection { try r.receive(fragments[2], from: 0, now: .zero) } == .malformedFragment(.sequenceGap(slot: 0, expected: 1, received: 2)))
        #expect(r.bufferedBytes(for: 0) == 0)
        #expect(r.messagesInFlight(for: 0) == 0)
        for fragment in fragments[3...] {
            #expect(try r.receive(fragment, from: 0, now: .zero) == .discarded)
        }
        let next = try f.fragments(of: [9, 9, 9], maximumFragmentLength: 20)
        #expect(try r.deliver(next, from: 0, now: .zero) == [[9, 9, 9]])
    }

    @Test("a message that ends before its CRC")
    func missingChecksum() {
        var r = TestReassembler(format: .compact)
        let only = CompactHeader(isFirst: true, isLast: true, slot: 2, sequence: 0).byte
        #expect(rejection { try r.receive([only, 1, 2, 3], from: 0, now: .zero) } == .malformedFragment(.missingChecksum(slot: 2)))
        #expect(r.bufferedBytes(for: 0) == 0)
    }

    @Test("a corrupted byte fails the CRC-32, naming both values")
    func checksumMismatch() throws {
        var f = Fragmenter()
        var r = TestReassembler(format: .compact)
        var fragments = try f.fragments(of: message, maximumFragmentLength: 40)
        fragments[1][5] ^= 0x10
        #expect(try r.receive(fragments[0], from: 0, now: .zero) == .incomplete)
        #expect(try r.receive(fragments[1], from: 0, now: .zero) == .incomplete)
        let error = rejection { try r.receive(fragments[2], from: 0, now: .zero) }
        guard case .checksumMismatch(let expected, let computed, .slot(0)) = error else {
            Issue.record("expected a checksum mismatch, got \(String(describing: error))")
            return
        }
        #expect(expected == CRC32.checksum(message))
        var corrupted = message
        corrupted[39 + 5 - 1] ^= 0x10
        #expect(computed == CRC32.checksum(corrupted))
        #expect(r.bufferedBytes(for: 0) == 0)
    }

    @Test("a message over the maximum size is refused and freed")
    func messageTooLarge() throws {
        var f = Fragmenter()
        var r = TestReassembler(format: .compact, limits: ReassemblyLimits(maximumMessageSize: 50))
        let fragments = try f.fragments(of: message, maximumFragmentLength: 30)  // 29 bytes each
        #expect(try r.receive(fragments[0], from: 0, now: .zero) == .incomplete)
        #expect(rejection { try r.receive(fragments[1], from: 0, now: .zero) } == .messageTooLarge(size: 54, maximum: 50))
        #expect(r.bufferedBytes(for: 0) == 0)
        #expect(try r.receive(fragments[2], from: 0, now: .zero) == .discarded)
        // The sender refuses too.
        var small = Fragmenter(maximumMessageSize: 50)
        #expect(throws: WireError.messageTooLarge(size: 100, maximum: 50)) { try small.fragments(of: message, maximumFragmentLength: 30) }
    }

    @Test("more messages in flight than allowed, on either side")
    func tooManyInFlight() throws {
        var f = Fragmenter()
        var r = TestReassembler(format: .compact, limits: ReassemblyLimits(maximumMessagesInFlight: 2))
        let outgoing = try (0..<3).map { _ in try f.begin(message, maximumFragmentLength: 20) }
        #expect(try r.receive(outgoing[0][0], from: 0, now: .zero) == .incomplete)
        #expect(try r.receive(outgoing[1][0], from: 0, now: .zero) == .incomplete)
        #expect(rejection { try r.receive(outgoing[2][0], from: 0, now: .zero) } == .tooManyMessagesInFlight(limit: 2))
        #expect(try r.receive(outgoing[2][1], from: 0, now: .zero) == .discarded)
        #expect(r.messagesInFlight(for: 0) == 2)
        // The fragmenter has 8 slots.
        let more = try (0..<5).map { _ in try f.begin(message, maximumFragmentLength: 20) }
        #expect(f.messagesInFlight == 8)
        #expect(throws: WireError.tooManyMessagesInFlight(limit: 8)) { try f.begin(message, maximumFragmentLength: 20) }
        f.finish(more[0])
        #expect(try f.begin(message, maximumFragmentLength: 20).id == more[0].id)
    }

    @Test("a peer's buffered bytes are bounded across its messages")
    func bufferLimit() throws {
        var f = Fragmenter()
        var r = TestReassembler(format: .compact, limits: ReassemblyLimits(maximumBufferedBytes: 60))
        let a = try f.begin(message, maximumFragmentLength: 40)
        let b = try f.begin(message, maximumFragmentLength: 40)
        #expect(try r.receive(a[0], from: 0, now: .zero) == .incomplete)  // 39
        #expect(rejection { try r.receive(b[0], from: 0, now: .zero) } == .bufferLimitExceeded(bytes: 78, limit: 60))
        #expect(r.bufferedBytes(for: 0) == 39)  // a is kept, b is freed
        #expect(r.messagesInFlight(for: 0) == 1)
        // Another peer has its own budget.
        #expect(try r.receive(b[0], from: 1, now: .zero) == .incomplete)
    }

    @Test("peers are bounded: idle ones make room, busy ones do not")
    func tooManyPeers() throws {
        var f = Fragmenter()
        var r = TestReassembler(format: .compact, limits: ReassemblyLimits(maximumPeers: 2))
        let long = try f.fragments(of: message, maximumFragmentLength: 20)
        let short = try f.fragments(of: [1], maximumFragmentLength: 20)
        #expect(try r.receive(long[0], from: 1, now: .zero) == .incomplete)
        #expect(try r.deliver(short, from: 2, now: .zero) == [[1]])  // peer 2 is now idle
        #expect(try r.receive(long[0], from: 3, now: .zero) == .incomplete)  // replaces peer 2
        #expect(r.peerCount == 2)
        #expect(rejection { try r.receive(long[0], from: 4, now: .zero) } == .tooManyPeers(limit: 2))
        r.removePeer(1)
        #expect(try r.receive(long[0], from: 4, now: .zero) == .incomplete)
    }

    @Test("a new message in a busy slot replaces the unfinished one")
    func abandoned() throws {
        var r = TestReassembler(format: .compact)
        let first = CompactHeader(isFirst: true, isLast: false, slot: 1, sequence: 0).byte
        #expect(try r.receive([first, 1, 2, 3], from: 0, now: .zero) == .incomplete)
        var replacement: [UInt8] = [7, 7]
        withUnsafeBytes(of: CRC32.checksum(replacement).littleEndian) { replacement.append(contentsOf: $0) }
        let only = CompactHeader(isFirst: true, isLast: true, slot: 1, sequence: 5).byte
        #expect(try r.receive([only] + replacement, from: 0, now: .zero) == .message([7, 7]))
        #expect(r.statistics.messagesAbandoned == 1)
        #expect(r.bufferedBytes(for: 0) == 0)
    }
}
