import BleuCore
import CZlib
import Foundation
import Testing

@testable import BleuWire

/// The fast paths of issue 18: the four-stream CRC-32, fragments laid out in one buffer, and the
/// shortest float widths on the wire.
@Suite("Wire fast paths")
struct WireFastPathTests {
    @Test("four-stream CRC-32 equals zlib around every block boundary, at every start alignment")
    func crcBlockBoundaries() {
        var rng = SeededRandomNumberGenerator(seed: 0x1818_2026)
        let bytes = (0..<(4 * 1024 + 64)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        var lengths: [Int] = []
        for block in CRC32Tables.blockSizes {
            for multiple in 1...4 { lengths += ((4 * block * multiple - 9)...(4 * block * multiple + 9)).map { $0 } }
        }
        for length in lengths {
            for start in 0..<8 {
                let slice = bytes[start..<(start + length)]
                #expect(CRC32.checksum(slice) == zlib(Array(slice)), "length \(length) from \(start)")
            }
        }
        // Split anywhere, fed incrementally.
        var crc = CRC32()
        var position = 0
        while position < bytes.count {
            let next = min(bytes.count, position + Int.random(in: 1...700, using: &rng))
            bytes[position..<next].withUnsafeBytes { crc.update($0) }
            position = next
        }
        #expect(crc.value == zlib(bytes))
    }

    @Test("an outgoing message's slices, copies and wire bytes agree, and reassemble", arguments: WireFormat.allCases)
    func slicesAgree(format: WireFormat) throws {
        var rng = SeededRandomNumberGenerator(seed: 0x5111_CE5)
        for (size, length) in [(0, 25), (1, 28), (15, 28), (16, 26), (17, 25), (1000, 182), (16_384, 182), (5000, 514)] {
            var fragmenter = Fragmenter(format: format, random: SeededRandomNumberGenerator(seed: 9))
            var reassembler = TestReassembler(format: format)
            let message = randomBytes(size, &rng)
            let outgoing = try fragmenter.begin(message, maximumFragmentLength: length)
            fragmenter.finish(outgoing)
            #expect(outgoing.slices.count == outgoing.count)
            #expect(outgoing.slices.map(Array.init) == Array(outgoing))
            #expect(Array(outgoing.joined()) == outgoing.wireBytes)
            #expect(outgoing.byteCount == outgoing.wireBytes.count)
            #expect(outgoing.dropLast().allSatisfy { $0.count == length })
            #expect(outgoing.allSatisfy { $0.count <= length && $0.count >= format.headerLength })
            for position in outgoing.indices {
                #expect(Array(outgoing.wireBytes[outgoing.range(ofFragment: position)]) == outgoing[position])
            }
            var delivered: [[UInt8]] = []
            for slice in outgoing.slices {
                if case .message(let bytes) = try reassembler.receive(slice, from: 1, now: .zero) { delivered.append(bytes) }
            }
            #expect(delivered == [message], "\(format), \(size) bytes at \(length)")
        }
    }

    @Test("floats take the shortest exact width, and every width decodes")
    func floatWidths() throws {
        let encoder = CBOREncoder()
        let decoder = CBORDecoder()
        // 21.5 is exact in half precision: 3 bytes, not 9.
        #expect(hexString(try encoder.encodeBytes(21.5)) == "f94d60")
        #expect(hexString(try encoder.encodeBytes(Float(21.5))) == "f94d60")
        #expect(hexString(try encoder.encodeBytes(100_000.0)) == "fa47c35000")  // single, not half
        #expect(hexString(try encoder.encodeBytes(1.1)) == "fb3ff199999999999a")  // double only
        // The same value written at each width (what another encoder may send) decodes alike.
        for hex in ["f94d60", "fa41ac0000", "fb4035800000000000"] {
            #expect(try decoder.decode(Double.self, from: hexBytes(hex)) == 21.5, "\(hex)")
            #expect(try decoder.decode(Float.self, from: hexBytes(hex)) == 21.5, "\(hex)")
        }
        // Round trips keep the exact value whatever width was chosen.
        for value in [0.0, -0.0, 21.5, 65504, 5.960464477539063e-08, 1e-10, 3.4028234663852886e38, 1e300, .infinity, -.infinity] {
            let bytes = try encoder.encodeBytes(value)
            #expect(try decoder.decode(Double.self, from: bytes).bitPattern == value.bitPattern, "\(value)")
        }
    }

    @Test("a compact message of several fragments starts with the room of the peer's last one")
    func compactReservation() throws {
        var rng = SeededRandomNumberGenerator(seed: 0x2E5E_2026)
        var fragmenter = Fragmenter()
        var reassembler = TestReassembler(format: .compact)
        let first = randomBytes(1000, &rng)
        #expect(try reassembler.deliver(try fragmenter.fragments(of: first, maximumFragmentLength: 100), from: 0, now: .zero) == [first])
        let second = randomBytes(1000, &rng)
        let fragments = try fragmenter.fragments(of: second, maximumFragmentLength: 100)
        #expect(try reassembler.receive(fragments[0], from: 0, now: .zero) == .incomplete)
        // The message and its CRC, in one allocation from the start.
        #expect(reassembler.allocatedBytes(for: 0) >= 1004)
        #expect(try reassembler.deliver(fragments.dropFirst(), from: 0, now: .zero) == [second])
        // A single-fragment message leaves the hint alone; a peer with no message before gets none.
        #expect(try reassembler.deliver(try fragmenter.fragments(of: [7], maximumFragmentLength: 100), from: 0, now: .zero) == [[7]])
        let third = try fragmenter.fragments(of: second, maximumFragmentLength: 100)
        #expect(try reassembler.receive(third[0], from: 0, now: .zero) == .incomplete)
        #expect(reassembler.allocatedBytes(for: 0) >= 1004)
        #expect(try reassembler.receive(third[0], from: 1, now: .zero) == .incomplete)
        #expect(reassembler.allocatedBytes(for: 1) < 1004)
    }

    @Test("reservations stay within the peer's buffer budget, however the sender sizes its messages")
    func compactReservationBound() throws {
        let budget = 4000
        let limits = ReassemblyLimits(maximumMessageSize: 3900, maximumBufferedBytes: budget)
        var rng = SeededRandomNumberGenerator(seed: 0xB0_0D6E7)
        var fragmenter = Fragmenter()
        var reassembler = TestReassembler(format: .compact, limits: limits)
        // One large message sets the hint; then eight begin at once, one fragment each.
        let large = randomBytes(3900, &rng)
        #expect(try reassembler.deliver(try fragmenter.fragments(of: large, maximumFragmentLength: 100), from: 0, now: .zero) == [large])
        var begun: [OutgoingMessage] = []
        for _ in 0..<8 {
            let outgoing = try fragmenter.begin(randomBytes(3000, &rng), maximumFragmentLength: 100)
            #expect(try reassembler.receive(outgoing.slices.first!, from: 0, now: .zero) == .incomplete)
            begun.append(outgoing)
        }
        // Without the bound each would reserve 3,904 bytes (31 KiB in all).
        #expect(reassembler.allocatedBytes(for: 0) <= budget + 8 * 128, "\(reassembler.allocatedBytes(for: 0))")
        for outgoing in begun { fragmenter.finish(outgoing) }

        // Random sizes and interleavings: the heap stays within three budgets (twice for arrays
        // that grow by doubling, once more for what reservations took ahead of the bytes).
        print("compactReservationBound seed \(rng.seed)")
        var hostile = TestReassembler(format: .compact, limits: limits)
        var sender = Fragmenter()
        var pending: [[[UInt8]]] = []
        for _ in 0..<3000 {
            if pending.count < 8, Bool.random(using: &rng) {
                let size = Int.random(in: 1...3900, using: &rng)
                let length = Int.random(in: 25...300, using: &rng)
                let outgoing = try sender.begin(randomBytes(size, &rng), maximumFragmentLength: length)
                pending.append(outgoing.slices.map { Array($0) })
                sender.finish(outgoing)
            }
            guard !pending.isEmpty else { continue }
            let index = Int.random(in: 0..<pending.count, using: &rng)
            let fragment = pending[index].removeFirst()
            if pending[index].isEmpty { pending.remove(at: index) }
            _ = try? hostile.receive(fragment, from: 0, now: .zero)
            #expect(hostile.bufferedBytes(for: 0) <= budget)
            #expect(hostile.allocatedBytes(for: 0) <= 3 * budget + 8 * 64, "seed \(rng.seed)")
        }
    }
}

/// zlib's CRC-32 of `bytes`, the independent reference.
private func zlib(_ bytes: [UInt8]) -> UInt32 {
    bytes.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, UInt32($0.count))) }
}
