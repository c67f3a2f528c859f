import BleuCore

/// Two transport ends joined in memory, so a test can play the controller — the way NIO's
/// `EmbeddedChannel` stands in for a socket. What one end sends, the other receives, in order.
///
/// Each end buffers at most `bufferLimit` packets its consumer has not read; past that its
/// ``incoming`` stream ends with ``HCITransportError/bufferOverflow(limit:)``.
public final class InMemoryHCITransport: HCITransport {
    private struct State {
        var continuation: AsyncThrowingStream<H4Packet, any Error>.Continuation?
        weak var peer: InMemoryHCITransport?
        var closed = false
    }

    public let incoming: AsyncThrowingStream<H4Packet, any Error>
    private let state: Locked<State>
    private let bufferLimit: Int

    private init(bufferLimit: Int) {
        self.bufferLimit = bufferLimit
        let (stream, continuation) = AsyncThrowingStream<H4Packet, any Error>.makeStream(
            bufferingPolicy: .bufferingOldest(bufferLimit))
        incoming = stream
        state = Locked(State(continuation: continuation))
    }

    /// A connected pair: give `host` to an ``HCIHost``, drive `controller` from the test.
    public static func makePair(bufferLimit: Int = 4096) -> (host: InMemoryHCITransport, controller: InMemoryHCITransport) {
        let host = InMemoryHCITransport(bufferLimit: bufferLimit)
        let controller = InMemoryHCITransport(bufferLimit: bufferLimit)
        host.state.withLock { $0.peer = controller }
        controller.state.withLock { $0.peer = host }
        return (host, controller)
    }

    public func send(_ packet: H4Packet) async throws {
        let peer = try state.withLock { state throws(HCITransportError) -> InMemoryHCITransport? in
            guard !state.closed else { throw .closed }
            return state.peer
        }
        guard let peer else { throw HCITransportError.closed }
        try peer.deliver(packet)
    }

    private func deliver(_ packet: H4Packet) throws {
        let continuation = try state.withLock { state throws(HCITransportError) in
            guard !state.closed, let continuation = state.continuation else { throw .closed }
            return continuation
        }
        if case .dropped = continuation.yield(packet) {
            continuation.finish(throwing: HCITransportError.bufferOverflow(limit: bufferLimit))
            throw HCITransportError.bufferOverflow(limit: bufferLimit)
        }
    }

    /// Closes both ends.
    public func close() async {
        closeLocally()
        state.withLock { $0.peer }?.closeLocally()
    }

    private func closeLocally() {
        let continuation = state.withLock { state -> AsyncThrowingStream<H4Packet, any Error>.Continuation? in
            state.closed = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.finish()
    }
}
