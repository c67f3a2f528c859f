import BleuATT
import BleuCore
import Foundation

/// The ATT server on the peripheral's side of a link: discovery from the database, checks of
/// properties, permissions, lengths and security with the right errors, and every read and
/// write of a characteristic value handed to the application to answer.
extension Engine {
    mutating func serverReceive(_ pdu: ATTPDU, on linkID: Int) {
        guard let link = links[linkID], let node = peripherals[link.peripheral] else { return }
        let database = node.database
        switch pdu {
        case .exchangeMTURequest(let clientMTU):
            links[linkID]?.mtu = max(EmulatorConfiguration.minimumMTU, min(node.mtu, Int(clientMTU)))
            answer(.exchangeMTUResponse(UInt16(node.mtu)), on: linkID)
            if let mtu = links[linkID]?.mtu { node.hub.yield(.mtuChanged(central: link.centralID, mtu: mtu)) }
        case .readByGroupTypeRequest(let start, let end):
            answer(database.readByGroupType(start: start, end: end, mtu: link.mtu), on: linkID)
        case .readByTypeRequest(let start, let end, let type):
            answer(database.readByType(start: start, end: end, type: type, mtu: link.mtu), on: linkID)
        case .findInformationRequest(let start, let end):
            answer(database.findInformation(start: start, end: end, mtu: link.mtu), on: linkID)
        case .readRequest(let handle):
            read(handle, offset: 0, opcode: pdu.opcode, on: linkID)
        case .readBlobRequest(let handle, let offset):
            read(handle, offset: Int(offset), opcode: pdu.opcode, on: linkID)
        case .writeRequest(let handle, let value):
            write(handle, value, on: linkID)
        case .writeCommand(let handle, let value):
            writeCommand(handle, value, on: linkID)
        case .prepareWriteRequest(let handle, let offset, let value):
            prepareWrite(handle, offset: Int(offset), value, on: linkID)
        case .executeWriteRequest(let commit):
            executeWrite(commit: commit, on: linkID)
        case .confirmation:
            indicationConfirmed(on: linkID)
        default:
            break
        }
    }

    private mutating func answer(_ pdu: ATTPDU, on linkID: Int) {
        send(LinkPacket(direction: .peripheralToCentral, payload: .att(pdu)), on: linkID)
    }

    private mutating func error(_ opcode: UInt8, _ handle: UInt16, _ code: ATTError, on linkID: Int) {
        answer(.error(request: opcode, handle: handle, code), on: linkID)
    }

    /// Draws an injected ATT error for a read or write, if faults are on.
    private mutating func injectedError(on linkID: Int) -> ATTError? {
        guard configuration.faults.attError > 0,
              Double.random(in: 0..<1, using: &faultRandom) < configuration.faults.attError else { return nil }
        record(.fault, link: linkID, "ATT error \(configuration.faults.injectedError.rawValue) injected (seed \(seed))")
        return configuration.faults.injectedError
    }

    // MARK: Reads

    private mutating func read(_ handle: UInt16, offset: Int, opcode: UInt8, on linkID: Int) {
        guard let link = links[linkID], let node = peripherals[link.peripheral] else { return }
        guard let attribute = node.database.attribute(at: handle) else {
            return error(opcode, handle, .invalidHandle, on: linkID)
        }
        switch attribute {
        case .characteristicValue(let characteristic):
            if let code = AttributeAccess.error(for: .read, on: characteristic.published, link: link.linkSecurity) ?? injectedError(on: linkID) {
                return error(opcode, handle, code, on: linkID)
            }
            if let value = characteristic.staticValue {
                return serveStatic(value, offset: offset, opcode: opcode, handle: handle, on: linkID)
            }
            let id = ask(opcode: opcode, handle: handle, offset: offset, on: linkID)
            node.hub.yield(.readRequest(ReadRequest(id: ATTRequestID(id), central: link.centralID,
                                                    characteristic: characteristic.published, offset: offset)))
        case .configuration(let characteristic):
            if offset > 0 { return error(opcode, handle, .attributeNotLong, on: linkID) }
            let bits = link.server.configurations[characteristic.published.valueHandle] ?? 0
            serveStatic(Data([UInt8(bits & 0xFF), UInt8(bits >> 8)]), offset: 0, opcode: opcode, handle: handle, on: linkID)
        case .descriptor(let descriptor, _):
            serveStatic(descriptor.value, offset: offset, opcode: opcode, handle: handle, on: linkID)
        case .serviceDeclaration(let service):
            serveStatic(Data(service.published.uuid.attBytes), offset: offset, opcode: opcode, handle: handle, on: linkID)
        case .includeDeclaration(let include):
            var bytes = include.service.handle.littleEndianPair + include.service.endHandle.littleEndianPair
            if include.service.uuid.uuid16 != nil { bytes += include.service.uuid.attBytes }
            serveStatic(Data(bytes), offset: offset, opcode: opcode, handle: handle, on: linkID)
        case .characteristicDeclaration(let characteristic):
            let bytes = [characteristic.published.properties.rawValue] + characteristic.published.valueHandle.littleEndianPair
                + characteristic.published.uuid.attBytes
            serveStatic(Data(bytes), offset: offset, opcode: opcode, handle: handle, on: linkID)
        }
    }

