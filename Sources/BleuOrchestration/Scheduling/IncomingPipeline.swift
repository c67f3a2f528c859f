import BleuCore
import BleuWire
import Foundation

/// The incoming side: notifications from every device go through one BleuWire reassembler
/// (compact framing, bounded per device and in total, CRC-32 checked), and only whole, valid
/// messages reach the app.
final class IncomingPipeline: Sendable {
    /// What one fragment produced.
    enum Outcome: Sendable, Hashable {
        case message(Data)
        case pending
        case rejected(String)
    }

    private let reassembler: Locked<Reassembler<UUID, OffsetInstant>>

    init(limits: ReassemblyLimits = ReassemblyLimits()) {
        reassembler = Locked(Reassembler(format: .compact, limits: limits))
    }

    /// Takes one notification from `device` at `now` (time since the clock's origin).
    func receive(_ fragment: Data, from device: UUID, now: Duration) -> Outcome {
        reassembler.withLock { reassembler in
            _ = reassembler.expire(now: OffsetInstant(offset: now))
            do {
                switch try reassembler.receive(fragment, from: device, now: OffsetInstant(offset: now)) {
                case .message(let bytes): return .message(Data(bytes))
                case .incomplete, .duplicate, .discarded: return .pending
                }
            } catch {
                return .rejected("\(error)")
            }
        }
    }

    /// Forgets a device's partial messages (its link ended).
    func reset(_ device: UUID) {
        reassembler.withLock { $0.removePeer(device) }
    }
}

/// An instant as an offset from the orchestrator clock's origin, for the reassembler's timeouts.
struct OffsetInstant: InstantProtocol, Sendable, Hashable {
    var offset: Duration

    func advanced(by duration: Duration) -> OffsetInstant { OffsetInstant(offset: offset + duration) }
    func duration(to other: OffsetInstant) -> Duration { other.offset - offset }
    static func < (lhs: OffsetInstant, rhs: OffsetInstant) -> Bool { lhs.offset < rhs.offset }
}
