import BleuATT
import BleuCore
import Foundation

/// ATT on each link, and the peripheral role: our GATT server's requests and the values it
/// pushes, its services, advertising.
extension HCIRadio {
    // MARK: ATT in

    /// An ATT PDU on a link: responses go to our client's bearer; notifications and indications
    /// to our client's subscriptions; requests, commands and confirmations to our server.
    func attReceived(_ bytes: [UInt8], on handle: ConnectionHandle) {
        guard let link = connections[handle] else { return }
        switch ATTOpcode(rawValue: bytes.first ?? 0).method {
        case .response?:
            // Resumes the request waiting for it, here and now: no task, no hop.
            _ = link.bearer.take(bytes)
            return
        case .notification?, .indication?:
            // Handled here, in arrival order, rather than through the bearer.
            switch try? ATTPDU(decoding: bytes) {
            case let .handleValueNotification(valueHandle, value)?:
                valueReceived(valueHandle, value, on: link)
            case let .multipleHandleValueNotification(entries)?:
                for entry in entries { valueReceived(entry.handle, entry.value, on: link) }
            case let .handleValueIndication(valueHandle, value)?:
                valueReceived(valueHandle, value, on: link)
                pipeline.send(ATTPDU.handleValueConfirmation, on: handle)
            default:
                // Malformed: no subscriber can be told which value it was. Counted and logged.
                client.malformedNotifications += 1
                logger.notice("dropped a malformed notification or indication on \(handle): \(bytes.count) bytes")
            }
            return
        case .confirmation?:
            if let ready = server.updates.confirmed(on: handle) {
                if ready { events.peripheral.yield(.readyToUpdateSubscribers) }
                pumpUpdates(handle)
            }
            return
        default:
            break
        }
        let (step, mtu) = server.receive(bytes, on: handle)
        if let mtu {
            connections.setMTU(mtu, on: handle)
            if link.role == .peripheral {
                events.peripheral.yield(.mtuChanged(central: link.peer, mtu: mtu))
            } else if link.isReady {
                events.central.yield(.mtuChanged(link.peer, mtu: mtu))
            }
        }
        switch step {
        case .respond(let pdu):
            pipeline.send(pdu, on: handle)
        case let .read(id, operation):
            events.peripheral.yield(.readRequest(ReadRequest(id: id, central: link.peer, characteristic: operation.characteristic,
                                                             offset: operation.offset)))
            watch(id)
        case let .write(id, operation):
            if operation.request != nil { watch(id) }
            let requests = operation.writes.map {
                WriteRequest(central: link.peer, characteristic: $0.characteristic, offset: $0.offset, value: Data($0.value))
            }
            events.peripheral.yield(.writeRequests(WriteRequests(id: id, central: link.peer, requests: requests,
                                                                 needsResponse: operation.request != nil)))
        case let .subscriptionChanged(characteristic, configuration, response, toggled):
            if let response { pipeline.send(response, on: handle) }
            if toggled {
                events.peripheral.yield(configuration == 0
                    ? .unsubscribed(central: link.peer, characteristic: characteristic)
                    : .subscribed(central: link.peer, characteristic: characteristic))
            }
            if configuration == 0, server.updates.drop(characteristic.valueHandle, on: handle) {
                events.peripheral.yield(.readyToUpdateSubscribers)
            }
        case .droppedRequest(let opcode):
            logger.notice("dropped \(opcode) on \(handle): the client's previous request is not answered yet")
        case .ignore:
            break
        }
    }

    /// Answers a request the application leaves unanswered, so the central does not wait out
    /// its transaction timeout.
    private func watch(_ id: ATTRequestID) {
        spawn(after: configuration.requestAnswerTimeout) { radio in radio.answerUnanswered(id) }
    }

    private func answerUnanswered(_ id: ATTRequestID) {
        if let (handle, pdu) = server.answerUnanswered(id, with: .unlikelyError) { pipeline.send(pdu, on: handle) }
    }

    // MARK: Answers from the application

    func respond(to request: ReadRequest, with result: Result<Data, ATTError>) {
        if let (handle, pdu) = server.answerRead(request.id, with: result) { pipeline.send(pdu, on: handle) }
    }

