import Foundation
import Testing

import BleuWire

/// The README's BleuWire example, as written there, compiles and works.
@Suite("BleuWire: README example")
struct BleuWireReadmeExampleTests {
    struct Call: Codable, Equatable {
        var id: UInt64
        var method: String
        var arguments: [Int]
    }

    @Test("encode, fragment, reassemble, decode")
    func example() throws {
        let call = Call(id: 7, method: "ping", arguments: [1, 2, 3])
        let peer = UUID()
        let clock = ContinuousClock()
        var received: [Call] = []
        func handle(_ message: [UInt8]) {
            if let decoded = try? CBORDecoder().decode(Call.self, from: message) { received.append(decoded) }
        }

        let bytes = try CBOREncoder().encodeBytes(call)              // or .encode(call) -> Data
        let decoded = try CBORDecoder().decode(Call.self, from: bytes)

        var fragmenter = Fragmenter()                                // .compact (default) or .bleu24
        let fragments = try fragmenter.fragments(of: bytes, maximumFragmentLength: 182)
        var reassembler = Reassembler<UUID, ContinuousClock.Instant>()
        for fragment in fragments {
            if case .message(let message) = try reassembler.receive(fragment, from: peer, now: clock.now) { handle(message) }
        }
        _ = reassembler.expire(now: clock.now)                       // from a timer: drop stalled messages

        #expect(decoded == call)
        #expect(received == [call])
    }
}
