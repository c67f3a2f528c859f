import BleuATT
import BleuCore
import Foundation

/// A request the application must answer, with what the answer is sent as.
enum PendingRequest {
    case read(handle: UInt16, operation: ATTReadOperation)
    case write(handle: UInt16, operation: ATTWriteOperation)
}

/// The GATT server of every link (both roles) and the peripheral role's services.
extension HCIRadio {
    // MARK: ATT in

    /// An ATT PDU on a link: responses, notifications and indications go to our client's bearer;
    /// requests, commands and confirmations to our server.
    func attReceived(_ bytes: [UInt8], on handle: UInt16) {
        guard var link = links[handle] else { return }
        let opcode = ATTOpcode(rawValue: bytes.first ?? 0)
        switch opcode.method {
        case .response?:
            // One request is outstanding at a time, so the order of responses cannot change.
            let bearer = link.bearer
            Task { await bearer.receive(bytes) }
            return
        case .notification?, .indication?:
            // Handled here, in arrival order, rather than through the bearer.
            switch try? ATTPDU(decoding: bytes) {
            case let .handleValueNotification(valueHandle, value)?:
                valueReceived(valueHandle, value, on: handle)
            case let .multipleHandleValueNotification(entries)?:
                for entry in entries { valueReceived(entry.handle, entry.value, on: handle) }
            case let .handleValueIndication(valueHandle, value)?:
                valueReceived(valueHandle, value, on: handle)
                sendATT(.handleValueConfirmation, on: handle)
            default:
                break  // malformed: dropped
            }
            return
        case .confirmation?:
            indicationConfirmed(on: handle)
            return
        default:
            break
        }
        // A client has one request outstanding at a time (Vol 3 Part F §3.3.2): one that sends
        // another before we answered breaks the protocol; its request is dropped, which also
        // bounds what the application is asked at once.
        if opcode.method == .request, hasPendingRequest(on: handle) {
            logger.notice("dropped \(opcode) on 0x\(hex4(handle)): the client's previous request is not answered yet")
            return
        }
        let before = link.server.clientConfigurations
        let mtuBefore = link.server.mtu
        let action = ATTServer.handle(bytes, database: database, connection: &link.server)
        if link.server.mtu != mtuBefore {
            link.mtu = link.server.mtu
            if link.role == .peripheral {
                peripheralEvents.yield(.mtuChanged(central: link.peer, mtu: link.mtu))
            } else if link.isReady {
                centralEvents.yield(.mtuChanged(link.peer, mtu: link.mtu))
            }
        }
        links[handle] = link
        switch action {
        case .respond(let pdu):
            sendATT(pdu, on: handle)
        case .read(let operation):
            let id = newRequestID()
            pendingRequests[id] = .read(handle: handle, operation: operation)
            peripheralEvents.yield(.readRequest(ReadRequest(id: id, central: link.peer, characteristic: operation.characteristic,
                                                            offset: operation.offset)))
            watch(id)
        case .write(let operation):
            let id = newRequestID()
            if operation.request != nil {
                pendingRequests[id] = .write(handle: handle, operation: operation)
                watch(id)
            }
            let requests = operation.writes.map {
                WriteRequest(central: link.peer, characteristic: $0.characteristic, offset: $0.offset, value: Data($0.value))
            }
            peripheralEvents.yield(.writeRequests(WriteRequests(id: id, central: link.peer, requests: requests,
                                                                needsResponse: operation.request != nil)))
        case let .subscriptionChanged(characteristic, configuration, response):
            if let response { sendATT(response, on: handle) }
            let was = before[characteristic.valueHandle] ?? 0
            if characteristic.service != BluetoothUUID.Service.genericAttribute, (was == 0) != (configuration == 0) {
                peripheralEvents.yield(configuration == 0
                    ? .unsubscribed(central: link.peer, characteristic: characteristic)
                    : .subscribed(central: link.peer, characteristic: characteristic))
            }
            if configuration == 0 { dropQueuedValues(characteristic.valueHandle, on: handle) }
        case .ignore:
            break
        }
    }

    func sendATT(_ pdu: ATTPDU, on handle: UInt16, kind: HCILink.FrameKind = .other) {
        send(L2CAPBFrame(channelID: L2CAPBFrame.attCID, payload: pdu.encoded), on: handle, kind: kind)
    }

    private func hasPendingRequest(on handle: UInt16) -> Bool {
        pendingRequests.values.contains { request in
            switch request {
            case .read(let h, _), .write(let h, _): h == handle
            }
        }
    }

    private func newRequestID() -> ATTRequestID {
        nextRequestID += 1
        return ATTRequestID(nextRequestID)
    }

    /// Answers a request the application leaves unanswered, so the central does not wait out
    /// its transaction timeout.
    private func watch(_ id: ATTRequestID) {
        let timeout = configuration.requestAnswerTimeout
        Task { [weak self, clock] in
            try? await clock.sleep(for: timeout)
            await self?.answer(id, error: .unlikelyError)
        }
    }

