// The pairing state machine under libFuzzer: two PairingSessions (an initiator and a responder,
// configured by the input) wired to each other, with the input choosing at each step whether the
// honest exchange goes on or something hostile happens — a PDU made of input bytes to either
// side, a passkey, a comparison answer, an encryption change. Built by `scripts/fuzz.sh smp`
// through SwiftPM (it needs swift-crypto), with `BLEU_FUZZ=1`; not part of normal builds.
//
// It stops (a crash libFuzzer reports) when a session ends twice, speaks after it ended, sends a
// PDU that does not decode back to itself, hands its controller a key the initiator does not
// encrypt with, or when both complete with keys or outcomes that disagree.

import BleuCore
import BleuHCI
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPairing(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: size)))
    var run = PairingRun(input: &input)
    run.play(&input)
    return 0
}

/// The fuzzer's bytes, read front to back; zeros once they run out.
struct FuzzInput {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isEmpty: Bool { index >= bytes.count }

    mutating func byte() -> UInt8 {
        defer { index += 1 }
        return index < bytes.count ? bytes[index] : 0
    }

    mutating func take(_ count: Int) -> [UInt8] { (0..<count).map { _ in byte() } }
}

/// Deterministic octets for the sessions' nonces and passkeys (a counter through a mixer).
final class CountingRandom: Sendable {
    private let state = Locked<UInt64>(0x9E37_79B9_7F4A_7C15)

    init(seed: UInt64) { state.withLock { $0 ^= seed } }

    func octets(_ count: Int) -> [UInt8] {
        state.withLock { value in
            (0..<count).map { _ in
                value &+= 0x9E37_79B9_7F4A_7C15
                var z = value
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return UInt8(truncatingIfNeeded: z ^ (z >> 31))
            }
        }
    }
}

struct PairingRun {
    /// The specification's debug private key (Vol 3 Part H §2.3.5.6.1) and another valid one.
    static let keys: [[UInt8]] = [
        decodeHex("3f49f6d4a3c55f3874c9b3e3d2103f504aff607beb40b7995899b8a6cd3c1abd")!,
        decodeHex("55188b3d32f6bb9a900afcfbeed4e72a59cb9ac2f19d7cfb6b4fdd49f47fc5fd")!,
    ]
    static let central = PairingAddress(type: .publicDevice, address: BluetoothAddress(bytes: [0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6]))
    static let peripheral = PairingAddress(type: .randomDevice, address: BluetoothAddress(bytes: [0xC1, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6]))
    static let capabilities: [IOCapability] = [.displayOnly, .displayYesNo, .keyboardOnly, .noInputNoOutput, .keyboardDisplay]

    var sessions: [PairingSession]
    /// Actions not yet carried out, with the index of the session that asked.
    var queue: [(Int, PairingAction)] = []
    var ended = [false, false]
    var outcomes: [PairingOutcome?] = [nil, nil]
    var shown: [UInt32?] = [nil, nil]

    init(input: inout FuzzInput) {
        let seedHigh = input.byte(), seedLow = input.byte()
        let random = CountingRandom(seed: UInt64(seedHigh) << 8 | UInt64(seedLow))
        func configuration(_ bits: UInt8) -> SecurityManagerConfiguration {
            SecurityManagerConfiguration(ioCapability: Self.capabilities[Int(bits & 0x07) % 5], bonding: bits & 0x08 != 0,
                                         requiresAuthentication: bits & 0x10 != 0, supportsSecureConnections: bits & 0x20 != 0,
                                         secureConnectionsOnly: bits & 0x40 != 0, minimumKeySize: 7 + Int(bits >> 7) * 9)
        }
        let initiator = configuration(input.byte())
        let responder = configuration(input.byte())
        let keyPairs = Self.keys.map { PairingKeyPair(privateKey: $0)! }
        // Out-of-band data, chosen by the seed's low two bits: none; Secure Connections data both
        // ways; the responder's data with the initiator only; a legacy TK on both sides.
        let local = (0..<2).map { LocalOutOfBand(keyPair: keyPairs[$0], random: Array(repeating: UInt8(0x51 + $0), count: 16))! }
        let outOfBand: [PairingOutOfBand] = switch seedLow & 0x03 {
        case 1: [PairingOutOfBand(local: local[0], peer: local[1].data), PairingOutOfBand(local: local[1], peer: local[0].data)]
        case 2: [PairingOutOfBand(peer: local[1].data), PairingOutOfBand(local: local[1])]
        case 3: [PairingOutOfBand(temporaryKey: Array(repeating: 0x7B, count: 16)), PairingOutOfBand(temporaryKey: Array(repeating: 0x7B, count: 16))]
        default: [.none, .none]
        }
        sessions = [
            PairingSession(role: .initiator, configuration: initiator, initiatorAddress: Self.central, responderAddress: Self.peripheral,
                           keyPair: keyPairs[0], outOfBand: outOfBand[0], random: { random.octets($0) }),
            PairingSession(role: .responder, configuration: responder, initiatorAddress: Self.central, responderAddress: Self.peripheral,
                           keyPair: keyPairs[1], outOfBand: outOfBand[1], random: { random.octets($0) }),
        ]
        queue = sessions[0].start().map { (0, $0) }
    }

