import BleuCore
import Foundation

/// The ATT client on the central's side of a link: one request at a time (ATT is
/// sequential), each operation a small state machine fed with the server's answers.
extension Engine {
    /// Queues an operation; it starts when those before it finished.
    mutating func enqueue(_ operation: ClientOperation, on linkID: Int) {
        links[linkID]?.client.operations.append(operation)
        startNextOperation(on: linkID)
    }

    /// Starts the head operation when the client is idle, skipping operations whose callers
    /// have gone (cancelled before their turn).
    mutating func startNextOperation(on linkID: Int) {
        while let link = links[linkID], !link.client.busy, let head = link.client.operations.first {
            if case .exchangeMTU = head.kind {} else if waiters[head.id] == nil {
                links[linkID]?.client.operations.removeFirst()
                continue
            }
            links[linkID]?.client.busy = true
            if isRealistic, configuration.discoveryLatency > .zero, head.kind.isDiscovery {
                schedule(.sendRequest(link: linkID, operation: head.id), at: now + configuration.discoveryLatency)
            } else {
                sendHeadRequest(on: linkID, operation: head.id)
            }
            return
        }
    }

    /// Sends the head operation's first request, or completes it when it needs none.
    mutating func sendHeadRequest(on linkID: Int, operation: OperationID) {
        guard let link = links[linkID], let head = link.client.operations.first, head.id == operation else { return }
        guard let request = firstRequest(for: head.kind, on: link) else {
            finishHead(on: linkID, .success(result(of: head.kind, on: link)))
            return
        }
        sendRequest(request, on: linkID)
    }

    /// Sends a request for the head operation and arms its transaction timeout.
    mutating func sendRequest(_ request: ATTPDU, on linkID: Int) {
        guard links[linkID]?.client.operations.isEmpty == false else { return }
        links[linkID]?.client.operations[0].request = request
        if isRealistic {
            let deadline = now + configuration.attTransactionTimeout
            links[linkID]?.client.operations[0].deadline = deadline
            armWatchdog(deadline)
        }
        send(LinkPacket(direction: .centralToPeripheral, payload: .att(request)), on: linkID)
    }

    /// Instant timing: the request waits on the application, so its timeout starts now.
    mutating func armInstantDeadline(on linkID: Int) {
        guard !isRealistic, links[linkID]?.client.operations.isEmpty == false else { return }
        let deadline = clock.now() + configuration.attTransactionTimeout
        links[linkID]?.client.operations[0].deadline = deadline
        armWatchdog(deadline)
    }

    private func firstRequest(for kind: ClientOperationKind, on link: Link) -> ATTPDU? {
        switch kind {
        case .exchangeMTU:
            return .exchangeMTURequest(UInt16(centrals[link.central]?.mtu ?? configuration.centralMTU))
        case .discoverServices:
            return .readByGroupTypeRequest(start: 0x0001, end: 0xFFFF)
        case .discoverIncluded(let service, _, _):
            return .readByTypeRequest(start: service.handle, end: service.endHandle, type: BluetoothUUID(0x2802))
        case .discoverCharacteristics(let service, _, _):
            return .readByTypeRequest(start: service.handle, end: service.endHandle, type: BluetoothUUID(0x2803))
        case .discoverDescriptors(let characteristic, _):
            guard characteristic.valueHandle < characteristic.endHandle else { return nil }
            return .findInformationRequest(start: characteristic.valueHandle + 1, end: characteristic.endHandle)
        case .read(let handle, _):
            return .readRequest(handle: handle)
        case .write(let handle, let value, _):
            if value.count <= link.mtu - 3 { return .writeRequest(handle: handle, value) }
            return .prepareWriteRequest(handle: handle, offset: 0, Data(value.prefix(link.mtu - 5)))
        case .configure(let characteristic, let handle, let bits):
            if handle == 0 {
                return .findInformationRequest(start: characteristic.valueHandle + 1, end: max(characteristic.endHandle, characteristic.valueHandle + 1))
            }
            return .writeRequest(handle: handle, Data([UInt8(bits & 0xFF), UInt8(bits >> 8)]))
        }
    }