    // MARK: Answers from the application

    func respond(to request: ReadRequest, with result: Result<Data, ATTError>) {
        guard case let .read(handle, operation)? = pendingRequests.removeValue(forKey: request.id),
              let link = links[handle] else { return }
        switch result {
        case .success(let value): sendATT(operation.response(value: Array(value), mtu: link.mtu), on: handle)
        case .failure(let error): sendATT(operation.response(error: error), on: handle)
        }
    }

    func respond(to requests: WriteRequests, with result: Result<Void, ATTError>) {
        guard case let .write(handle, operation)? = pendingRequests.removeValue(forKey: requests.id) else { return }
        switch result {
        case .success: if let pdu = operation.successResponse { sendATT(pdu, on: handle) }
        case .failure(let error): if let pdu = operation.response(error: error) { sendATT(pdu, on: handle) }
        }
    }

    private func answer(_ id: ATTRequestID, error: ATTError) {
        switch pendingRequests.removeValue(forKey: id) {
        case let .read(handle, operation)?: sendATT(operation.response(error: error), on: handle)
        case let .write(handle, operation)?: if let pdu = operation.response(error: error) { sendATT(pdu, on: handle) }
        case nil: break
        }
    }

    func serverLinkClosed(_ link: HCILink, error: BleuError) {
        pendingRequests = pendingRequests.filter { _, request in
            switch request {
            case .read(let handle, _), .write(let handle, _): handle != link.handle
            }
        }
        let queued = link.outbox.count + link.notificationsInFlight + (link.indicationInFlight ? 1 : 0)
        if queued > 0 { valuesDone(queued) }
    }

    /// The application's characteristic whose value is at `valueHandle`, if any.
    func applicationCharacteristic(_ valueHandle: UInt16) -> PublishedCharacteristic? {
        guard let characteristic = database.attribute(valueHandle)?.characteristic,
              characteristic.service != BluetoothUUID.Service.genericAttribute else { return nil }
        return characteristic
    }

    // MARK: Services

    func add(_ definition: ServiceDefinition) throws -> PublishedService {
        try requirePoweredOn()
        let service = try database.add(definition)
        servicesChanged(service.handle, service.endHandle)
        return service
    }

    func remove(_ service: PublishedService) throws {
        try requirePoweredOn()
        try database.remove(service)
        servicesChanged(service.handle, service.endHandle)
    }

    func removeAllServices() {
        let services = database.services.map(\.published).filter {
            $0.uuid != BluetoothUUID.Service.genericAccess && $0.uuid != BluetoothUUID.Service.genericAttribute
        }
        for service in services { try? database.remove(service) }
        if let first = services.first, let last = services.last { servicesChanged(first.handle, last.endHandle) }
    }

    /// Tells subscribed clients that handles changed (Service Changed indication).
    private func servicesChanged(_ start: UInt16, _ end: UInt16) {
        let handle = database.serviceChangedHandle
        var range: [UInt8] = []
        range.appendLE(start)
        range.appendLE(end)
        for link in links.values where link.server.isSubscribed(handle, indications: true) {
            enqueue(HCILink.OutgoingValue(handle: handle, value: range, indication: true), on: link.handle)
        }
    }

    // MARK: Notifications and indications

    /// Sends a value to subscribed clients; `false` when the queue is full (a ready event
    /// follows). Values longer than a client's MTU − 3 are not sent to that client.
    func updateValue(_ value: Data, for characteristic: PublishedCharacteristic, centrals: [UUID]?) -> Bool {
        guard state == .poweredOn, database.attribute(characteristic.valueHandle)?.characteristic?.uuid == characteristic.uuid
        else { return false }
        let targets = links.values.filter { link in
            guard link.server.isSubscribed(characteristic.valueHandle, indications: false)
                    || link.server.isSubscribed(characteristic.valueHandle, indications: true) else { return false }
            if let centrals, !centrals.contains(link.peer) { return false }
            return value.count <= link.mtu - 3
        }
        guard !targets.isEmpty else { return true }
        guard queuedValues < configuration.notificationQueueDepth else {
            readyToUpdatePending = true
            return false
        }
        for link in targets {
            let notify = link.server.isSubscribed(characteristic.valueHandle, indications: false)
            enqueue(HCILink.OutgoingValue(handle: characteristic.valueHandle, value: Array(value), indication: !notify),
                    on: link.handle)
        }
        return true
    }

    func maximumUpdateValueLength(_ central: UUID) -> Int? {
        links.values.first { $0.peer == central }.map { $0.mtu - 3 }
    }

    private func enqueue(_ value: HCILink.OutgoingValue, on handle: UInt16) {
        links[handle]?.outbox.append(value)
        queuedValues += 1
        pumpOutbox(handle)
    }