    mutating func play(_ input: inout FuzzInput) {
        for _ in 0..<600 {
            if input.isEmpty && queue.isEmpty { break }
            let side = Int(input.byte() & 1)
            switch input.isEmpty ? 0 : input.byte() % 10 {
            case 0...5:
                guard !queue.isEmpty else { continue }
                let (from, action) = queue.removeFirst()
                carryOut(action, from: from, &input)
            case 6:
                let length = Int(input.byte() % 70)
                if let pdu = try? SMPPDU(decoding: input.take(length)) { deliver({ $0.receive(pdu) }, to: side) }
            case 7:
                let value = UInt32(input.byte()) << 16 | UInt32(input.byte()) << 8 | UInt32(input.byte())
                deliver({ $0.passkeyEntered(value % 1_100_000) }, to: side)
            case 8:
                let matches = input.byte() & 1 == 1
                deliver({ $0.numberConfirmed(matches) }, to: side)
            default:
                deliver({ $0.encryptionChanged() }, to: side)
            }
        }
        if ProcessInfo.processInfo.environment["BLEU_FUZZ_TRACE"] != nil {
            // `fuzz-smp -runs=0 INPUT…` with this set shows how each input's pairing ended.
            print("pairing: initiator \(outcomes[0].map { "\($0.model), bonded \($0.bonded)" } ?? (ended[0] ? "failed" : "unfinished")), "
                  + "responder \(outcomes[1].map { "\($0.model)" } ?? (ended[1] ? "failed" : "unfinished"))")
        }
        if let first = outcomes[0], let second = outcomes[1] {
            check(first.secureConnections == second.secureConnections && first.keySize == second.keySize && first.model == second.model,
                  "the two sides completed with different outcomes")
            check(first.secureConnectionsKey == second.secureConnectionsKey, "the two sides derived different LTKs")
            check(first.peer.longTermKey == second.local.longTermKey, "the initiator holds another LTK than the responder gave")
            check(!first.authenticated || first.model != .justWorks, "Just Works completed as authenticated")
        }
    }

    /// The honest exchange: a PDU reaches the other side through the codec, users answer as a
    /// user would (typing what the other device shows, or a byte of input), encryption starts.
    private mutating func carryOut(_ action: PairingAction, from side: Int, _ input: inout FuzzInput) {
        let other = 1 - side
        switch action {
        case .send(let pdu):
            guard let decoded = try? SMPPDU(decoding: pdu.encoded) else { fail("a PDU the session sent does not decode") }
            check(decoded == pdu, "a PDU the session sent decodes to another")
            deliver({ $0.receive(decoded) }, to: other)
        case .displayPasskey(let value):
            check(value <= 999_999, "a passkey of more than six digits")
            shown[side] = value
        case .requestPasskey:
            let value = shown[other] ?? 424_242
            deliver({ $0.passkeyEntered(input.byte() == 0xFF ? nil : value) }, to: side)
        case .confirmNumber:
            deliver({ $0.numberConfirmed(input.byte() != 0xFF) }, to: side)
        case .encrypt(let key):
            check(side == 0, "the responder asked to start encryption")
            if let given = sessions[1].encryptionKey { check(given == key, "the responder would hand its controller another key") }
            deliver({ $0.encryptionChanged() }, to: 1)
            deliver({ $0.encryptionChanged() }, to: 0)
        case .completed(let outcome):
            outcomes[side] = outcome
        case .failed:
            break
        }
    }

    /// Steps one session and queues what it asks; a session that ended must stay silent.
    private mutating func deliver(_ step: (inout PairingSession) -> [PairingAction], to side: Int) {
        let actions = step(&sessions[side])
        if ended[side] { check(actions.isEmpty, "a session spoke after it ended") }
        let ends = actions.count { if case .completed = $0 { true } else if case .failed = $0 { true } else { false } }
        check(ends <= 1 && !(ended[side] && ends > 0), "a session ended twice")
        if ends > 0 { ended[side] = true }
        queue += actions.map { (side, $0) }
    }

    private func check(_ condition: Bool, _ message: String) {
        if !condition { fail(message) }
    }

    private func fail(_ message: String) -> Never {
        fatalError("pairing invariant broken: \(message)")
    }
}