    private mutating func serveStatic(_ value: Data, offset: Int, opcode: UInt8, handle: UInt16, on linkID: Int) {
        guard offset <= value.count else { return error(opcode, handle, .invalidOffset, on: linkID) }
        let mtu = links[linkID]?.mtu ?? EmulatorConfiguration.minimumMTU
        let part = Data(value.dropFirst(offset).prefix(mtu - 1))
        answer(opcode == 0x0A ? .readResponse(part) : .readBlobResponse(part), on: linkID)
    }

    /// Hands a request to the application and remembers it until it answers.
    private mutating func ask(opcode: UInt8, handle: UInt16, offset: Int, on linkID: Int) -> UInt64 {
        let id = nextRequest
        nextRequest += 1
        guard let link = links[linkID] else { return id }
        links[linkID]?.server.pending = PendingServerRequest(id: id, opcode: opcode, handle: handle, offset: offset)
        peripherals[link.peripheral]?.requests[id] = linkID
        armInstantDeadline(on: linkID)
        return id
    }

    /// The application answers a read. Bytes past what one response carries go in later blob
    /// reads; the value is capped at 512 bytes.
    mutating func respondToRead(peripheral key: Int, request: UInt64, with result: Result<Data, ATTError>) {
        guard let (linkID, link, pending) = takePendingRequest(request, of: key) else { return }
        switch result {
        case .failure(let code):
            error(pending.opcode, pending.handle, code, on: linkID)
        case .success(let value):
            let room = min(link.mtu - 1, AttributeDatabase.maximumValueLength - pending.offset)
            guard room >= 0 else { return error(pending.opcode, pending.handle, .invalidOffset, on: linkID) }
            let part = Data(value.prefix(room))
            answer(pending.opcode == 0x0A ? .readResponse(part) : .readBlobResponse(part), on: linkID)
        }
    }

    /// The request the application answers, if it still waits for an answer; it no longer does.
    private mutating func takePendingRequest(_ request: UInt64, of key: Int) -> (Int, Link, PendingServerRequest)? {
        guard let linkID = peripherals[key]?.requests.removeValue(forKey: request), let link = links[linkID],
              let pending = link.server.pending, pending.id == request else { return nil }
        links[linkID]?.server.pending = nil
        return (linkID, link, pending)
    }

    // MARK: Writes

    private mutating func write(_ handle: UInt16, _ value: Data, on linkID: Int) {
        let opcode: UInt8 = 0x12
        guard let link = links[linkID], let node = peripherals[link.peripheral] else { return }
        guard let attribute = node.database.attribute(at: handle) else {
            return error(opcode, handle, .invalidHandle, on: linkID)
        }
        switch attribute {
        case .characteristicValue(let characteristic):
            if let code = AttributeAccess.error(for: .write, on: characteristic.published, link: link.linkSecurity)
                ?? AttributeAccess.lengthError(offset: 0, length: value.count) ?? injectedError(on: linkID) {
                return error(opcode, handle, code, on: linkID)
            }
            let id = ask(opcode: opcode, handle: handle, offset: 0, on: linkID)
            let request = WriteRequest(central: link.centralID, characteristic: characteristic.published, offset: 0, value: value)
            node.hub.yield(.writeRequests(WriteRequests(id: ATTRequestID(id), central: link.centralID, requests: [request],
                                                        needsResponse: true)))
        case .configuration(let characteristic):
            if let code = AttributeAccess.configurationError(Array(value), for: characteristic.published.properties) {
                return error(opcode, handle, code, on: linkID)
            }
            let bits = UInt16(value[value.startIndex]) | UInt16(value[value.startIndex + 1]) << 8
            if bits != 0, let code = AttributeAccess.error(for: .subscribe, on: characteristic.published, link: link.linkSecurity) {
                return error(opcode, handle, code, on: linkID)
            }
            configure(characteristic, bits: bits, on: linkID)
            answer(.writeResponse, on: linkID)
        case .descriptor, .serviceDeclaration, .includeDeclaration, .characteristicDeclaration:
            error(opcode, handle, .writeNotPermitted, on: linkID)
        }
    }

