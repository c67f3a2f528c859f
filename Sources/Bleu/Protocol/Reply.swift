/// What a peripheral sends on an actor's reply characteristic. Layouts in
/// `Docs/ActorSystemProtocol.md`; every number is a ``Varint``.
enum Reply: Sendable, Hashable {
    /// The call returned this CBOR value.
    case value(id: UInt32, [UInt8])
    /// The call returned `Void`.
    case void(id: UInt32)
    /// The call threw a `Codable` error.
    case error(id: UInt32, CodableErrorPayload)
    /// The call threw an error that is not `Codable`: its type name and description.
    case remoteError(id: UInt32, type: String, message: String)
    /// A request of kind `request` that the peripheral could not read as a call (an unknown
    /// kind, or a malformed cancel or credit), answered with the id it carried — as ATT's Error
    /// Response names the request it refuses.
    case refused(id: UInt32, request: UInt8, reason: String)
    /// One element of a stream the peripheral produces.
    case streamElement(stream: UInt32, [UInt8])
    /// The stream finished normally.
    case streamEnd(stream: UInt32)
    /// The stream failed with an error that is not `Codable`: as ``remoteError(id:type:message:)``.
    case streamFailed(stream: UInt32, type: String, message: String)
    /// The stream failed with a `Codable` error: as ``error(id:_:)``.
    case streamError(stream: UInt32, CodableErrorPayload)

    enum Kind: UInt8 {
        case value = 0x10, void = 0x11, error = 0x12, remoteError = 0x13, refused = 0x14
        case streamElement = 0x20, streamEnd = 0x21, streamFailed = 0x22, streamError = 0x23
    }

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        func head(_ kind: Kind, _ id: UInt32) {
            bytes.append(kind.rawValue)
            Varint.append(id, to: &bytes)
        }
        switch self {
        case .value(let id, let value):
            bytes.reserveCapacity(1 + Varint.length(id) + value.count)
            head(.value, id)
            bytes.append(contentsOf: value)
        case .void(let id):
            head(.void, id)
        case .error(let id, let payload):
            head(.error, id)
            payload.append(to: &bytes)
        case .remoteError(let id, let type, let message):
            head(.remoteError, id)
            bytes.appendLengthPrefixed(Array(type.utf8))
            bytes.append(contentsOf: Array(message.utf8))
        case .refused(let id, let request, let reason):
            head(.refused, id)
            bytes.append(request)
            bytes.append(contentsOf: Array(reason.utf8))
        case .streamElement(let stream, let value):
            bytes.reserveCapacity(1 + Varint.length(stream) + value.count)
            head(.streamElement, stream)
            bytes.append(contentsOf: value)
        case .streamEnd(let stream):
            head(.streamEnd, stream)
        case .streamFailed(let stream, let type, let message):
            head(.streamFailed, stream)
            bytes.appendLengthPrefixed(Array(type.utf8))
            bytes.append(contentsOf: Array(message.utf8))
        case .streamError(let stream, let payload):
            head(.streamError, stream)
            payload.append(to: &bytes)
        }
        return bytes
    }

    static func decode(_ bytes: [UInt8]) throws(MessageProblem) -> Reply {
        var reader = EnvelopeReader(bytes)
        let raw = try reader.byte("message kind")
        guard let kind = Kind(rawValue: raw) else { throw .unknownKind(raw) }
        let id = try reader.varint("call id")
        switch kind {
        case .value: return .value(id: id, reader.rest())
        case .void:
            guard reader.isAtEnd else { throw .trailingBytes(after: "void reply") }
            return .void(id: id)
        case .error:
            return .error(id: id, try CodableErrorPayload(reading: &reader))
        case .remoteError:
            let type = try reader.string("error type", maximum: Request.maximumNameLength)
            return .remoteError(id: id, type: type, message: String(decoding: reader.rest(), as: UTF8.self))
        case .refused:
            let request = try reader.byte("refused request kind")
            return .refused(id: id, request: request, reason: String(decoding: reader.rest(), as: UTF8.self))
        case .streamElement: return .streamElement(stream: id, reader.rest())
        case .streamEnd:
            guard reader.isAtEnd else { throw .trailingBytes(after: "stream end") }
            return .streamEnd(stream: id)
        case .streamFailed:
            let type = try reader.string("error type", maximum: Request.maximumNameLength)
            return .streamFailed(stream: id, type: type, message: String(decoding: reader.rest(), as: UTF8.self))
        case .streamError:
            return .streamError(stream: id, try CodableErrorPayload(reading: &reader))
        }
    }

    /// The reply's kind, as its first byte carries it.
    var kind: Kind {
        switch self {
        case .value: .value
        case .void: .void
        case .error: .error
        case .remoteError: .remoteError
        case .refused: .refused
        case .streamElement: .streamElement
        case .streamEnd: .streamEnd
        case .streamFailed: .streamFailed
        case .streamError: .streamError
        }
    }

    /// The call or stream the reply belongs to.
    var id: UInt32 {
        switch self {
        case .value(let id, _), .void(let id), .error(let id, _), .remoteError(let id, _, _), .refused(let id, _, _): id
        case .streamElement(let id, _), .streamEnd(let id), .streamFailed(let id, _, _), .streamError(let id, _): id
        }
    }
}

/// A `Codable` error on the wire: its mangled type name (so a caller that has the type rebuilds
/// it), its readable type name and description (so a caller that does not still gets a
/// ``RemoteCallError`` saying what went wrong), and its CBOR.
struct CodableErrorPayload: Sendable, Hashable {
    /// `_mangledTypeName` of the error's type.
    var mangledType: String
    /// `String(reflecting:)` of the error's type (`MyModule.SensorFault`).
    var typeName: String
    /// `String(describing:)` of the error, at most ``maximumMessageLength`` bytes.
    var message: String
    /// The error, encoded as CBOR.
    var value: [UInt8]

    /// The longest description sent; longer ones are cut (on a character boundary).
    static let maximumMessageLength = 1024

    init(mangledType: String, typeName: String, message: String, value: [UInt8]) {
        self.mangledType = mangledType
        self.typeName = typeName
        self.message = Self.bounded(message)
        self.value = value
    }

    init(reading reader: inout EnvelopeReader) throws(MessageProblem) {
        mangledType = try reader.string("error type", maximum: Request.maximumNameLength)
        typeName = try reader.string("error type name", maximum: Request.maximumNameLength)
        message = try reader.string("error description", maximum: Self.maximumMessageLength)
        value = reader.rest()
    }

    /// `bytes(mangled type) · bytes(type name) · bytes(description) · CBOR`.
    func append(to bytes: inout [UInt8]) {
        bytes.appendLengthPrefixed(Array(mangledType.utf8))
        bytes.appendLengthPrefixed(Array(typeName.utf8))
        bytes.appendLengthPrefixed(Array(message.utf8))
        bytes.append(contentsOf: value)
    }

    /// `text` cut to at most ``maximumMessageLength`` UTF-8 bytes, whole characters only.
    static func bounded(_ text: String) -> String {
        guard text.utf8.count > maximumMessageLength else { return text }
        var result = ""
        var length = 0
        for character in text {
            let size = character.utf8.count
            guard length + size <= maximumMessageLength - 3 else { break }
            result.append(character)
            length += size
        }
        return result + "…"
    }
}
