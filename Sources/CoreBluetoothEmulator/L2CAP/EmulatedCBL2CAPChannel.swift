import BleuCore
import Foundation

/// CoreBluetooth's `CBL2CAPChannel`: an LE credit-based channel whose ``inputStream`` and
/// ``outputStream`` carry its data, as on an iPhone.
///
/// Open both streams before use. The input stream holds at most ``bufferLimit`` bytes the
/// application has not read; past that the channel stops taking the peer's data, so credits
/// run out and the peer waits (nothing is dropped). Bytes written to the output stream go out
/// in order as one SDU per write; `write(_:maxLength:)` takes nothing (returns 0) while
/// ``bufferLimit`` bytes wait to be sent. A stream's delegate hears `.hasBytesAvailable`,
/// `.hasSpaceAvailable`, `.endEncountered` and `.errorOccurred` on the manager's queue —
/// no run loop needs scheduling.
public class EmulatedCBL2CAPChannel {
    /// The most bytes either stream holds for the application or the peer.
    public static let bufferLimit = 64 * 1024

    /// The peer: an ``EmulatedCBPeripheral`` for a central, an ``EmulatedCBCentral`` for a peripheral.
    public let peer: EmulatedCBPeer!
    /// The data the peer sends.
    public let inputStream: InputStream!
    /// The data to send to the peer.
    public let outputStream: OutputStream!
    /// The PSM the channel was opened on.
    public var psm: CBL2CAPPSM { channel.psm }

    private let channel: any L2CAPChannel

    init(_ channel: any L2CAPChannel, peer: EmulatedCBPeer, callbacks: CallbackQueue) {
        self.channel = channel
        self.peer = peer
        let input = ChannelInputStream(channel: channel, callbacks: callbacks)
        let output = ChannelOutputStream(channel: channel, callbacks: callbacks)
        inputStream = input
        outputStream = output
    }
}

/// The application's side of the channel's incoming data: a pump task moves SDUs from the
/// channel into a bounded buffer that `read` drains.
final class ChannelInputStream: InputStream {
    private struct State {
        var buffer: [UInt8] = []
        var status: Stream.Status = .notOpen
        var error: (any Error)?
        var ended = false
    }

    private let state = Locked(State())
    private let room = ReadySignal()
    private let callbacks: CallbackQueue
    private var pump: Task<Void, Never>?

    init(channel: any L2CAPChannel, callbacks: CallbackQueue) {
        self.callbacks = callbacks
        super.init(data: Data())
        let handoff = WeakHandoff(self)
        pump = Task { [state, room] in
            do {
                for try await sdu in channel.incoming {
                    while true {
                        let generation = room.generation
                        let full = state.withLock { $0.buffer.count >= EmulatedCBL2CAPChannel.bufferLimit }
                        if !full { break }
                        try await room.wait(after: generation)
                    }
                    state.withLock { $0.buffer += sdu }
                    handoff.object?.notify(.hasBytesAvailable)
                }
                state.withLock { $0.ended = true }
                handoff.object?.notify(.endEncountered)
            } catch {
                state.withLock { $0.ended = true; $0.error = error }
                handoff.object?.notify(.errorOccurred)
            }
        }
    }

    deinit {
        pump?.cancel()
    }

    override func open() {
        state.withLock { if $0.status == .notOpen { $0.status = .open } }
    }

    override func close() {
        state.withLock { $0.status = .closed }
        pump?.cancel()
        room.close(CancellationError())
    }

    override var streamStatus: Stream.Status {
        state.withLock { state in
            if state.status == .open, state.buffer.isEmpty, state.ended { return state.error == nil ? .atEnd : .error }
            return state.status
        }
    }

    override var streamError: (any Error)? {
        state.withLock { $0.error }
    }

    override var hasBytesAvailable: Bool {
        state.withLock { !$0.buffer.isEmpty }
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        let count: Int = state.withLock { state in
            guard state.status == .open else { return -1 }
            let count = min(len, state.buffer.count)
            state.buffer.withUnsafeBufferPointer { bytes in
                buffer.update(from: bytes.baseAddress!, count: count)
            }
            state.buffer.removeFirst(count)
            return count
        }
        if count > 0 { room.signal() }
        return count
    }

    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
                            length len: UnsafeMutablePointer<Int>) -> Bool {
        false
    }

    private func notify(_ event: Stream.Event) {
        let handoff = WeakHandoff(self)
        callbacks.async {
            guard let stream = handoff.object, stream.state.withLock({ $0.status == .open }) else { return }
            stream.deliver(event)
        }
    }
}

/// The application's side of the channel's outgoing data: each write becomes an SDU, sent in
/// order by a pump task.
final class ChannelOutputStream: OutputStream {
    private struct State {
        var status: Stream.Status = .notOpen
        var pending = 0
        var error: (any Error)?
    }

    private let state = Locked(State())
    private let callbacks: CallbackQueue
    private let channel: any L2CAPChannel
    private let outgoing: AsyncStream<Data>.Continuation
    private var pump: Task<Void, Never>?

    init(channel: any L2CAPChannel, callbacks: CallbackQueue) {
        self.channel = channel
        self.callbacks = callbacks
        let (stream, continuation) = AsyncStream<Data>.makeStream()
        outgoing = continuation
        super.init(toMemory: ())
        let handoff = WeakHandoff(self)
        pump = Task { [state] in
            for await sdu in stream {
                do {
                    try await channel.send(sdu)
                } catch {
                    state.withLock { $0.error = error; $0.status = .error }
                    handoff.object?.notify(.errorOccurred)
                    return
                }
                let hadNoRoom = state.withLock { state in
                    defer { state.pending -= sdu.count }
                    return state.pending >= EmulatedCBL2CAPChannel.bufferLimit
                }
                if hadNoRoom { handoff.object?.notify(.hasSpaceAvailable) }
            }
        }
    }

    required init(toMemory: ()) {
        preconditionFailure("an L2CAP channel's output stream is made by its channel")
    }

    deinit {
        outgoing.finish()
    }

    override func open() {
        let opened = state.withLock { state in
            guard state.status == .notOpen else { return false }
            state.status = .open
            return true
        }
        if opened { notify(.hasSpaceAvailable) }
    }

    override func close() {
        state.withLock { $0.status = .closed }
        outgoing.finish()
        let channel = channel
        Task { await channel.close() }
    }

    override var streamStatus: Stream.Status {
        state.withLock { $0.status }
    }

    override var streamError: (any Error)? {
        state.withLock { $0.error }
    }

    override var hasSpaceAvailable: Bool {
        state.withLock { $0.status == .open && $0.pending < EmulatedCBL2CAPChannel.bufferLimit }
    }

    override func write(_ buffer: UnsafePointer<UInt8>, maxLength len: Int) -> Int {
        let accepted: Int = state.withLock { state in
            guard state.status == .open else { return -1 }
            guard state.pending < EmulatedCBL2CAPChannel.bufferLimit else { return 0 }
            state.pending += len
            return len
        }
        if accepted > 0 { outgoing.yield(Data(bytes: buffer, count: accepted)) }
        return accepted
    }

    private func notify(_ event: Stream.Event) {
        let handoff = WeakHandoff(self)
        callbacks.async {
            guard let stream = handoff.object else { return }
            stream.deliver(event)
        }
    }
}

extension Stream {
    /// Tells the stream's delegate about an event (an optional requirement on Apple platforms).
    func deliver(_ event: Stream.Event) {
        #if canImport(Darwin)
        delegate?.stream?(self, handle: event)
        #else
        delegate?.stream(self, handle: event)
        #endif
    }
}
