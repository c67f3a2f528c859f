import BleuATT
import BleuCore
import Foundation

/// The ATT client on the central's side of a link: one request at a time (ATT is
/// sequential), each operation run by BleuATT's ``GATTProcedure`` — the one BleuHCI runs — fed
/// with the server's answers.
extension Engine {
    /// Queues an operation; it starts when those before it finished.
    mutating func enqueue(_ operation: ClientOperation, on linkID: LinkID) {
        links[linkID]?.client.operations.append(operation)
        startNextOperation(on: linkID)
    }

    /// Starts the head operation when the client is idle, skipping operations whose callers
    /// have gone (cancelled before their turn).
    mutating func startNextOperation(on linkID: LinkID) {
        while let link = links[linkID], !link.client.busy, let head = link.client.operations.first {
            if case .exchangeMTU = head.kind {} else if !waiters.isWaiting(head.id) {
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

    /// Starts the head operation's procedure: sends its first request, or completes it when it needs none.
    mutating func sendHeadRequest(on linkID: LinkID, operation: OperationID) {
        guard let link = links[linkID], let head = link.client.operations.first, head.id == operation else { return }
        var procedure = GATTProcedure(procedureKind(of: head.kind, on: link), mtu: link.mtu)
        let step = procedure.start()
        links[linkID]?.client.operations[0].procedure = procedure
        follow(step, on: linkID)
    }

    /// Sends a request for the head operation and arms its transaction timeout.
    mutating func sendRequest(_ request: ATTPDU, on linkID: LinkID) {
        guard links[linkID]?.client.operations.isEmpty == false else { return }
        if isRealistic {
            let deadline = now + configuration.attTransactionTimeout
            links[linkID]?.client.operations[0].deadline = deadline
            armWatchdog(deadline)
        }
        send(LinkPacket(direction: .centralToPeripheral, payload: .att(request)), on: linkID)
    }

    /// Instant timing: the request waits on the application, so its timeout starts now.
    mutating func armInstantDeadline(on linkID: LinkID) {
        guard !isRealistic, links[linkID]?.client.operations.isEmpty == false else { return }
        let deadline = clock.now() + configuration.attTransactionTimeout
        links[linkID]?.client.operations[0].deadline = deadline
        armWatchdog(deadline)
    }

    private func procedureKind(of kind: ClientOperationKind, on link: Link) -> GATTProcedure.Kind {
        switch kind {
        case .exchangeMTU:
            .exchangeMTU(clientMTU: UInt16(centrals[link.central]?.mtu ?? configuration.centralMTU))
        case .discoverServices:
            .discoverPrimaryServices
        case .discoverIncluded(let service, _):
            .discoverIncludedServices(start: service.handle, end: service.endHandle)
        case .discoverCharacteristics(let service, _):
            .discoverCharacteristics(start: service.handle, end: service.endHandle)
        case .discoverDescriptors(let characteristic):
            .discoverDescriptors(valueHandle: characteristic.valueHandle, end: characteristic.endHandle)
        case .read(let handle):
            .read(handle: handle)
        case .write(let handle, let value):
            .write(handle: handle, value: Array(value))
        case .configure(let characteristic, let bits, _):
            .configure(valueHandle: characteristic.valueHandle, end: characteristic.endHandle, descriptor: nil, bits: bits)
        }
    }

    // MARK: Answers

    /// A PDU from the server: a notification or indication, or the answer to the head request.
    mutating func clientReceive(_ pdu: ATTPDU, on linkID: LinkID) {
        switch pdu {
        case .handleValueNotification(let handle, let value):
            return valueReceived(Data(value), handle: handle, indication: false, on: linkID)
        case .handleValueIndication(let handle, let value):
            return valueReceived(Data(value), handle: handle, indication: true, on: linkID)
        default:
            break
        }
        guard let link = links[linkID], link.client.busy, var head = link.client.operations.first,
              var procedure = head.procedure, procedure.outstanding != nil else { return }
        if case .errorResponse(_, _, let code) = pdu,
           let required = AttributeAccess.securityToRetry(after: code, on: link.security),
           configuration.pairing.pairsOnInsufficientSecurity, !head.securityRetried {
            // What CoreBluetooth does: pair (or encrypt with a bond), then send the request again.
            head.securityRetried = true
            links[linkID]?.client.operations[0] = head
            startSecurity(on: linkID, required: required, resumption: .attRequest)
            return
        }
        let step = procedure.receive(pdu)
        links[linkID]?.client.operations[0].procedure = procedure
        follow(step, on: linkID)
    }

    /// Sends the procedure's next request, or ends the head operation with its outcome.
    private mutating func follow(_ step: GATTProcedure.Step, on linkID: LinkID) {
        switch step {
        case .send(let request):
            sendRequest(request, on: linkID)
        case .finished(.failure(let failure)):
            finishHead(on: linkID, .failure(failure.bleuError))
        case .finished(.success(let outcome)):
            guard let link = links[linkID], let head = link.client.operations.first else { return }
            if case .mtu(let mtu) = outcome {
                links[linkID]?.mtu = max(EmulatorConfiguration.minimumMTU, mtu)
                links[linkID]?.client.operations.removeFirst()
                links[linkID]?.client.busy = false
                linkUp(linkID)
                startNextOperation(on: linkID)
                return
            }
            finishHead(on: linkID, .success(result(outcome, of: head.kind, on: link)))
        }
    }

    /// What an operation that completed returns to its caller.
    private mutating func result(_ outcome: GATTProcedure.Outcome, of kind: ClientOperationKind, on link: Link) -> OperationResult {
        switch (kind, outcome) {
        case (.discoverServices(let filter), .services(let found)), (.discoverIncluded(_, let filter), .services(let found)):
            return .services(found.filter { filter?.contains($0.uuid) ?? true }.map {
                RemoteService(peripheral: link.peripheralID, uuid: $0.uuid, isPrimary: $0.isPrimary, handle: $0.handle,
                              endHandle: $0.endHandle)
            })
        case (.discoverCharacteristics(let service, let filter), .characteristics(let found)):
            return .characteristics(found.filter { filter?.contains($0.uuid) ?? true }.map {
                RemoteCharacteristic(peripheral: link.peripheralID, service: service.uuid, uuid: $0.uuid,
                                     properties: $0.properties, handle: $0.declarationHandle, valueHandle: $0.valueHandle,
                                     endHandle: $0.endHandle)
            })
        case (.discoverDescriptors(let characteristic), .descriptors(let found)):
            return .descriptors(found.map {
                RemoteDescriptor(peripheral: link.peripheralID, characteristic: characteristic.uuid,
                                 characteristicValueHandle: characteristic.valueHandle, uuid: $0.uuid, handle: $0.handle)
            })
        case (.read, .value(let value)):
            return .data(Data(value))
        case (.configure(let characteristic, let bits, let sink), .configured):
            return configured(characteristic, bits: bits, sink: sink, on: link.id)
        default:
            return .done
        }
    }

    /// The head operation is done: its caller resumes and the next operation starts.
    mutating func finishHead(on linkID: LinkID, _ outcome: Result<OperationResult, any Error>) {
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
