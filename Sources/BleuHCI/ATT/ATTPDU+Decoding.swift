import BleuCore

extension ATTPDU {
    /// Reads one ATT PDU. Throws ``PacketDecodingError`` with kind ``PacketDecodingError/Kind/unknownType(_:)``
    /// for an opcode the protocol does not define (a server answers Request Not Supported unless
    /// the command flag is set) and other kinds for a malformed PDU (a server answers Invalid PDU).
    public init(decoding bytes: [UInt8]) throws(PacketDecodingError) {
        guard let first = bytes.first else {
            throw PacketDecodingError("ATT PDU", .truncated(offset: 0, needed: 1, available: 0))
        }
        let opcode = ATTOpcode(rawValue: first)
        var r = ByteReader(bytes, packet: opcode.description)
        _ = try r.u8()
        switch opcode {
        case .errorResponse:
            self = .errorResponse(requestOpcode: ATTOpcode(rawValue: try r.u8()), handle: try r.u16(),
                                  error: ATTError(try r.u8()))
        case .exchangeMTURequest: self = .exchangeMTURequest(clientRxMTU: try r.u16())
        case .exchangeMTUResponse: self = .exchangeMTUResponse(serverRxMTU: try r.u16())
        case .findInformationRequest:
            self = .findInformationRequest(startingHandle: try r.u16(), endingHandle: try r.u16())
        case .findInformationResponse:
            let format = try r.u8()
            guard format == 1 || format == 2 else { throw r.error(.invalidValue(field: "format", value: Int(format))) }
            let uuidLength = format == 1 ? 2 : 16
            guard r.remaining > 0, r.remaining % (2 + uuidLength) == 0 else {
                throw r.error(.lengthMismatch(declared: 2 + uuidLength, actual: r.remaining))
            }
            var entries: [FindInformationResponse.Entry] = []
            while !r.isAtEnd {
                let handle = try r.u16()
                entries.append(.init(handle: handle, type: try Self.uuid(try r.take(uuidLength), &r)))
            }
            self = .findInformationResponse(FindInformationResponse(entries: entries, uses128BitUUIDs: format == 2))
        case .findByTypeValueRequest:
            self = .findByTypeValueRequest(startingHandle: try r.u16(), endingHandle: try r.u16(), type: try r.u16(),
                                           value: r.rest())
        case .findByTypeValueResponse:
            guard r.remaining > 0, r.remaining % 4 == 0 else { throw r.error(.lengthMismatch(declared: 4, actual: r.remaining)) }
            var entries: [HandlesInformation] = []
            while !r.isAtEnd { entries.append(HandlesInformation(foundHandle: try r.u16(), groupEndHandle: try r.u16())) }
            self = .findByTypeValueResponse(entries)
        case .readByTypeRequest, .readByGroupTypeRequest:
            let start = try r.u16(), end = try r.u16()
            guard r.remaining == 2 || r.remaining == 16 else {
                throw r.error(.invalidValue(field: "attribute type length", value: r.remaining))
            }
            let type = try Self.uuid(r.rest(), &r)
            self = opcode == .readByTypeRequest
                ? .readByTypeRequest(startingHandle: start, endingHandle: end, type: type)
                : .readByGroupTypeRequest(startingHandle: start, endingHandle: end, type: type)
        case .readByTypeResponse:
            let length = Int(try r.u8())
            guard length >= 2 else { throw r.error(.invalidValue(field: "length", value: length)) }
            guard r.remaining > 0, r.remaining % length == 0 else {
                throw r.error(.lengthMismatch(declared: length, actual: r.remaining))
            }
            var entries: [HandleValue] = []
            while !r.isAtEnd { entries.append(HandleValue(handle: try r.u16(), value: try r.take(length - 2))) }
            self = .readByTypeResponse(entries)
        case .readRequest: self = .readRequest(handle: try r.u16())
        case .readResponse: self = .readResponse(value: r.rest())
        case .readBlobRequest: self = .readBlobRequest(handle: try r.u16(), offset: try r.u16())
        case .readBlobResponse: self = .readBlobResponse(value: r.rest())
        case .readMultipleRequest, .readMultipleVariableRequest:
            guard r.remaining >= 4, r.remaining % 2 == 0 else {
                throw r.error(.invalidValue(field: "set of handles length", value: r.remaining))
            }
            var handles: [UInt16] = []
            while !r.isAtEnd { handles.append(try r.u16()) }
            self = opcode == .readMultipleRequest
                ? .readMultipleRequest(handles: handles) : .readMultipleVariableRequest(handles: handles)
        case .readMultipleResponse: self = .readMultipleResponse(values: r.rest())
        case .readByGroupTypeResponse:
            let length = Int(try r.u8())
            guard length >= 4 else { throw r.error(.invalidValue(field: "length", value: length)) }
            guard r.remaining > 0, r.remaining % length == 0 else {
                throw r.error(.lengthMismatch(declared: length, actual: r.remaining))
            }
            var entries: [GroupValue] = []
            while !r.isAtEnd {
                entries.append(GroupValue(handle: try r.u16(), endGroupHandle: try r.u16(), value: try r.take(length - 4)))
            }
            self = .readByGroupTypeResponse(entries)
        case .writeRequest: self = .writeRequest(handle: try r.u16(), value: r.rest())
        case .writeResponse: self = .writeResponse
        case .writeCommand: self = .writeCommand(handle: try r.u16(), value: r.rest())
        case .signedWriteCommand:
            let handle = try r.u16()
            try r.need(12)
            let value = try r.take(r.remaining - 12)
            self = .signedWriteCommand(handle: handle, value: value, signature: r.rest())
        case .prepareWriteRequest: self = .prepareWriteRequest(handle: try r.u16(), offset: try r.u16(), value: r.rest())
        case .prepareWriteResponse: self = .prepareWriteResponse(handle: try r.u16(), offset: try r.u16(), value: r.rest())
        case .executeWriteRequest:
            let flags = try r.u8()
            guard flags <= 1 else { throw r.error(.invalidValue(field: "flags", value: Int(flags))) }
            self = .executeWriteRequest(commit: flags == 1)
        case .executeWriteResponse: self = .executeWriteResponse
        case .handleValueNotification: self = .handleValueNotification(handle: try r.u16(), value: r.rest())
        case .handleValueIndication: self = .handleValueIndication(handle: try r.u16(), value: r.rest())
        case .handleValueConfirmation: self = .handleValueConfirmation
        case .readMultipleVariableResponse:
            var values: [[UInt8]] = []
            while !r.isAtEnd {
                let length = Int(try r.u16())
                values.append(try r.take(min(length, r.remaining)))  // the last value may be cut by the MTU
            }
            self = .readMultipleVariableResponse(values: values)
        case .multipleHandleValueNotification:
            var entries: [HandleValue] = []
            while !r.isAtEnd {
                let handle = try r.u16()
                entries.append(HandleValue(handle: handle, value: try r.take(Int(try r.u16()))))
            }
            guard entries.count >= 2 else { throw r.error(.invalidValue(field: "number of handles", value: entries.count)) }
            self = .multipleHandleValueNotification(entries)
        default:
            throw r.error(.unknownType(UInt32(first)))
        }
        try r.finish()
    }

    private static func uuid(_ bytes: [UInt8], _ r: inout ByteReader) throws(PacketDecodingError) -> BluetoothUUID {
        guard let uuid = BluetoothUUID(littleEndianBytes: bytes) else {
            throw r.error(.invalidValue(field: "UUID length", value: bytes.count))
        }
        return uuid
    }
}
