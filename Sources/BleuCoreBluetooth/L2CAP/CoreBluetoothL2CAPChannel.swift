import BleuCore
import Foundation

/// A `CBL2CAPChannel` as BleuCore's ``/BleuCore/L2CAPChannel``: ``incoming`` reads the
/// channel's input stream, ``send(_:)`` writes its output stream.
///
/// CoreBluetooth's channel is a pair of byte streams, so the data arrives in the pieces the
/// input stream hands over, not necessarily as the SDUs the peer sent: concatenated, the bytes
/// are the peer's, in order. Reading happens only while ``incoming``'s consumer waits, so a
/// slow consumer leaves the bytes in the input stream's buffer and the peer runs out of
/// credits — nothing is dropped.
final class CoreBluetoothL2CAPChannel: L2CAPChannel {
    let psm: UInt16
    let peer: UUID
    let incoming: AsyncThrowingStream<Data, any Error>
    let core: ChannelCore
    private let queue: ManagerQueue

    /// Wraps a channel CoreBluetooth opened; runs on the queue of the manager that opened it.
    init(_ channel: CBL2CAPChannel, peer: UUID, queue: ManagerQueue) {
        psm = channel.psm
        self.peer = peer
        self.queue = queue
        let core = ChannelCore(channel, peer: peer, queue: queue)
        self.core = core
        incoming = AsyncThrowingStream(unfolding: {
            try await queue.wait({ waiter in core.read(waiter) }, cancelled: { waiter in core.readAbandoned(waiter) })
        })
    }

    deinit {
        let core = core
        queue.async { core.close() }
    }

    func send(_ data: Data) async throws {
        let core = core
        try await queue.wait { waiter in core.send(data, waiter) }
    }

    func close() async {
        let core = core
        await queue.run { core.close() }
    }
}

/// The streams of one `CBL2CAPChannel`, and their delegate, on the manager's queue.
///
/// `@unchecked Sendable` is sound for the same reason as ``CentralCore``'s: ``queue`` and
/// ``peer`` are immutable and `Sendable`; every other stored property, the CoreBluetooth
/// channel and its streams among them, is touched only by code running on ``queue`` (the
/// streams' delegate callbacks, which CoreBluetooth's streams deliver there once scheduled
/// with ``deliverEvents(of:on:)``, and the closures the channel submits to it).
final class ChannelCore: NSObject, StreamDelegate, @unchecked Sendable {
    /// The most bytes one element of ``CoreBluetoothL2CAPChannel/incoming`` carries.
    static let readChunk = 64 * 1024
    /// The most bytes written to the output stream at once. CoreBluetooth's stream takes any
    /// count; the emulator sends each write as one SDU, which must fit the peer's L2CAP MTU
    /// (at least 23 bytes; 2048 in the emulator's default configuration).
    static let writeChunk = 512

    let queue: ManagerQueue
    let peer: UUID

    // On `queue` only:
    private var channel: CBL2CAPChannel?
    private let input: InputStream
    private let output: OutputStream
    private var reader: Waiter<Data?>?
    private var sends: [(data: Data, sent: Int, waiter: Waiter<Void>)] = []
    private var inputEnded = false
    private var failure: BleuError?
    private var closed = false

    init(_ channel: CBL2CAPChannel, peer: UUID, queue: ManagerQueue) {
        self.channel = channel
        self.peer = peer
        self.queue = queue
        input = channel.inputStream
        output = channel.outputStream
        super.init()
        for stream in [input, output] as [Stream] {
            stream.delegate = self
            deliverEvents(of: stream, on: queue.queue)
            stream.open()
        }
    }

    // MARK: Reading

    /// The next bytes the peer sent: at once when the input stream holds some, `nil` once it
    /// ended, else when it reports more.
    func read(_ waiter: Waiter<Data?>) {
        if input.hasBytesAvailable { return waiter.succeed(take()) }
        if let failure { return waiter.fail(failure) }
        if inputEnded || closed { return waiter.succeed(nil) }
        reader?.fail(.invalidState(.singleConsumer))
        reader = waiter
    }

    func readAbandoned(_ waiter: Waiter<Data?>) {
        if reader === waiter { reader = nil }
    }

    private func take() -> Data {
        var buffer = [UInt8](repeating: 0, count: Self.readChunk)
        let count = input.read(&buffer, maxLength: buffer.count)
        return Data(buffer.prefix(max(0, count)))
    }

    /// Answers the waiting reader, if the stream now has an answer for it.
    private func answerReader() {
        guard let waiter = reader else { return }
        if input.hasBytesAvailable {
            reader = nil
            waiter.succeed(take())
        } else if let failure {
            reader = nil
            waiter.fail(failure)
        } else if inputEnded || closed {
            reader = nil
            waiter.succeed(nil)
        }
    }

    // MARK: Sending

    func send(_ data: Data, _ waiter: Waiter<Void>) {
        if let failure { return waiter.fail(failure) }
        guard !closed else { return waiter.fail(.invalidState(.channelClosed)) }
        guard !data.isEmpty else { return waiter.succeed() }
        sends.append((data, 0, waiter))
        pump()
    }

    /// Writes the waiting sends, in order, while the output stream takes bytes; the rest waits
    /// for `hasSpaceAvailable`.
    private func pump() {
        while let first = sends.first {
            guard first.waiter.isWaiting else {
                // The caller gave up; what was written of it stays written.
                sends.removeFirst()
                continue
            }
            let upTo = min(first.data.count, first.sent + Self.writeChunk)
            let written = first.data[first.data.startIndex + first.sent ..< first.data.startIndex + upTo].withUnsafeBytes { bytes in
                output.write(bytes.bindMemory(to: UInt8.self).baseAddress!, maxLength: bytes.count)
            }
            if written < 0 {
                return end(streamFailure(output))
            }
            if written == 0 { return }
            sends[0].sent += written
            if sends[0].sent == first.data.count {
                sends.removeFirst().waiter.succeed()
            }
        }
    }

    // MARK: Ending

    /// Closes both streams and lets go of the channel (CoreBluetooth closes a channel nobody
    /// holds); the reader gets the end, waiting sends fail.
    func close() {
        guard !closed else { return }
        closed = true
        input.delegate = nil
        output.delegate = nil
        input.close()
        output.close()
        channel = nil
        for send in sends { send.waiter.fail(.invalidState(.channelClosed)) }
        sends.removeAll()
        answerReader()
    }

    /// The link or the channel failed: the reader and the senders get `error`, now and later.
    func end(_ error: BleuError) {
        guard failure == nil, !closed else { return }
        failure = error
        for send in sends { send.waiter.fail(error) }
        sends.removeAll()
        answerReader()
        input.delegate = nil
        output.delegate = nil
        input.close()
        output.close()
        channel = nil
    }

    /// What a stream's error means: the link to the peer went.
    private func streamFailure(_ stream: Stream) -> BleuError {
        .disconnected(peer, .remoteUserTerminated)
    }

    // MARK: StreamDelegate

    func stream(_ aStream: Stream, handle eventCode: Stream.Event) {
        switch eventCode {
        case .hasBytesAvailable:
            answerReader()
        case .hasSpaceAvailable:
            pump()
        case .endEncountered:
            if aStream === input {
                inputEnded = true
                answerReader()
            }
        case .errorOccurred:
            end(streamFailure(aStream))
        default:
            break
        }
    }
}
