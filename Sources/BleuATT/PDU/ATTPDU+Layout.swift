import BleuCore

/// Each PDU's fields after the opcode (Core Spec Vol 3 Part F §3.4), declared once: ``ATTPDU/encoded``
/// runs this layout with an encoder and ``ATTPDU/init(decoding:)`` with a decoder.
///
/// The layout checks form only (lengths, formats, counts); whether a handle exists or a range
/// is valid is the server's business. Attribute types are written in their 2-byte form when
/// they have one, as ATT requires.
extension ATTPDU {
    /// Codes the PDU's fields with `coder`: writes them, or reads them into this PDU.
    public mutating func fields<C: ATTFieldCoder>(_ coder: inout C) throws(C.Failure) {
        switch self {
        case .errorResponse(var request, var handle, var error):
            var opcode = request.rawValue, code = error.rawValue
            try coder.u8(&opcode)
            try coder.u16(&handle)
            try coder.u8(&code)
            request = ATTOpcode(rawValue: opcode)
            error = ATTError(code)
            self = .errorResponse(requestOpcode: request, handle: handle, error: error)
        case .exchangeMTURequest(var mtu):
            try coder.u16(&mtu)
            self = .exchangeMTURequest(clientRxMTU: mtu)
        case .exchangeMTUResponse(var mtu):
            try coder.u16(&mtu)
            self = .exchangeMTUResponse(serverRxMTU: mtu)
        case .findInformationRequest(var start, var end):
            try coder.u16(&start)
            try coder.u16(&end)
            self = .findInformationRequest(startingHandle: start, endingHandle: end)
        case .findInformationResponse(var response):
            var format = response.format
            try coder.u8(&format)
            guard format == 1 || format == 2 else { throw coder.invalid("format", Int(format)) }
            let width = format == 1 ? 2 : 16
            try coder.list(&response.entries, minimum: 1, blank: .init(handle: 0, type: BluetoothUUID(0))) {
                (entry: inout FindInformationResponse.Entry, coder: inout C) throws(C.Failure) in
                try coder.u16(&entry.handle)
                try coder.uuid(&entry.type, width: width)
            }
            response.uses128BitUUIDs = format == 2
            self = .findInformationResponse(response)
        case .findByTypeValueRequest(var start, var end, var type, var value):
            try coder.u16(&start)
            try coder.u16(&end)
            try coder.u16(&type)
            try coder.rest(&value)
            self = .findByTypeValueRequest(startingHandle: start, endingHandle: end, type: type, value: value)
        case .findByTypeValueResponse(var entries):
            try coder.list(&entries, minimum: 1, blank: .init(foundHandle: 0, groupEndHandle: 0)) {
                (entry: inout HandlesInformation, coder: inout C) throws(C.Failure) in
                try coder.u16(&entry.foundHandle)
                try coder.u16(&entry.groupEndHandle)
            }
            self = .findByTypeValueResponse(entries)
        case .readByTypeRequest(var start, var end, var type):
            try coder.u16(&start)
            try coder.u16(&end)
            try coder.attributeType(&type)
            self = .readByTypeRequest(startingHandle: start, endingHandle: end, type: type)
        case .readByTypeResponse(var entries):
            try coder.uniformList(&entries, fixedPart: 2, valueLength: \.value.count, blank: .init(handle: 0, value: [])) {
                (entry: inout HandleValue, coder: inout C, length: Int) throws(C.Failure) in
                try coder.u16(&entry.handle)
                try coder.bytes(&entry.value, count: length)
            }
            self = .readByTypeResponse(entries)
        case .readRequest(var handle):
            try coder.u16(&handle)
            self = .readRequest(handle: handle)
        case .readResponse(var value):
            try coder.rest(&value)
            self = .readResponse(value: value)
        case .readBlobRequest(var handle, var offset):
            try coder.u16(&handle)
            try coder.u16(&offset)
            self = .readBlobRequest(handle: handle, offset: offset)
        case .readBlobResponse(var value):
            try coder.rest(&value)
            self = .readBlobResponse(value: value)
        case .readMultipleRequest(var handles):
            try coder.list(&handles, minimum: 2, counted: "number of handles", blank: 0) { (handle: inout UInt16, coder: inout C) throws(C.Failure) in
                try coder.u16(&handle)
            }
            self = .readMultipleRequest(handles: handles)
        case .readMultipleResponse(var values):
            try coder.rest(&values)
            self = .readMultipleResponse(values: values)
        case .readByGroupTypeRequest(var start, var end, var type):
            try coder.u16(&start)
            try coder.u16(&end)
            try coder.attributeType(&type)
            self = .readByGroupTypeRequest(startingHandle: start, endingHandle: end, type: type)
        case .readByGroupTypeResponse(var entries):
            try coder.uniformList(&entries, fixedPart: 4, valueLength: \.value.count,
                                  blank: .init(handle: 0, endGroupHandle: 0, value: [])) {
                (entry: inout GroupValue, coder: inout C, length: Int) throws(C.Failure) in
                try coder.u16(&entry.handle)
                try coder.u16(&entry.endGroupHandle)
                try coder.bytes(&entry.value, count: length)
            }
            self = .readByGroupTypeResponse(entries)
        case .writeRequest(var handle, var value):
            try coder.u16(&handle)
            try coder.rest(&value)
            self = .writeRequest(handle: handle, value: value)
        case .writeResponse, .executeWriteResponse, .handleValueConfirmation:
            break
        case .writeCommand(var handle, var value):
            try coder.u16(&handle)
            try coder.rest(&value)
            self = .writeCommand(handle: handle, value: value)
        case .signedWriteCommand(var handle, var value, var signature):
            try coder.u16(&handle)
            let valueLength = coder.isDecoding ? coder.remaining - 12 : value.count
            guard valueLength >= 0 else { throw coder.invalid("signed write length", coder.remaining) }
            try coder.bytes(&value, count: valueLength)
            try coder.bytes(&signature, count: 12)
            self = .signedWriteCommand(handle: handle, value: value, signature: signature)
        case .prepareWriteRequest(var handle, var offset, var value):
            try coder.u16(&handle)
            try coder.u16(&offset)
            try coder.rest(&value)
            self = .prepareWriteRequest(handle: handle, offset: offset, value: value)
        case .prepareWriteResponse(var handle, var offset, var value):
            try coder.u16(&handle)
            try coder.u16(&offset)
            try coder.rest(&value)
            self = .prepareWriteResponse(handle: handle, offset: offset, value: value)
        case .executeWriteRequest(let commit):
            var flags: UInt8 = commit ? 0x01 : 0x00
            try coder.u8(&flags)
            guard flags <= 1 else { throw coder.invalid("flags", Int(flags)) }
            self = .executeWriteRequest(commit: flags == 1)
        case .handleValueNotification(var handle, var value):
            try coder.u16(&handle)
            try coder.rest(&value)
            self = .handleValueNotification(handle: handle, value: value)
        case .handleValueIndication(var handle, var value):
            try coder.u16(&handle)
            try coder.rest(&value)
            self = .handleValueIndication(handle: handle, value: value)
        case .readMultipleVariableRequest(var handles):
            try coder.list(&handles, minimum: 2, counted: "number of handles", blank: 0) { (handle: inout UInt16, coder: inout C) throws(C.Failure) in
                try coder.u16(&handle)
            }
            self = .readMultipleVariableRequest(handles: handles)
        case .readMultipleVariableResponse(var values):
            try coder.list(&values, blank: []) { (value: inout [UInt8], coder: inout C) throws(C.Failure) in
                var length = UInt16(truncatingIfNeeded: value.count)
                try coder.u16(&length)
                // The last value may be cut short by the MTU.
                try coder.bytes(&value, count: coder.isDecoding ? min(Int(length), coder.remaining) : value.count)
            }
            self = .readMultipleVariableResponse(values: values)
        case .multipleHandleValueNotification(var entries):
            try coder.list(&entries, minimum: 2, counted: "number of handles", blank: .init(handle: 0, value: [])) {
                (entry: inout HandleValue, coder: inout C) throws(C.Failure) in
                var length = UInt16(truncatingIfNeeded: entry.value.count)
                try coder.u16(&entry.handle)
                try coder.u16(&length)
                try coder.bytes(&entry.value, count: Int(length))
            }
            self = .multipleHandleValueNotification(entries)
        }
    }

