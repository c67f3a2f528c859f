import BleuWire

/// How errors cross the link: a `Codable` error travels as itself (``CodableErrorPayload``),
/// any other as its type name and description; the caller rebuilds the types it accepts (the
/// method's declared error type and ``RemoteTypeRegistry``), the others arrive as
/// ``RemoteCallError``.
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

    /// The error a payload carries: as its own type when the caller accepts that type — it is
    /// `declared` (the called method's typed-throws error type) or registered in `registry`
    /// (``RemoteTypeRegistry``, built-in types included) — else a ``RemoteCallError`` with the
    /// readable type name and description.
    ///
    /// The mangled name comes from the peer and is only compared with accepted types' names:
    /// it is never resolved in the process, so a peer cannot choose which `Decodable`
    /// initializer runs here.
    static func rebuild(_ payload: CodableErrorPayload, decoder: CBORDecoder, registry: RemoteTypeRegistry,
                        declared: (any (Error & Decodable).Type)?) -> any Error {
        guard let type = acceptedType(named: payload.mangledType, registry: registry, declared: declared) else {
            return RemoteCallError(typeName: payload.typeName, message: payload.message)
        }
        do {
            return try decode(type, from: payload.value, decoder: decoder)
        } catch {
            return RemoteCallError(typeName: payload.typeName, message: "\(payload.message) (could not be decoded here: \(error))")
        }
    }

    /// The `BLEActorSystemError` a payload carries, or `nil` when it carries another error (which
    /// is not decoded).
    static func systemError(in payload: CodableErrorPayload, decoder: CBORDecoder) -> BLEActorSystemError? {
        guard payload.mangledType == _mangledTypeName(BLEActorSystemError.self) else { return nil }
        do {
            return try decoder.decode(BLEActorSystemError.self, from: payload.value)
        } catch {
            return nil
        }
    }

    /// The error type a caller accepts under `mangledName`: the declared one when the name is
    /// its own, else one of the registry.
    private static func acceptedType(named mangledName: String, registry: RemoteTypeRegistry,
                                     declared: (any (Error & Decodable).Type)?) -> (any (Error & Decodable).Type)? {
        if let declared, let name = _mangledTypeName(declared), name == mangledName { return declared }
        return registry.errorType(named: mangledName)
    }

    private static func decode<E: Error & Decodable>(_ type: E.Type, from bytes: [UInt8], decoder: CBORDecoder) throws -> any Error {
        try decoder.decode(E.self, from: bytes)
    }
}
