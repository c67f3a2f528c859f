import BleuCore
import BleuWire
import Distributed

/// Sends the outcome of an executed call back to the caller, as one ``Reply``.
public struct BLEResultHandler: DistributedTargetInvocationResultHandler {
    public typealias SerializationRequirement = Codable

    let callID: UInt32
    let encoder: CBOREncoder
    let send: @Sendable (Reply) async -> Void
    /// Set once a reply went out, so a failure after it does not answer twice.
    let replied = Locked(false)

    public func onReturn<Success: Codable>(value: Success) async throws {
        let reply: Reply
        do {
            reply = .value(id: callID, try encoder.encodeBytes(value))
        } catch {
            reply = Self.reply(to: BLEActorSystemError.serialization("the result \(Success.self) could not be encoded: \(error)"),
                               id: callID, encoder: encoder)
        }
        await deliver(reply)
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