    /// A central wrote a Client Characteristic Configuration descriptor: the peripheral's
    /// application learns when it subscribes or unsubscribes.
    private mutating func configure(_ characteristic: AttributeDatabase.Characteristic, bits: UInt16, on linkID: Int) {
        guard let link = links[linkID], let node = peripherals[link.peripheral] else { return }
        let handle = characteristic.published.valueHandle
        let old = link.server.configurations[handle] ?? 0
        links[linkID]?.server.configurations[handle] = bits == 0 ? nil : bits
        if old == 0, bits != 0 {
            node.hub.yield(.subscribed(central: link.centralID, characteristic: characteristic.published))
        } else if old != 0, bits == 0 {
            dropQueuedValues(handle: handle, on: linkID)
            node.hub.yield(.unsubscribed(central: link.centralID, characteristic: characteristic.published))
        }
    }

    /// A write command: no answer ever; a command that fails a check is dropped. Its
    /// write-without-response slot frees once the application has taken it.
    private mutating func writeCommand(_ handle: UInt16, _ value: Data, on linkID: Int) {
        guard let link = links[linkID], let node = peripherals[link.peripheral],
              let characteristic = node.database.characteristic(valueHandle: handle),
              AttributeAccess.error(for: .writeCommand, on: characteristic.published, link: link.linkSecurity) == nil,
              value.count <= AttributeDatabase.maximumValueLength else {
            writeSlotFreed(on: linkID)
            return
        }
        let request = WriteRequest(central: link.centralID, characteristic: characteristic.published, offset: 0, value: value)
        let id = nextRequest
        nextRequest += 1
        let (held, completed) = node.hub.yield(.writeRequests(WriteRequests(id: ATTRequestID(id), central: link.centralID,
                                                                            requests: [request], needsResponse: false)),
                                               receipt: linkID)
        if !held { writeSlotFreed(on: linkID) }
        for done in completed { writeSlotFreed(on: done) }
    }

    private mutating func prepareWrite(_ handle: UInt16, offset: Int, _ value: Data, on linkID: Int) {
        let opcode: UInt8 = 0x16
        guard let link = links[linkID], let node = peripherals[link.peripheral] else { return }
        guard let attribute = node.database.attribute(at: handle) else {
            return error(opcode, handle, .invalidHandle, on: linkID)
        }
        switch attribute {
        case .characteristicValue(let characteristic):
            if let code = AttributeAccess.error(for: .write, on: characteristic.published, link: link.linkSecurity) {
                return error(opcode, handle, code, on: linkID)
            }
            if link.server.prepared.count >= configuration.prepareQueueLimit {
                return error(opcode, handle, .prepareQueueFull, on: linkID)
            }
            if let code = AttributeAccess.lengthError(offset: offset, length: value.count) {
                return error(opcode, handle, code, on: linkID)
            }
            links[linkID]?.server.prepared.append(PreparedWrite(handle: handle, offset: offset, value: value))
            answer(.prepareWriteResponse(handle: handle, offset: UInt16(offset), value), on: linkID)
        case .configuration:
            error(opcode, handle, .attributeNotLong, on: linkID)
        case .descriptor, .serviceDeclaration, .includeDeclaration, .characteristicDeclaration:
            error(opcode, handle, .writeNotPermitted, on: linkID)
        }
    }

    /// Execute Write: the prepared writes reach the application as one batch it answers once.
    private mutating func executeWrite(commit: Bool, on linkID: Int) {
        let opcode: UInt8 = 0x18
        guard let link = links[linkID], let node = peripherals[link.peripheral] else { return }
        let prepared = link.server.prepared
        links[linkID]?.server.prepared.removeAll()
        guard commit, let first = prepared.first else {
            return answer(.executeWriteResponse, on: linkID)
        }
        var requests: [WriteRequest] = []
        for write in prepared {
            guard let characteristic = node.database.characteristic(valueHandle: write.handle) else {
                return error(opcode, write.handle, .invalidHandle, on: linkID)
            }
            requests.append(WriteRequest(central: link.centralID, characteristic: characteristic.published,
                                         offset: write.offset, value: write.value))
        }
        if let code = injectedError(on: linkID) { return error(opcode, first.handle, code, on: linkID) }
        let id = ask(opcode: opcode, handle: first.handle, offset: 0, on: linkID)
        node.hub.yield(.writeRequests(WriteRequests(id: ATTRequestID(id), central: link.centralID, requests: requests,
                                                    needsResponse: true)))
    }

    /// The application answers writes that need a response.
    mutating func respondToWrite(peripheral key: Int, request: UInt64, with result: Result<Void, ATTError>) {
        guard let (linkID, _, pending) = takePendingRequest(request, of: key) else { return }
        switch result {
        case .failure(let code):
            error(pending.opcode, pending.handle, code, on: linkID)
        case .success:
            answer(pending.opcode == 0x18 ? .executeWriteResponse : .writeResponse, on: linkID)
        }
    }
}
