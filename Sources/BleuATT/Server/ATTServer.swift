import BleuCore

/// The server side of the Attribute Protocol as a pure function: a received PDU, the database
/// and the client's connection state in; what to do out (Core Spec Vol 3 Part F §3.4, Part G §4).
///
/// Unknown requests get Request Not Supported, malformed ones Invalid PDU, and commands
/// (unknown or malformed) are dropped, as the specification requires. Read Multiple of values
/// the application supplies is not supported yet (Request Not Supported).
public enum ATTServer {
    /// Decides what to do with the PDU `bytes` from the client of `connection`.
    public static func handle(_ bytes: [UInt8], database: GATTDatabase, connection: inout ATTServerConnection) -> ATTServerAction {
        // No PDU may exceed the MTU (Vol 3 Part F §3.2.8); answering an oversize Prepare Write would
        // echo it back oversize too. Found by the fuzzer.
        if bytes.count > connection.mtu {
            let opcode = ATTOpcode(rawValue: bytes.first ?? 0)
            if opcode.isCommand { return .ignore("dropped a \(bytes.count)-byte command over the MTU of \(connection.mtu)") }
            return .respond(.errorResponse(requestOpcode: opcode, handle: 0, error: .invalidPDU))
        }
        let pdu: ATTPDU
        do {
            pdu = try ATTPDU(decoding: bytes)
        } catch {
            let opcode = ATTOpcode(rawValue: bytes.first ?? 0)
            if opcode.isCommand { return .ignore("dropped a bad command: \(error)") }
            if case .unknownType = error.kind {
                return .respond(.errorResponse(requestOpcode: opcode, handle: 0, error: .requestNotSupported))
            }
            return .respond(.errorResponse(requestOpcode: opcode, handle: 0, error: .invalidPDU))
        }
        return handle(pdu, database: database, connection: &connection)
    }

