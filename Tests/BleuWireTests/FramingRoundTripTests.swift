import BleuCore
import Foundation
import Testing

@testable import BleuWire

@Suite("Framing: round trips")
struct FramingRoundTripTests {
    @Test("every ATT MTU from 23 (28 for bleu24) to 517, random and boundary sizes", arguments: WireFormat.allCases)
    func everyMTU(_ format: WireFormat) throws {
        var rng = seededGenerator("FramingRoundTripTests.everyMTU \(format)")
        var fragmenter = Fragmenter(format: format, random: rng)
        var reassembler = TestReassembler(format: format)
        let firstMTU = format == .compact ? 23 : 28
        for mtu in firstMTU...517 {
            let length = WireFormat.maximumFragmentLength(forATTMTU: mtu)
            let capacity = length - format.headerLength
            // Sizes around fragment boundaries (the compact CRC shifts them by 4), and random ones.
            var sizes = [0, 1, capacity - 4, capacity - 1, capacity, capacity + 1, 2 * capacity - 4, 3 * capacity + 2]
            sizes += (0..<3).map { _ in Int.random(in: 0...6_000, using: &rng) }
            for size in sizes where size >= 0 {
                let message = randomBytes(size, &rng)
                let fragments = try fragmenter.fragments(of: message, maximumFragmentLength: length)
                #expect(fragments.allSatisfy { $0.count <= length }, "MTU \(mtu) size \(size)")
                let delivered = try reassembler.deliver(fragments, from: 0, now: .zero)
                #expect(delivered == [message], "MTU \(mtu) size \(size) seed \(rng.seed)")
            }
        }
        #expect(reassembler.bufferedBytes(for: 0) == 0)
        #expect(reassembler.statistics.rejections == 0)
    }

    @Test("the fragment length may change between messages of one peer", arguments: WireFormat.allCases)
    func changingMTU(_ format: WireFormat) throws {
        var rng = SeededRandomNumberGenerator(seed: 42)
        var fragmenter = Fragmenter(format: format, random: rng)
        var reassembler = TestReassembler(format: format)
        for _ in 0..<300 {
            let length = Int.random(in: format.minimumFragmentLength...514, using: &rng)
            let message = randomBytes(Int.random(in: 0...2_000, using: &rng), &rng)
            let fragments = try fragmenter.fragments(of: message, maximumFragmentLength: length)
            #expect(try reassembler.deliver(fragments, from: 7, now: .zero) == [message])
        }
    }

    @Test("compact: several messages interleaved on one link, in per-message order")
    func compactInterleaved() throws {
        var rng = seededGenerator("FramingRoundTripTests.compactInterleaved")
        var fragmenter = Fragmenter(format: .compact)
        var reassembler = TestReassembler(format: .compact)
        for _ in 0..<50 {
            let count = Int.random(in: 1...8, using: &rng)
            var queues: [(OutgoingMessage, [UInt8], Int)] = []
            for _ in 0..<count {
                let message = randomBytes(Int.random(in: 0...600, using: &rng), &rng)
                let length = Int.random(in: 20...60, using: &rng)
                queues.append((try fragmenter.begin(message, maximumFragmentLength: length), message, 0))
            }
            #expect(fragmenter.messagesInFlight == count)
            var delivered: [[UInt8]] = []
            while let pick = queues.indices.filter({ queues[$0].2 < queues[$0].0.count }).randomElement(using: &rng) {
                let fragment = queues[pick].0[queues[pick].2]
                queues[pick].2 += 1
                if queues[pick].2 == queues[pick].0.count { fragmenter.finish(queues[pick].0) }
                if case .message(let bytes) = try reassembler.receive(fragment, from: 1, now: .zero) { delivered.append(bytes) }
            }
            #expect(Set(delivered) == Set(queues.map(\.1)), "seed \(rng.seed)")
            #expect(delivered.count == count)
            #expect(fragmenter.messagesInFlight == 0)
        }
    }

    @Test("bleu24: messages of many peers, fragments shuffled and interleaved")
    func bleu24Shuffled() throws {
        var rng = seededGenerator("FramingRoundTripTests.bleu24Shuffled")
        var fragmenter = Fragmenter(format: .bleu24, random: rng)
        var reassembler = TestReassembler(format: .bleu24)
        for _ in 0..<50 {
            var all: [(peer: Int, fragment: [UInt8])] = []
            var expected: [Int: Set<[UInt8]>] = [:]
            for peer in 0..<3 {
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let message = randomBytes(Int.random(in: 0...1_500, using: &rng), &rng)
                    expected[peer, default: []].insert(message)
                    let fragments = try fragmenter.fragments(of: message, maximumFragmentLength: Int.random(in: 25...120, using: &rng))
                    all += fragments.map { (peer, $0) }
                }
            }
            all.shuffle(using: &rng)
            var delivered: [Int: Set<[UInt8]>] = [:]
            for (peer, fragment) in all {
                if case .message(let bytes) = try reassembler.receive(fragment, from: peer, now: .zero) {
                    delivered[peer, default: []].insert(bytes)
                }
            }
            #expect(delivered == expected, "seed \(rng.seed)")
        }
        #expect(reassembler.statistics.rejections == 0)
    }

    @Test("duplicates are dropped: repeated fragments, and the end of a delivered message", arguments: WireFormat.allCases)
    func duplicates(_ format: WireFormat) throws {
        var rng = seededGenerator("FramingRoundTripTests.duplicates \(format)")
        var fragmenter = Fragmenter(format: format, random: rng)
        var reassembler = TestReassembler(format: format)
        var duplicates = 0
        for _ in 0..<200 {
            let message = randomBytes(Int.random(in: 0...400, using: &rng), &rng)
            let fragments = try fragmenter.fragments(of: message, maximumFragmentLength: 40)
            var sent: [[UInt8]] = []
            for fragment in fragments {
                sent.append(fragment)
                if Bool.random(using: &rng) {
                    sent.append(fragment)
                    duplicates += 1
                }
            }
            // A late repeat of the final fragment after delivery.
            sent.append(fragments.last!)
            duplicates += 1
            #expect(try reassembler.deliver(sent, from: 0, now: .zero) == [message], "seed \(rng.seed)")
        }
        #expect(reassembler.statistics.duplicatesDropped == duplicates)
        #expect(reassembler.statistics.messagesDelivered == 200)
    }

    @Test("compact overhead: at most 2 bytes per fragment for 1 KiB at MTU 185; one fragment at MTU 23")
    func compactOverhead() throws {
        var fragmenter = Fragmenter(format: .compact)
        let kib = try fragmenter.begin([UInt8](repeating: 7, count: 1024), maximumFragmentLength: 182)
        #expect(kib.count == 6)
        #expect(kib.byteCount - 1024 == 10)  // 6 headers + 4 CRC bytes
        #expect(Double(kib.byteCount - 1024) / Double(kib.count) <= 2)
        let small = try fragmenter.begin([UInt8](repeating: 1, count: 8), maximumFragmentLength: 20)
        #expect(small.count == 1 && small.byteCount == 13)
    }
}