    /// What an operation that completed returns.
    private func result(of kind: ClientOperationKind, on link: Link) -> OperationResult {
        switch kind {
        case .exchangeMTU, .write, .configure: .done
        case .discoverServices(let filter, let found):
            .services(found.filter { filter?.contains($0.uuid) ?? true })
        case .discoverIncluded(_, let filter, let found):
            .services(found.filter { filter?.contains($0.uuid) ?? true })
        case .discoverCharacteristics(let service, let filter, let found):
            .characteristics(Self.closingRanges(found, serviceEnd: service.endHandle).filter { filter?.contains($0.uuid) ?? true })
        case .discoverDescriptors(_, let found):
            .descriptors(found)
        case .read(_, let value):
            .data(value)
        }
    }

    /// A characteristic ends where the next declaration starts, the last one where its service ends.
    private static func closingRanges(_ found: [RemoteCharacteristic], serviceEnd: UInt16) -> [RemoteCharacteristic] {
        var result = found
        for index in result.indices {
            result[index].endHandle = index + 1 < result.count ? result[index + 1].handle - 1 : serviceEnd
        }
        return result
    }

    // MARK: Answers

    /// A PDU from the server: a notification or indication, or the answer to the head request.
    mutating func clientReceive(_ pdu: ATTPDU, on linkID: Int) {
        switch pdu {
        case .notification(let handle, let value):
            valueReceived(value, handle: handle, indication: false, on: linkID)
            return
        case .indication(let handle, let value):
            valueReceived(value, handle: handle, indication: true, on: linkID)
            return
        default:
            break
        }
        guard let link = links[linkID], link.client.busy, var head = link.client.operations.first, head.request != nil else { return }
        if case .error(_, _, let code) = pdu {
            if (code == .insufficientAuthentication || code == .insufficientEncryption),
               configuration.pairing.pairsOnInsufficientSecurity, !head.securityRetried {
                head.securityRetried = true
                links[linkID]?.client.operations[0] = head
                startSecurity(on: linkID, required: code == .insufficientAuthentication ? .authenticated : .encrypted,
                              resumption: .attRequest)
                return
            }
            errorReceived(code, operation: head, on: linkID)
            return
        }
        step(head, with: pdu, on: linkID)
    }

    private mutating func errorReceived(_ code: ATTError, operation head: ClientOperation, on linkID: Int) {
        guard let link = links[linkID] else { return }
        switch head.kind {
        case .discoverServices, .discoverIncluded, .discoverCharacteristics, .discoverDescriptors:
            if code == .attributeNotFound {
                finishHead(on: linkID, .success(result(of: head.kind, on: link)))
                return
            }
        case .read(_, let value):
            if case .readBlobRequest? = head.request, code == .attributeNotLong || code == .invalidOffset {
                finishHead(on: linkID, .success(.data(value)))
                return
            }
        case .write:
            if case .prepareWriteRequest? = head.request {
                links[linkID]?.client.operations[0].cancelledWith = code
                sendRequest(.executeWriteRequest(commit: false), on: linkID)
                return
            }
        case .configure(_, let handle, _) where handle == 0:
            if code == .attributeNotFound {
                finishHead(on: linkID, .failure(BleuError.descriptorNotFound(BluetoothUUID.Descriptor.clientCharacteristicConfiguration)))
                return
            }
        default:
            break
        }
        finishHead(on: linkID, .failure(BleuError.att(code)))
    }

