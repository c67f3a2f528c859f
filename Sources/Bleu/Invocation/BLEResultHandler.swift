import BleuCore
import BleuWire
import Distributed

/// Sends the outcome of an executed call back to the caller, as one ``Reply``.
public struct BLEResultHandler: DistributedTargetInvocationResultHandler {
    public typealias SerializationRequirement = Codable

    let callID: UInt32
    let encoder: CBOREncoder
    let send: @Sendable (Reply) async -> Void
    /// Collects the streams a result carries, started once the reply went out.
    let streams: StreamRegistrar?
    let startStreams: @Sendable ([(UInt32, StreamPump)]) -> Void
    /// Set once a reply went out, so a failure after it does not answer twice.
    let replied = Locked(false)

    init(callID: UInt32, encoder: CBOREncoder, streams: StreamRegistrar? = nil,
         startStreams: @escaping @Sendable ([(UInt32, StreamPump)]) -> Void = { _ in },
         send: @escaping @Sendable (Reply) async -> Void) {
        self.callID = callID
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
            _ = streams?.take()
            let failure = BLEActorSystemError.serialization("the result \(Success.self) could not be encoded: \(error)")
            await deliver(Self.reply(to: failure, id: callID, encoder: self.encoder))
            return
        }
        await deliver(.value(id: callID, bytes))
        if let streams { startStreams(streams.take()) }
    }

    public func onReturnVoid() async throws {
        await deliver(.void(id: callID))
    }

    public func onThrow<Err: Error>(error: Err) async throws {
        await deliver(Self.reply(to: error, id: callID, encoder: encoder))
    }

    /// Sends `reply` unless one was sent already.
    func deliver(_ reply: Reply) async {
        let first = replied.withLock { replied in
            defer { replied = true }
            return !replied
        }
        if first { await send(reply) }
    }

    /// A `Codable` error travels as itself (mangled type name and CBOR); any other as its type
    /// name and description, which the caller receives as ``RemoteCallError``.
    static func reply(to error: any Error, id: UInt32, encoder: CBOREncoder) -> Reply {
        if let codable = error as? any (Error & Codable), let name = _mangledTypeName(type(of: codable)),
           let bytes = try? encoder.encodeBytes(codable) {
            return .error(id: id, type: name, bytes)
        }
        return .remoteError(id: id, type: String(reflecting: type(of: error)), message: String(describing: error))
    }
}
