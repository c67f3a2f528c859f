import BleuATT
import BleuCore
import Foundation

/// The ATT server on the peripheral's side of a link: BleuATT's ``ATTServer`` — the one
/// BleuHCI runs — decides every answer from the database, the access rules and the client's
/// state; the engine carries its answers over the link, hands reads and writes of
/// application values to the application, and injects the configured ATT faults.
extension Engine {
    /// An ATT PDU's bytes from an HCI host's client: decoded, or answered as the shared server
    /// answers bytes that do not decode (Invalid PDU for a request; nothing for a command).
    mutating func serverReceive(bytes: [UInt8], on linkID: LinkID) {
        do {
            serverReceive(try ATTPDU(decoding: bytes), on: linkID)
        } catch {
            guard let link = links[linkID], let node = peripherals[link.peripheral] else { return }
            var connection = link.server.connection
            record(.fault, link: linkID, "an ATT PDU from an HCI host that does not decode (\(error))")
            if case .respond(let response) = ATTServer.handle(bytes, database: node.database, connection: &connection) {
                answer(response, on: linkID)
            }
        }
    }

    mutating func serverReceive(_ pdu: ATTPDU, on linkID: LinkID) {
        guard let link = links[linkID], let node = peripherals[link.peripheral] else { return }
        if case .handleValueConfirmation = pdu { return indicationConfirmed(on: linkID) }
        var connection = link.server.connection
        connection.security = link.linkSecurity
        connection.setMTU(link.mtu)
        let before = connection.clientConfigurations
        let action = ATTServer.handle(pdu, database: node.database, connection: &connection)
        links[linkID]?.server.connection = connection
        switch action {
        case .respond(let response):
            if case .exchangeMTUResponse = response {
                links[linkID]?.mtu = connection.mtu
                node.hub.yield(.mtuChanged(central: link.centralID, mtu: connection.mtu))
            }
            answer(response, on: linkID)
        case .read(let operation):
            if let code = injectedError(on: linkID) { return answer(operation.response(error: code), on: linkID) }
            let id = ask(.read(operation), on: linkID)
            node.hub.yield(.readRequest(ReadRequest(id: ATTRequestID(id), central: link.centralID,
                                                    characteristic: operation.characteristic, offset: operation.offset)))
        case .write(let operation):
            let requests = operation.writes.map {
                WriteRequest(central: link.centralID, characteristic: $0.characteristic, offset: $0.offset, value: Data($0.value))
            }
            guard operation.request != nil else { return writeCommand(requests, on: linkID) }
            if let code = injectedError(on: linkID), let refusal = operation.response(error: code) {
                return answer(refusal, on: linkID)
            }
            let id = ask(.write(operation), on: linkID)
            node.hub.yield(.writeRequests(WriteRequests(id: ATTRequestID(id), central: link.centralID, requests: requests,
                                                        needsResponse: true)))
        case .subscriptionChanged(let characteristic, let bits, let response):
            subscriptionChanged(characteristic, from: before[characteristic.valueHandle] ?? 0, to: bits, on: linkID)
            if let response { answer(response, on: linkID) }
        case .ignore:
            // A command the server drops still frees its write-without-response slot.
            if pdu.opcode == .writeCommand { writeSlotFreed(on: linkID) }
        }
    }

    private mutating func answer(_ pdu: ATTPDU, on linkID: LinkID) {
        send(LinkPacket(direction: .peripheralToCentral, payload: .att(pdu)), on: linkID)
    }

    /// Draws an injected ATT error for a read or write, if faults are on.
    private mutating func injectedError(on linkID: LinkID) -> ATTError? {
        guard chance.fault(configuration.faults.attError) else { return nil }
        record(.fault, link: linkID, "ATT error \(configuration.faults.injectedError.rawValue) injected (seed \(seed))")
        return configuration.faults.injectedError
    }

    /// Hands a request to the application and remembers it until it answers.
    private mutating func ask(_ operation: PendingServerRequest.Operation, on linkID: LinkID) -> UInt64 {
        let id = numbers.nextRequest()
        guard let link = links[linkID] else { return id }
        links[linkID]?.server.pending = PendingServerRequest(id: id, operation: operation)
        peripherals[link.peripheral]?.requests[id] = linkID
        armInstantDeadline(on: linkID)
        return id
    }

    /// The application answers a read. Bytes past what one response carries go in later blob
    /// reads; the value is capped at 512 bytes.
    mutating func respondToRead(peripheral key: PeripheralKey, request: UInt64, with result: Result<Data, ATTError>) {
        guard let (linkID, link, pending) = takePendingRequest(request, of: key),
              case .read(let operation) = pending.operation else { return }
        switch result {
        case .failure(let code): answer(operation.response(error: code), on: linkID)
        case .success(let value): answer(operation.response(value: Array(value), mtu: link.mtu), on: linkID)
        }
    }

    /// The application answers writes that need a response.
    mutating func respondToWrite(peripheral key: PeripheralKey, request: UInt64, with result: Result<Void, ATTError>) {
        guard let (linkID, _, pending) = takePendingRequest(request, of: key),
              case .write(let operation) = pending.operation else { return }
        let response = switch result {
        case .failure(let code): operation.response(error: code)
        case .success: operation.successResponse
        }
        if let response { answer(response, on: linkID) }
    }

    /// The request the application answers, if it still waits for an answer; it no longer does.
    private mutating func takePendingRequest(_ request: UInt64, of key: PeripheralKey) -> (LinkID, Link, PendingServerRequest)? {
        guard let linkID = peripherals[key]?.requests.removeValue(forKey: request), let link = links[linkID],
              let pending = link.server.pending, pending.id == request else { return nil }
        links[linkID]?.server.pending = nil
        return (linkID, link, pending)
    }

    /// A central wrote a Client Characteristic Configuration descriptor: the peripheral's
    /// application learns when it subscribes or unsubscribes.
    private mutating func subscriptionChanged(_ characteristic: PublishedCharacteristic, from old: UInt16, to bits: UInt16,
                                              on linkID: LinkID) {
        guard let link = links[linkID], let node = peripherals[link.peripheral] else { return }
        if old == 0, bits != 0 {
            node.hub.yield(.subscribed(central: link.centralID, characteristic: characteristic))
        } else if old != 0, bits == 0 {
            dropQueuedValues(handle: characteristic.valueHandle, on: linkID)
            node.hub.yield(.unsubscribed(central: link.centralID, characteristic: characteristic))
        }
    }

    /// A write command the server accepted: no answer ever; its write-without-response slot
    /// frees once the application has taken it.
    private mutating func writeCommand(_ requests: [WriteRequest], on linkID: LinkID) {
        guard let link = links[linkID], let node = peripherals[link.peripheral] else { return }
        let id = numbers.nextRequest()
        let (held, completed) = node.hub.yield(.writeRequests(WriteRequests(id: ATTRequestID(id), central: link.centralID,
                                                                            requests: requests, needsResponse: false)),
                                               receipt: linkID)
        if !held { writeSlotFreed(on: linkID) }
        for done in completed { writeSlotFreed(on: done) }
    }
}