    /// A PDU of `opcode` with empty fields, for the decoder to fill; `nil` for an opcode the
    /// protocol does not define.
    static func blank(_ opcode: ATTOpcode) -> ATTPDU? {
        switch opcode {
        case .errorResponse: .errorResponse(requestOpcode: ATTOpcode(rawValue: 0), handle: 0, error: ATTError(0))
        case .exchangeMTURequest: .exchangeMTURequest(clientRxMTU: 0)
        case .exchangeMTUResponse: .exchangeMTUResponse(serverRxMTU: 0)
        case .findInformationRequest: .findInformationRequest(startingHandle: 0, endingHandle: 0)
        case .findInformationResponse: .findInformationResponse(FindInformationResponse(entries: []))
        case .findByTypeValueRequest: .findByTypeValueRequest(startingHandle: 0, endingHandle: 0, type: 0, value: [])
        case .findByTypeValueResponse: .findByTypeValueResponse([])
        case .readByTypeRequest: .readByTypeRequest(startingHandle: 0, endingHandle: 0, type: BluetoothUUID(0))
        case .readByTypeResponse: .readByTypeResponse([])
        case .readRequest: .readRequest(handle: 0)
        case .readResponse: .readResponse(value: [])
        case .readBlobRequest: .readBlobRequest(handle: 0, offset: 0)
        case .readBlobResponse: .readBlobResponse(value: [])
        case .readMultipleRequest: .readMultipleRequest(handles: [])
        case .readMultipleResponse: .readMultipleResponse(values: [])
        case .readByGroupTypeRequest: .readByGroupTypeRequest(startingHandle: 0, endingHandle: 0, type: BluetoothUUID(0))
        case .readByGroupTypeResponse: .readByGroupTypeResponse([])
        case .writeRequest: .writeRequest(handle: 0, value: [])
        case .writeResponse: .writeResponse
        case .writeCommand: .writeCommand(handle: 0, value: [])
        case .signedWriteCommand: .signedWriteCommand(handle: 0, value: [], signature: [])
        case .prepareWriteRequest: .prepareWriteRequest(handle: 0, offset: 0, value: [])
        case .prepareWriteResponse: .prepareWriteResponse(handle: 0, offset: 0, value: [])
        case .executeWriteRequest: .executeWriteRequest(commit: false)
        case .executeWriteResponse: .executeWriteResponse
        case .handleValueNotification: .handleValueNotification(handle: 0, value: [])
        case .handleValueIndication: .handleValueIndication(handle: 0, value: [])
        case .handleValueConfirmation: .handleValueConfirmation
        case .readMultipleVariableRequest: .readMultipleVariableRequest(handles: [])
        case .readMultipleVariableResponse: .readMultipleVariableResponse(values: [])
        case .multipleHandleValueNotification: .multipleHandleValueNotification([])
        default: nil
        }
    }
}