    /// Moves queued values onto the link: notifications while the link's share of the queue
    /// allows, indications one at a time (each waits for its confirmation).
    func pumpOutbox(_ handle: UInt16) {
        while var link = links[handle], let head = link.outbox.first {
            if head.indication {
                guard !link.indicationInFlight else { return }
                link.outbox.removeFirst()
                link.indicationInFlight = true
                let timeout = configuration.attTimeout
                link.indicationTimer = Task { [weak self, clock] in
                    do { try await clock.sleep(for: timeout) } catch { return }
                    await self?.indicationTimedOut(handle)
                }
                links[handle] = link
                sendATT(.handleValueIndication(handle: head.handle, value: head.value), on: handle)
            } else {
                guard link.notificationsInFlight < configuration.notificationQueueDepth else { return }
                link.outbox.removeFirst()
                link.notificationsInFlight += 1
                links[handle] = link
                sendATT(.handleValueNotification(handle: head.handle, value: head.value), on: handle, kind: .notification)
            }
        }
    }

    private func indicationConfirmed(on handle: UInt16) {
        guard var link = links[handle], link.indicationInFlight else { return }
        link.indicationInFlight = false
        link.indicationTimer?.cancel()
        link.indicationTimer = nil
        links[handle] = link
        valuesDone(1)
        pumpOutbox(handle)
    }

    /// No confirmation within the transaction timeout: the bearer is dead (Vol 3 Part F §3.3.3).
    private func indicationTimedOut(_ handle: UInt16) {
        guard links[handle]?.indicationInFlight == true else { return }
        disconnect(handle, reason: 0x13)
    }

    private func dropQueuedValues(_ valueHandle: UInt16, on handle: UInt16) {
        guard var link = links[handle] else { return }
        let before = link.outbox.count
        link.outbox.removeAll { $0.handle == valueHandle }
        links[handle] = link
        if before > link.outbox.count { valuesDone(before - link.outbox.count) }
    }

    /// `count` queued values left the queue; when it has room again after a refusal, say so.
    func valuesDone(_ count: Int) {
        queuedValues = max(0, queuedValues - count)
        if readyToUpdatePending, queuedValues < configuration.notificationQueueDepth {
            readyToUpdatePending = false
            peripheralEvents.yield(.readyToUpdateSubscribers)
        }
    }

    // MARK: Advertising

    func startAdvertising(_ data: AdvertisingData, scanResponse: AdvertisingData?) async throws {
        try requirePoweredOn()
        let bytes: Data, response: Data
        do {
            bytes = try data.encoded()
            response = try scanResponse?.encoded() ?? Data()
        } catch {
            throw BleuError.invalidData("\(error)")
        }
        // Parameters cannot change while advertising (ours, or a previous host's on a controller
        // that keeps its state across Reset).
        await attempt(advertisingEnable(false), completes: true, "stopping advertising")
        let interval = configuration.advertisingInterval
        if usesExtendedCommands {
            // Set 0, legacy ADV_IND PDUs (event properties: connectable, scannable, legacy).
            var random: [UInt8] = [0]
            random += address.littleEndianBytes
            if ownAddressType == .randomDevice { _ = try await host.execute(.raw(.leSetAdvertisingSetRandomAddress, random)) }
            _ = try await host.execute(.leSetExtendedAdvertisingParameters(LEExtendedAdvertisingParameters(
                handle: 0, eventProperties: [.connectable, .scannable, .legacy], intervalMin: interval, intervalMax: interval,
                ownAddressType: ownAddressType)))
            _ = try await host.execute(.leSetExtendedAdvertisingData(LEExtendedAdvertisingData(data: Array(bytes))))
            _ = try await host.execute(.leSetExtendedScanResponseData(LEExtendedAdvertisingData(data: Array(response))))
        } else {
            _ = try await host.execute(.leSetAdvertisingParameters(LEAdvertisingParameters(
                intervalMin: interval, intervalMax: interval, advertisingType: .connectableScannableUndirected,
                ownAddressType: ownAddressType)))
            _ = try await host.execute(.leSetAdvertisingData(Array(bytes)))
            _ = try await host.execute(.leSetScanResponseData(Array(response)))
        }
        _ = try await host.execute(advertisingEnable(true))
        advertisement = (data, scanResponse)
    }

    func stopAdvertising() async {
        guard advertisement != nil else { return }
        advertisement = nil
        await attempt(advertisingEnable(false), completes: true, "stopping advertising")
    }

    /// LE Set (Extended) Advertising Enable: set 0, or every set when disabling.
    func advertisingEnable(_ on: Bool) -> HCICommand {
        guard usesExtendedCommands else { return .leSetAdvertisingEnable(on) }
        return .leSetExtendedAdvertisingEnable(enable: on, sets: on ? [LEAdvertisingSetEnable(handle: 0)] : [])
    }

    var isAdvertising: Bool { advertisement != nil }
}
