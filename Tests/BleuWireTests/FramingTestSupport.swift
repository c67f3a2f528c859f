import BleuCore
import Testing
@testable import BleuWire

/// A manual instant for timeout tests: time moves only when a test says so.
struct TestInstant: InstantProtocol {
    var offset: Duration

    static let zero = TestInstant(offset: .zero)

    func advanced(by duration: Duration) -> TestInstant { TestInstant(offset: offset + duration) }
    func duration(to other: TestInstant) -> Duration { other.offset - offset }
    static func < (a: TestInstant, b: TestInstant) -> Bool { a.offset < b.offset }
}

typealias TestReassembler = Reassembler<Int, TestInstant>

func randomBytes(_ count: Int, _ rng: inout SeededRandomNumberGenerator) -> [UInt8] {
    (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
}

extension Reassembler {
    /// Feeds fragments in order; returns every message delivered.
    mutating func deliver(_ fragments: some Sequence<[UInt8]>, from peer: Peer, now: Instant) throws -> [[UInt8]] {
        var messages: [[UInt8]] = []
        for fragment in fragments {
            if case .message(let bytes) = try receive(fragment, from: peer, now: now) { messages.append(bytes) }
        }
        return messages
    }
}

/// The `WireError` a call throws, or `nil` if it returns.
func rejection<T>(_ body: () throws -> T) -> WireError? {
    do {
        _ = try body()
        return nil
    } catch let error as WireError {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}