    func respond(to requests: WriteRequests, with result: Result<Void, ATTError>) {
        if let (handle, pdu) = server.answerWrite(requests.id, with: result) { pipeline.send(pdu, on: handle) }
    }

    // MARK: Services

    func add(_ definition: ServiceDefinition) throws -> PublishedService {
        try requirePoweredOn()
        let service = try server.add(definition)
        servicesChanged(service.handle, service.endHandle)
        return service
    }

    func remove(_ service: PublishedService) throws {
        try requirePoweredOn()
        try server.remove(service)
        servicesChanged(service.handle, service.endHandle)
    }

    func removeAllServices() {
        if let (start, end) = server.removeAllServices() { servicesChanged(start, end) }
    }

    /// Tells subscribed clients that handles changed (Service Changed indication).
    private func servicesChanged(_ start: UInt16, _ end: UInt16) {
        for handle in server.indicateServicesChanged(start, end) { pumpUpdates(handle) }
    }

    // MARK: Notifications and indications

    /// Sends a value to subscribed clients; `false` when the queue is full (a ready event
    /// follows). Values longer than a client's MTU − 3 are not sent to that client.
    func updateValue(_ value: Data, for characteristic: PublishedCharacteristic, centrals: [UUID]?) -> Bool {
        guard events.state == .poweredOn, server.holds(characteristic) else { return false }
        let targets = server.subscribers(of: characteristic, centrals: centrals, length: value.count)
        guard !targets.isEmpty else { return true }
        guard server.updates.hasRoom() else { return false }
        for target in targets {
            server.updates.enqueue(.init(handle: characteristic.valueHandle, value: Array(value), indication: target.indication),
                                   on: target.handle)
            pumpUpdates(target.handle)
        }
        return true
    }

    func maximumUpdateValueLength(_ central: UUID) -> Int? {
        connections.anyLink(to: central).map { $0.mtu - 3 }
    }

    /// Moves queued values onto the link while its share of the queue allows; each indication
    /// gets a timer: no confirmation within the transaction timeout means the bearer is dead
    /// (Vol 3 Part F §3.3.3), and the link is dropped.
    func pumpUpdates(_ handle: ConnectionHandle) {
        while let next = server.updates.next(on: handle) {
            switch next {
            case .notification(let pdu):
                pipeline.send(pdu, on: handle, kind: .notification)
            case .indication(let pdu):
                let timeout = configuration.attTimeout
                server.updates.indicationSent(handle, timer: Task { [weak self, clock] in
                    do { try await clock.sleep(for: timeout) } catch { return }
                    await self?.indicationTimedOut(handle)
                })
                pipeline.send(pdu, on: handle)
            }
        }
    }

    private func indicationTimedOut(_ handle: ConnectionHandle) {
        guard server.updates.isIndicationInFlight(on: handle) else { return }
        disconnect(handle, reason: 0x13)
    }

    // MARK: Advertising

    func startAdvertising(_ data: AdvertisingData, scanResponse: AdvertisingData?) async throws {
        try requirePoweredOn()
        let extended = setup.usesExtendedCommands
        let commands = try RadioAdvertiser.setUp(data, scanResponse: scanResponse, interval: configuration.advertisingInterval,
                                                 address: setup.address, ownAddressType: setup.ownAddressType,
                                                 extended: extended)
        // Parameters cannot change while advertising (ours, or a previous host's on a controller
        // that keeps its state across Reset).
        await pipeline.attempt(RadioAdvertiser.enable(false, extended: extended), completes: true, "stopping advertising")
        for command in commands { _ = try await host.execute(command) }
        _ = try await host.execute(RadioAdvertiser.enable(true, extended: extended))
        advertiser.started()
    }

    func stopAdvertising() async {
        guard advertiser.stopped() else { return }
        await pipeline.attempt(RadioAdvertiser.enable(false, extended: setup.usesExtendedCommands), completes: true,
                               "stopping advertising")
    }

    var isAdvertising: Bool { advertiser.isAdvertising }
}
