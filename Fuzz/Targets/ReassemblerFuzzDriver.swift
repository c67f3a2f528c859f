// Shared driver of the reassembler fuzz targets. Built with swiftc together with BleuWire's
// sources (see scripts/fuzz.sh), so it sees the module's internals.

/// A manual instant: time moves only when the input says so.
struct FuzzInstant: InstantProtocol {
    var offset: Duration
    func advanced(by duration: Duration) -> FuzzInstant { FuzzInstant(offset: offset + duration) }
    func duration(to other: FuzzInstant) -> Duration { other.offset - offset }
    static func < (a: FuzzInstant, b: FuzzInstant) -> Bool { a.offset < b.offset }
}

/// A deterministic generator so that a crashing input replays exactly.
struct FuzzRandom: RandomNumberGenerator, Sendable {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Reads the fuzzer's input as a program of operations on a reassembler:
///
/// - `0`: a raw fragment (length byte, then bytes) from one of 4 peers;
/// - `1`: time passes (a byte × 100 ms), then `expire`;
/// - `2`: a peer disconnects (`removePeer`);
/// - `3`: a message (length and fill from the input) is fragmented at a length from the input and
///   fed to the same reassembler, and to a fresh one that must deliver it exactly.
///
/// After every operation the limits must hold; a violation or a lost message traps, which is
/// what the fuzzer reports.
func fuzzReassembler(_ format: WireFormat, _ data: UnsafeRawBufferPointer) {
    let limits = ReassemblyLimits(maximumMessageSize: 2_000, maximumMessagesInFlight: 4,
                                  maximumBufferedBytes: 3_000, maximumPeers: 3, timeout: .seconds(5))
    var reassembler = Reassembler<UInt8, FuzzInstant>(format: format, limits: limits)
    var fragmenter = Fragmenter(format: format, maximumMessageSize: 2_000, random: FuzzRandom(state: 1))
    var now = FuzzInstant(offset: .zero)
    var input = data[...]

    func byte() -> UInt8? { input.popFirst() }

    while let op = byte() {
        let peer = (op >> 2) & 3
        switch op & 3 {
        case 0:
            let length = Int(byte() ?? 0) % 80
            let fragment = Array(input.prefix(length))
            input = input.dropFirst(length)
            _ = try? reassembler.receive(fragment, from: peer, now: now)
        case 1:
            now = now.advanced(by: .milliseconds(100 * Int(byte() ?? 0)))
            for timeout in reassembler.expire(now: now) where timeout.receivedBytes > limits.maximumBufferedBytes {
                fatalError("timed-out message held \(timeout.receivedBytes) bytes")
            }
        case 2:
            reassembler.removePeer(peer)
            if reassembler.bufferedBytes(for: peer) != 0 { fatalError("removed peer still holds bytes") }
        default:
            let size = Int(byte() ?? 0) * 2 + Int(byte() ?? 0) % 2
            let fill = byte() ?? 0
            let length = format.minimumFragmentLength + Int(byte() ?? 0) % 120
            let message = (0..<size).map { UInt8(truncatingIfNeeded: $0) &+ fill }
            guard let fragments = try? fragmenter.fragments(of: message, maximumFragmentLength: length) else {
                if size <= 2_000 { fatalError("fragmenter refused \(size) bytes at length \(length)") }
                continue
            }
            var clean = Reassembler<UInt8, FuzzInstant>(format: format, limits: limits)
            var delivered: [[UInt8]] = []
            for fragment in fragments {
                if fragment.count > length { fatalError("fragment of \(fragment.count) bytes exceeds \(length)") }
                _ = try? reassembler.receive(fragment, from: peer, now: now)
                do {
                    if case .message(let bytes) = try clean.receive(fragment, from: 0, now: now) { delivered.append(bytes) }
                } catch {
                    fatalError("clean reassembly refused a valid fragment: \(error)")
                }
            }
            if delivered != [message] { fatalError("clean reassembly delivered \(delivered.count) messages, not the one sent") }
        }
        for p in UInt8(0)..<4 {
            if reassembler.bufferedBytes(for: p) > limits.maximumBufferedBytes { fatalError("buffer limit broken") }
            if reassembler.messagesInFlight(for: p) > limits.maximumMessagesInFlight { fatalError("in-flight limit broken") }
        }
        if reassembler.peerCount > limits.maximumPeers { fatalError("peer limit broken") }
    }
}
