import BleuCore

/// Every PDU of the Attribute Protocol (Core Spec Vol 3 Part F §3.4) as a value, with
/// symmetric ``encoded`` / ``init(decoding:)``.
///
/// The codec checks layout only (lengths, formats, counts); whether a handle exists or a range
/// is valid is the server's business. Attribute types are written in their 2-byte form when
/// they have one, as ATT requires, so a 16-byte SIG UUID decodes to the same value but
/// re-encodes shorter.
public enum ATTPDU: Hashable, Sendable {
    case errorResponse(requestOpcode: ATTOpcode, handle: UInt16, error: ATTError)
    case exchangeMTURequest(clientRxMTU: UInt16)
    case exchangeMTUResponse(serverRxMTU: UInt16)
    case findInformationRequest(startingHandle: UInt16, endingHandle: UInt16)
    case findInformationResponse(FindInformationResponse)
    case findByTypeValueRequest(startingHandle: UInt16, endingHandle: UInt16, type: UInt16, value: [UInt8])
    case findByTypeValueResponse([HandlesInformation])
    case readByTypeRequest(startingHandle: UInt16, endingHandle: UInt16, type: BluetoothUUID)
    /// Every value has the same length (the response's length field).
    case readByTypeResponse([HandleValue])
    case readRequest(handle: UInt16)
    case readResponse(value: [UInt8])
    case readBlobRequest(handle: UInt16, offset: UInt16)
    case readBlobResponse(value: [UInt8])
    /// Two or more handles.
    case readMultipleRequest(handles: [UInt16])
    case readMultipleResponse(values: [UInt8])
    case readByGroupTypeRequest(startingHandle: UInt16, endingHandle: UInt16, type: BluetoothUUID)
    /// Every value has the same length (the response's length field).
    case readByGroupTypeResponse([GroupValue])
    case writeRequest(handle: UInt16, value: [UInt8])
    case writeResponse
    case writeCommand(handle: UInt16, value: [UInt8])
    /// `signature` is the 12-byte authentication signature.
    case signedWriteCommand(handle: UInt16, value: [UInt8], signature: [UInt8])
    case prepareWriteRequest(handle: UInt16, offset: UInt16, value: [UInt8])
    case prepareWriteResponse(handle: UInt16, offset: UInt16, value: [UInt8])
    /// `commit` false cancels the prepared writes (flags 0x00), true writes them (0x01).
    case executeWriteRequest(commit: Bool)
    case executeWriteResponse
    case handleValueNotification(handle: UInt16, value: [UInt8])
    case handleValueIndication(handle: UInt16, value: [UInt8])
    case handleValueConfirmation
    /// Two or more handles.
    case readMultipleVariableRequest(handles: [UInt16])
    /// Each value with its length; the last one may be cut short by the MTU.
    case readMultipleVariableResponse(values: [[UInt8]])
    case multipleHandleValueNotification([HandleValue])

    /// A handle and a value (Read By Type Response, Multiple Handle Value Notification).
    public struct HandleValue: Hashable, Sendable {
        public var handle: UInt16
        public var value: [UInt8]
        public init(handle: UInt16, value: [UInt8]) {
            self.handle = handle
            self.value = value
        }
    }

    /// A group's first and last handle and the value of its declaration (Read By Group Type Response).
    public struct GroupValue: Hashable, Sendable {
        public var handle: UInt16
        public var endGroupHandle: UInt16
        public var value: [UInt8]
        public init(handle: UInt16, endGroupHandle: UInt16, value: [UInt8]) {
            self.handle = handle
            self.endGroupHandle = endGroupHandle
            self.value = value
        }
    }

    /// A found attribute and the end of its group (Find By Type Value Response).
    public struct HandlesInformation: Hashable, Sendable {
        public var foundHandle: UInt16
        public var groupEndHandle: UInt16
        public init(foundHandle: UInt16, groupEndHandle: UInt16) {
            self.foundHandle = foundHandle
            self.groupEndHandle = groupEndHandle
        }
    }

    /// Handles and types (Find Information Response), all 16-bit or all 128-bit.
    public struct FindInformationResponse: Hashable, Sendable {
        public var entries: [Entry]
        /// Whether the UUIDs go as 16 bytes (format 0x02); also used whenever one has no 16-bit form.
        public var uses128BitUUIDs: Bool

        public struct Entry: Hashable, Sendable {
            public var handle: UInt16
            public var type: BluetoothUUID
            public init(handle: UInt16, type: BluetoothUUID) {
                self.handle = handle
                self.type = type
            }
        }

        public init(entries: [Entry], uses128BitUUIDs: Bool = false) {
            self.entries = entries
            self.uses128BitUUIDs = uses128BitUUIDs
        }