    /// Decides what to do with a decoded PDU.
    public static func handle(_ pdu: ATTPDU, database: GATTDatabase, connection: inout ATTServerConnection) -> ATTServerAction {
        let mtu = connection.mtu
        func error(_ code: ATTError, _ handle: UInt16 = 0) -> ATTServerAction {
            .respond(.errorResponse(requestOpcode: pdu.opcode, handle: handle, error: code))
        }
        func badRange(_ start: UInt16, _ end: UInt16) -> ATTServerAction? {
            start == 0 || start > end ? error(.invalidHandle, start) : nil
        }

        switch pdu {
        case .exchangeMTURequest(let clientMTU):
            connection.exchange(clientMTU: clientMTU)
            return .respond(.exchangeMTUResponse(serverRxMTU: UInt16(connection.maxMTU)))

        case let .findInformationRequest(start, end):
            if let bad = badRange(start, end) { return bad }
            let found = database.attributes(in: start, end)
            guard let first = found.first else { return error(.attributeNotFound, start) }
            let short = first.type.uuid16 != nil
            let entrySize = short ? 4 : 18
            var entries: [ATTPDU.FindInformationResponse.Entry] = []
            // One UUID width per response: stop at the first attribute of the other width, or the
            // client's next request (from the last handle returned + 1) would skip it.
            for attribute in found {
                guard (attribute.type.uuid16 != nil) == short, 2 + (entries.count + 1) * entrySize <= mtu else { break }
                entries.append(.init(handle: attribute.handle, type: attribute.type))
            }
            return .respond(.findInformationResponse(.init(entries: entries, uses128BitUUIDs: !short)))

        case let .findByTypeValueRequest(start, end, type, value):
            if let bad = badRange(start, end) { return bad }
            var entries: [ATTPDU.HandlesInformation] = []
            for attribute in database.attributes(in: start, end)
            where attribute.type == BluetoothUUID(type) && attribute.value == .fixed(value) {
                guard 1 + (entries.count + 1) * 4 <= mtu else { break }
                let groupEnd = database.services.first { $0.start == attribute.handle }?.end ?? attribute.handle
                entries.append(.init(foundHandle: attribute.handle, groupEndHandle: groupEnd))
            }
            return entries.isEmpty ? error(.attributeNotFound, start) : .respond(.findByTypeValueResponse(entries))

        case let .readByTypeRequest(start, end, type):
            if let bad = badRange(start, end) { return bad }
            var entries: [ATTPDU.HandleValue] = []
            for attribute in database.attributes(in: start, end) where attribute.type == type {
                if let refusal = readRefusal(attribute, connection) {
                    return entries.isEmpty ? error(refusal, attribute.handle) : .respond(.readByTypeResponse(entries))
                }
                let value: [UInt8]
                switch attribute.value {
                case .fixed(let bytes): value = bytes
                case .clientConfiguration: value = cccdValue(attribute, connection)
                case .dynamic:
                    guard entries.isEmpty, let characteristic = attribute.characteristic else {
                        return .respond(.readByTypeResponse(entries))
                    }
                    return .read(ATTReadOperation(kind: .byType, characteristic: characteristic, offset: 0))
                }
                let cut = Array(value.prefix(min(mtu - 4, 253)))
                if let length = entries.first?.value.count, length != cut.count { break }
                guard 2 + (entries.count + 1) * (2 + cut.count) <= mtu else { break }
                entries.append(.init(handle: attribute.handle, value: cut))
            }
            return entries.isEmpty ? error(.attributeNotFound, start) : .respond(.readByTypeResponse(entries))

        case .readRequest(let handle), .readBlobRequest(let handle, _):
            var offset = 0
            if case .readBlobRequest(_, let o) = pdu { offset = Int(o) }
            guard let attribute = database.attribute(handle) else { return error(.invalidHandle, handle) }
            if let refusal = readRefusal(attribute, connection) { return error(refusal, handle) }
            let kind: ATTReadOperation.Kind = offset == 0 && pdu.opcode == .readRequest ? .read : .blob
            let value: [UInt8]
            switch attribute.value {
            case .fixed(let bytes): value = bytes
            case .clientConfiguration: value = cccdValue(attribute, connection)
            case .dynamic:
                guard let characteristic = attribute.characteristic else { return error(.unlikelyError, handle) }
                return .read(ATTReadOperation(kind: kind, characteristic: characteristic, offset: offset))
            }
            guard offset <= value.count else { return error(.invalidOffset, handle) }
            let part = Array(value[offset...].prefix(mtu - 1))
            return .respond(kind == .read ? .readResponse(value: part) : .readBlobResponse(value: part))

        case .readMultipleRequest(let handles), .readMultipleVariableRequest(let handles):
            var values: [[UInt8]] = []
            for handle in handles {
                guard let attribute = database.attribute(handle) else { return error(.invalidHandle, handle) }
                if let refusal = readRefusal(attribute, connection) { return error(refusal, handle) }
                switch attribute.value {
                case .fixed(let bytes): values.append(bytes)
                case .clientConfiguration: values.append(cccdValue(attribute, connection))
                case .dynamic: return error(.requestNotSupported, handle)
                }
            }
            if pdu.opcode == .readMultipleRequest {
                return .respond(.readMultipleResponse(values: Array(values.joined().prefix(mtu - 1))))
            }
            var room = mtu - 1
            var cut: [[UInt8]] = []
            for value in values where room >= 2 {
                cut.append(Array(value.prefix(room - 2)))
                room -= 2 + cut.last!.count
            }
            return .respond(.readMultipleVariableResponse(values: cut))

        case let .readByGroupTypeRequest(start, end, type):
            if let bad = badRange(start, end) { return bad }
            guard type == BluetoothUUID.Declaration.primaryService || type == BluetoothUUID.Declaration.secondaryService else {
                return error(.unsupportedGroupType, start)
            }
            var entries: [ATTPDU.GroupValue] = []
            for service in database.services where service.start >= start && service.start <= end
                && (service.published.isPrimary == (type == BluetoothUUID.Declaration.primaryService)) {
                let value = service.published.uuid.attBytes
                if let length = entries.first?.value.count, length != value.count { break }
                guard 2 + (entries.count + 1) * (4 + value.count) <= mtu else { break }
                entries.append(.init(handle: service.start, endGroupHandle: service.end, value: value))
            }
            return entries.isEmpty ? error(.attributeNotFound, start) : .respond(.readByGroupTypeResponse(entries))

        case let .writeRequest(handle, value), let .writeCommand(handle, value):
            let isCommand = pdu.opcode == .writeCommand
            func refuse(_ code: ATTError) -> ATTServerAction {
                isCommand ? .ignore("write command to 0x\(hex4(handle)) refused: \(code.name)") : error(code, handle)
            }
            guard let attribute = database.attribute(handle) else { return refuse(.invalidHandle) }
            switch attribute.value {
            case .clientConfiguration:
                guard let characteristic = attribute.characteristic else { return refuse(.unlikelyError) }
                if let code = AttributeAccess.configurationError(value, for: characteristic.properties) { return refuse(code) }
                let bits = UInt16(value[0]) | UInt16(value[1]) << 8
                if bits != 0, let code = AttributeAccess.error(for: .subscribe, on: characteristic, link: connection.security,
                                                               minimumKeySize: connection.minimumKeySize) {
                    return refuse(code)
                }
                connection.configure(characteristic.valueHandle, bits)
                return .subscriptionChanged(characteristic, configuration: bits, response: isCommand ? nil : .writeResponse)
            case .fixed:
                return refuse(.writeNotPermitted)
            case .dynamic:
                guard let characteristic = attribute.characteristic else { return refuse(.unlikelyError) }
                if let code = AttributeAccess.error(for: isCommand ? .writeCommand : .write, on: characteristic,
                                                    link: connection.security, minimumKeySize: connection.minimumKeySize)
                    ?? AttributeAccess.lengthError(offset: 0, length: value.count) {
                    return refuse(code)
                }
                return .write(ATTWriteOperation(writes: [.init(characteristic: characteristic, offset: 0, value: value)],
                                                request: isCommand ? nil : .writeRequest))
            }

        case let .prepareWriteRequest(handle, offset, value):
            guard let attribute = database.attribute(handle) else { return error(.invalidHandle, handle) }
            switch attribute.value {
            case .clientConfiguration: return error(.attributeNotLong, handle)
            case .fixed: return error(.writeNotPermitted, handle)
            case .dynamic: break
            }
            guard let characteristic = attribute.characteristic else { return error(.unlikelyError, handle) }
            if let code = AttributeAccess.error(for: .write, on: characteristic, link: connection.security,
                                                minimumKeySize: connection.minimumKeySize) {
                return error(code, handle)
            }
            guard connection.preparedWrites.count < connection.maxPreparedWrites else { return error(.prepareQueueFull, handle) }
            connection.preparedWrites.append((handle, offset, value))
            return .respond(.prepareWriteResponse(handle: handle, offset: offset, value: value))

        case .executeWriteRequest(let commit):
            let queued = connection.preparedWrites
            connection.preparedWrites = []
            guard commit, !queued.isEmpty else { return .respond(.executeWriteResponse) }
            var writes: [ATTWriteOperation.Write] = []
            for entry in queued {
                guard let characteristic = database.attribute(entry.handle)?.characteristic else {
                    return error(.invalidHandle, entry.handle)
                }
                if let code = AttributeAccess.lengthError(offset: Int(entry.offset), length: entry.value.count) {
                    return error(code, entry.handle)
                }
                writes.append(.init(characteristic: characteristic, offset: Int(entry.offset), value: entry.value))
            }
            return .write(ATTWriteOperation(writes: writes, request: .executeWriteRequest))

        case .signedWriteCommand:
            return .ignore("signed write command dropped: no signing key (SMP is not implemented yet)")

        case .errorResponse, .exchangeMTUResponse, .findInformationResponse, .findByTypeValueResponse,
             .readByTypeResponse, .readResponse, .readBlobResponse, .readMultipleResponse, .readByGroupTypeResponse,
             .writeResponse, .prepareWriteResponse, .executeWriteResponse, .handleValueNotification,
             .handleValueIndication, .handleValueConfirmation, .readMultipleVariableResponse,
             .multipleHandleValueNotification:
            return .ignore("\(pdu.opcode) is for the client side of the bearer")
        }
    }

    /// Why a read of `attribute` is refused, if it is: a characteristic value goes through the
    /// access rules; declarations, descriptors and CCCDs are readable by anyone.
    private static func readRefusal(_ attribute: GATTDatabase.Attribute, _ connection: ATTServerConnection) -> ATTError? {
        guard let characteristic = attribute.characteristic, attribute.handle == characteristic.valueHandle else { return nil }
        return AttributeAccess.error(for: .read, on: characteristic, link: connection.security,
                                     minimumKeySize: connection.minimumKeySize)
    }

    private static func cccdValue(_ attribute: GATTDatabase.Attribute, _ connection: ATTServerConnection) -> [UInt8] {
        let bits = attribute.characteristic.map { connection.clientConfigurations[$0.valueHandle] ?? 0 } ?? 0
        return [UInt8(truncatingIfNeeded: bits), UInt8(bits >> 8)]
    }
}
