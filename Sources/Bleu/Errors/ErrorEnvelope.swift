import BleuWire

/// How errors cross the link: a `Codable` error travels as itself (``CodableErrorPayload``),
/// any other as its type name and description; the caller rebuilds what it can.
enum ErrorEnvelope {
    /// The payload of a `Codable` error, or `nil` when `error` is not `Codable` (or cannot be
    /// encoded, or its type has no mangled name).
    static func payload(of error: any Error, encoder: CBOREncoder) -> CodableErrorPayload? {
        guard let codable = error as? any (Error & Codable), let name = _mangledTypeName(type(of: codable)),
              let bytes = try? encoder.encodeBytes(codable) else { return nil }
        return CodableErrorPayload(mangledType: name, typeName: String(reflecting: type(of: codable)),
                                   message: String(describing: error), value: bytes)
    }

    /// The reply to call `id` that threw `error`.
    static func reply(to error: any Error, call id: UInt32, encoder: CBOREncoder) -> Reply {
        if let payload = payload(of: error, encoder: encoder) { return .error(id: id, payload) }
        return .remoteError(id: id, type: String(reflecting: type(of: error)),
                            message: CodableErrorPayload.bounded(String(describing: error)))
    }

    /// The reply ending stream `id` with `error`.
    static func reply(failing stream: UInt32, with error: any Error, encoder: CBOREncoder) -> Reply {
        if let payload = payload(of: error, encoder: encoder) { return .streamError(stream: stream, payload) }
        return .streamFailed(stream: stream, type: String(reflecting: type(of: error)),
                             message: CodableErrorPayload.bounded(String(describing: error)))
    }

    /// The error a payload carries: as its own type when that type exists in this process and is
    /// `Error & Decodable`, else a ``RemoteCallError`` with the readable type name and description.
    static func rebuild(_ payload: CodableErrorPayload, decoder: CBORDecoder) -> any Error {
        guard let type = _typeByName(payload.mangledType) as? any (Error & Decodable).Type else {
            return RemoteCallError(typeName: payload.typeName, message: payload.message)
        }
        do {
            return try decode(type, from: payload.value, decoder: decoder)
        } catch {
            return RemoteCallError(typeName: payload.typeName, message: "\(payload.message) (could not be decoded here: \(error))")
        }
    }

    private static func decode<E: Error & Decodable>(_ type: E.Type, from bytes: [UInt8], decoder: CBORDecoder) throws -> any Error {
        try decoder.decode(E.self, from: bytes)
    }
}