        /// The format the response is sent in: 0x01 (16-bit UUIDs) or 0x02 (128-bit).
        public var format: UInt8 {
            uses128BitUUIDs || entries.contains { $0.type.uuid16 == nil } ? 0x02 : 0x01
        }

        /// Equal when they send the same bytes: same entries in the same format.
        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.entries == rhs.entries && lhs.format == rhs.format
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(entries)
            hasher.combine(format)
        }
    }

    /// The PDU's opcode.
    public var opcode: ATTOpcode {
        switch self {
        case .errorResponse: .errorResponse
        case .exchangeMTURequest: .exchangeMTURequest
        case .exchangeMTUResponse: .exchangeMTUResponse
        case .findInformationRequest: .findInformationRequest
        case .findInformationResponse: .findInformationResponse
        case .findByTypeValueRequest: .findByTypeValueRequest
        case .findByTypeValueResponse: .findByTypeValueResponse
        case .readByTypeRequest: .readByTypeRequest
        case .readByTypeResponse: .readByTypeResponse
        case .readRequest: .readRequest
        case .readResponse: .readResponse
        case .readBlobRequest: .readBlobRequest
        case .readBlobResponse: .readBlobResponse
        case .readMultipleRequest: .readMultipleRequest
        case .readMultipleResponse: .readMultipleResponse
        case .readByGroupTypeRequest: .readByGroupTypeRequest
        case .readByGroupTypeResponse: .readByGroupTypeResponse
        case .writeRequest: .writeRequest
        case .writeResponse: .writeResponse
        case .writeCommand: .writeCommand
        case .signedWriteCommand: .signedWriteCommand
        case .prepareWriteRequest: .prepareWriteRequest
        case .prepareWriteResponse: .prepareWriteResponse
        case .executeWriteRequest: .executeWriteRequest
        case .executeWriteResponse: .executeWriteResponse
        case .handleValueNotification: .handleValueNotification
        case .handleValueIndication: .handleValueIndication
        case .handleValueConfirmation: .handleValueConfirmation
        case .readMultipleVariableRequest: .readMultipleVariableRequest
        case .readMultipleVariableResponse: .readMultipleVariableResponse
        case .multipleHandleValueNotification: .multipleHandleValueNotification
        }
    }

    /// The PDU's bytes: opcode, then the fields of its layout (``fields(_:)``).
    public var encoded: [UInt8] {
        var encoder = ATTFieldEncoder(capacity: 8)
        var opcode = self.opcode.rawValue
        encoder.u8(&opcode)
        var copy = self
        copy.fields(&encoder)
        return encoder.bytes
    }

    /// The number of bytes ``encoded`` holds, opcode included, counted from the same layout
    /// without building them.
    public var encodedLength: Int {
        var counter = ATTFieldCounter()
        var copy = self
        copy.fields(&counter)
        return 1 + counter.count
    }

    /// The attribute handle the PDU addresses, when it has one; the starting handle of a
    /// range request. For traces and logs.
    public var handle: UInt16? {
        switch self {
        case .errorResponse(_, let handle, _), .readRequest(let handle), .readBlobRequest(let handle, _),
             .writeRequest(let handle, _), .writeCommand(let handle, _), .signedWriteCommand(let handle, _, _),
             .prepareWriteRequest(let handle, _, _), .prepareWriteResponse(let handle, _, _),
             .handleValueNotification(let handle, _), .handleValueIndication(let handle, _):
            handle
        case .findInformationRequest(let start, _), .findByTypeValueRequest(let start, _, _, _),
             .readByTypeRequest(let start, _, _), .readByGroupTypeRequest(let start, _, _):
            start
        default:
            nil
        }
    }

    /// The opcode's name as the specification spells it, such as `"Read Request"`.
    public var name: String { opcode.name }

    /// Reads one ATT PDU. Throws ``/BleuCore/PacketDecodingError`` with kind ``/BleuCore/PacketDecodingError/Kind/unknownType(_:)``
    /// for an opcode the protocol does not define (a server answers Request Not Supported unless
    /// the command flag is set) and other kinds for a malformed PDU (a server answers Invalid PDU).
    public init(decoding bytes: [UInt8]) throws(PacketDecodingError) {
        guard let first = bytes.first else {
            throw PacketDecodingError("ATT PDU", .truncated(offset: 0, needed: 1, available: 0))
        }
        let opcode = ATTOpcode(rawValue: first)
        var reader = ByteReader(bytes, packet: opcode.description)
        _ = try reader.u8()
        guard var pdu = Self.blank(opcode) else { throw reader.error(.unknownType(UInt32(first))) }
        var decoder = ATTFieldDecoder(reader)
        try pdu.fields(&decoder)
        try decoder.reader.finish()
        self = pdu
    }
}
