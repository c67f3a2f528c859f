import BleuCore
import BleuWire
import Distributed

/// Sends the outcome of an executed call back to the caller, as one `Reply`.
public struct BLEResultHandler: DistributedTargetInvocationResultHandler {
    public typealias SerializationRequirement = Codable

    let callID: UInt32
    let encoder: CBOREncoder
    let send: @Sendable (Reply) async -> Void
    /// Collects the streams a result carries, started once the reply went out.
    let streams: StreamRegistrar?
    /// Starts the streams of a reply that went out (`true`), or forgets them when the host had
    /// answered the call already (`false`).
    let startStreams: @Sendable ([(UInt32, StreamPump)], _ replied: Bool) -> Void
    /// Set once a reply went out, so a failure after it does not answer twice. The host shares
    /// it, so a call it cancels with a reply of its own (hosting stopped) is not answered again.
    let replied: Locked<Bool>

    init(callID: UInt32, encoder: CBOREncoder, streams: StreamRegistrar? = nil, replied: Locked<Bool> = Locked(false),
         startStreams: @escaping @Sendable ([(UInt32, StreamPump)], Bool) -> Void = { _, _ in },
         send: @escaping @Sendable (Reply) async -> Void) {
        self.callID = callID
        self.replied = replied
        self.encoder = encoder
        self.streams = streams
        self.startStreams = startStreams
        self.send = send
    }

    public func onReturn<Success: Codable>(value: Success) async throws {
        var encoder = encoder
        if let streams { encoder.userInfo[.bleuStreamRegistrar] = streams }
        let bytes: [UInt8]
        do {
            bytes = try encoder.encodeBytes(value)
        } catch {
            if let streams { startStreams(streams.take(), false) }
            let failure = BLEActorSystemError.serialization(.result(type: "\(Success.self)", reason: "\(error)"))
            await deliver(Self.reply(to: failure, id: callID, encoder: self.encoder))
            return
        }
        let sent = await deliver(.value(id: callID, bytes))
        if let streams { startStreams(streams.take(), sent) }
    }

    public func onReturnVoid() async throws {
        await deliver(.void(id: callID))
    }

    public func onThrow<Err: Error>(error: Err) async throws {
        await deliver(Self.reply(to: error, id: callID, encoder: encoder))
    }

    /// Sends `reply` unless one was sent already; `false` when one was.
    @discardableResult
    func deliver(_ reply: Reply) async -> Bool {
        let first = replied.withLock { replied in
            defer { replied = true }
            return !replied
        }
        if first { await send(reply) }
        return first
    }

    /// A `Codable` error travels as itself (mangled and readable type name, description and
    /// CBOR); any other as its type name and description, which the caller receives as
    /// ``RemoteCallError``.
    static func reply(to error: any Error, id: UInt32, encoder: CBOREncoder) -> Reply {
        ErrorEnvelope.reply(to: error, call: id, encoder: encoder)
    }
}