    private mutating func step(_ head: ClientOperation, with pdu: ATTPDU, on linkID: Int) {
        guard let link = links[linkID] else { return }
        var kind = head.kind
        var next: ATTPDU?
        switch (kind, pdu) {
        case (.exchangeMTU, .exchangeMTUResponse(let serverMTU)):
            let clientMTU = centrals[link.central]?.mtu ?? configuration.centralMTU
            links[linkID]?.mtu = max(EmulatorConfiguration.minimumMTU, min(clientMTU, Int(serverMTU)))
            links[linkID]?.client.operations.removeFirst()
            links[linkID]?.client.busy = false
            linkUp(linkID)
            startNextOperation(on: linkID)
            return
        case (.discoverServices(let filter, var found), .readByGroupTypeResponse(let entries)):
            found += entries.map { RemoteService(peripheral: link.peripheralID, uuid: $0.uuid, isPrimary: true,
                                                 handle: $0.handle, endHandle: $0.endHandle) }
            kind = .discoverServices(filter: filter, found: found)
            if let last = entries.last?.endHandle, last < 0xFFFF { next = .readByGroupTypeRequest(start: last + 1, end: 0xFFFF) }
        case (.discoverIncluded(let service, let filter, var found), .includeDeclarations(let entries)):
            found += entries.map { RemoteService(peripheral: link.peripheralID, uuid: $0.service.uuid, isPrimary: $0.isPrimary,
                                                 handle: $0.service.handle, endHandle: $0.service.endHandle) }
            kind = .discoverIncluded(service: service, filter: filter, found: found)
            if let last = entries.last?.handle, last < service.endHandle {
                next = .readByTypeRequest(start: last + 1, end: service.endHandle, type: BluetoothUUID(0x2802))
            }
        case (.discoverCharacteristics(let service, let filter, var found), .characteristicDeclarations(let entries)):
            found += entries.map { RemoteCharacteristic(peripheral: link.peripheralID, service: service.uuid, uuid: $0.uuid,
                                                        properties: $0.properties, handle: $0.handle,
                                                        valueHandle: $0.valueHandle, endHandle: service.endHandle) }
            kind = .discoverCharacteristics(service: service, filter: filter, found: found)
            if let last = entries.last?.handle, last < service.endHandle {
                next = .readByTypeRequest(start: last + 1, end: service.endHandle, type: BluetoothUUID(0x2803))
            }
        case (.discoverDescriptors(let characteristic, var found), .findInformationResponse(let entries)):
            found += entries.map { RemoteDescriptor(peripheral: link.peripheralID, characteristic: characteristic.uuid,
                                                    characteristicValueHandle: characteristic.valueHandle,
                                                    uuid: $0.uuid, handle: $0.handle) }
            kind = .discoverDescriptors(characteristic: characteristic, found: found)
            if let last = entries.last?.handle, last < characteristic.endHandle {
                next = .findInformationRequest(start: last + 1, end: characteristic.endHandle)
            }
        case (.read(let handle, var value), .readResponse(let data)), (.read(let handle, var value), .readBlobResponse(let data)):
            value += data
            kind = .read(handle: handle, value: value)
            if data.count == link.mtu - 1, value.count < AttributeDatabase.maximumValueLength {
                next = .readBlobRequest(handle: handle, offset: UInt16(value.count))
            }
        case (.write, .writeResponse):
            break
        case (.write(let handle, let value, let sent), .prepareWriteResponse(_, _, let part)):
            let total = sent + part.count
            kind = .write(handle: handle, value: value, sent: total)
            if total < value.count {
                next = .prepareWriteRequest(handle: handle, offset: UInt16(truncatingIfNeeded: total),
                                            Data(value.dropFirst(total).prefix(link.mtu - 5)))
            } else {
                next = .executeWriteRequest(commit: true)
            }
        case (.write, .executeWriteResponse):
            if let error = head.cancelledWith {
                finishHead(on: linkID, .failure(BleuError.att(error)))
                return
            }
        case (.configure(let characteristic, _, let bits), .findInformationResponse(let entries)):
            guard let cccd = entries.first(where: { $0.uuid == BluetoothUUID.Descriptor.clientCharacteristicConfiguration }) else {
                if let last = entries.last?.handle, last < characteristic.endHandle {
                    next = .findInformationRequest(start: last + 1, end: characteristic.endHandle)
                    break
                }
                finishHead(on: linkID, .failure(BleuError.descriptorNotFound(BluetoothUUID.Descriptor.clientCharacteristicConfiguration)))
                return
            }
            kind = .configure(characteristic: characteristic, handle: cccd.handle, bits: bits)
            next = .writeRequest(handle: cccd.handle, Data([UInt8(bits & 0xFF), UInt8(bits >> 8)]))
        case (.configure(let characteristic, _, let bits), .writeResponse):
            finishHead(on: linkID, .success(configured(characteristic, bits: bits, on: linkID)))
            return
        default:
            finishHead(on: linkID, .failure(BleuError.invalidData("unexpected \(pdu.name) answering \(head.request?.name ?? "nothing")")))
            return
        }
        links[linkID]?.client.operations[0].kind = kind
        if let next {
            sendRequest(next, on: linkID)
        } else {
            finishHead(on: linkID, .success(result(of: kind, on: links[linkID] ?? link)))
        }
    }

    /// The head operation is done: its caller resumes and the next operation starts.
    mutating func finishHead(on linkID: Int, _ outcome: Result<OperationResult, any Error>) {
        guard let head = links[linkID]?.client.operations.popFirst() else { return }
        links[linkID]?.client.busy = false
        complete(head.id, outcome)
        startNextOperation(on: linkID)
    }
}

extension ClientOperationKind {
    var isDiscovery: Bool {
        switch self {
        case .discoverServices, .discoverIncluded, .discoverCharacteristics, .discoverDescriptors: true
        default: false
        }
    }
}
