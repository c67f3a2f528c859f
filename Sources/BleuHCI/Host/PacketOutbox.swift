import BleuCore

/// The packets the host has for the controller and the transport has not taken yet, in order.
///
/// The host posts packets from its actor; one writer task takes everything posted since its
/// last take in one go and hands it to the transport as one write (``HCITransport/send(contentsOf:)``),
/// so the packets that pile up while a write is under way leave together, not one system call
/// each. After ``finish()`` the writer still takes what was posted before, then gets `nil`.
final class PacketOutbox: Sendable {
    private struct State {
        var packets: [H4Packet] = []
        var writer: CheckedContinuation<[H4Packet]?, Never>?
        var finished = false
    }

    private let state = Locked(State())

    /// Appends packets for the writer (nothing once finished).
    func post(_ packets: [H4Packet]) {
        guard !packets.isEmpty else { return }
        let waiting: CheckedContinuation<[H4Packet]?, Never>? = state.withLock { state in
            guard !state.finished else { return nil }
            if let writer = state.writer {  // it waits only when nothing is posted
                state.writer = nil
                return writer
            }
            state.packets.append(contentsOf: packets)
            return nil
        }
        waiting?.resume(returning: packets)
    }

    /// No more packets: the writer takes what is left, then gets `nil`.
    func finish() {
        let waiting: CheckedContinuation<[H4Packet]?, Never>? = state.withLock { state in
            state.finished = true
            defer { state.writer = nil }
            return state.writer
        }
        waiting?.resume(returning: nil)
    }

    /// Everything posted since the last take, waiting until there is something; `nil` once
    /// finished and empty. One caller at a time (the writer).
    func next() async -> [H4Packet]? {
        await withCheckedContinuation { (continuation: CheckedContinuation<[H4Packet]?, Never>) in
            let ready: [H4Packet]?? = state.withLock { state in
                if !state.packets.isEmpty {
                    defer { state.packets = [] }
                    return .some(state.packets)
                }
                if state.finished { return .some(nil) }
                state.writer = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
