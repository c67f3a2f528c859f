import BleuATT
import BleuCore
import Foundation

/// The GATT client of central links: discovery, reads, writes, subscriptions.
extension HCIRadio {
    // MARK: Discovery

    func discoverServices(_ uuids: [BluetoothUUID]?, on peer: UUID) async throws -> [RemoteService] {
        guard case .services(let found) = try await procedure(.discoverPrimaryServices, on: peer) else { return [] }
        let link = try readyLink(peer)
        client.discovered(services: found.map(\.uuid), on: link.handle)
        return found.filter { uuids == nil || uuids!.contains($0.uuid) }.map {
            RemoteService(peripheral: peer, uuid: $0.uuid, isPrimary: true, handle: $0.handle, endHandle: $0.endHandle)
        }
    }

    func discoverIncludedServices(_ uuids: [BluetoothUUID]?, for service: RemoteService) async throws -> [RemoteService] {
        guard case .services(let found) = try await procedure(
            .discoverIncludedServices(start: service.handle, end: service.endHandle), on: service.peripheral) else { return [] }
        return found.filter { uuids == nil || uuids!.contains($0.uuid) }.map {
            RemoteService(peripheral: service.peripheral, uuid: $0.uuid, isPrimary: $0.isPrimary, handle: $0.handle,
                          endHandle: $0.endHandle)
        }
    }

    func discoverCharacteristics(_ uuids: [BluetoothUUID]?, for service: RemoteService) async throws -> [RemoteCharacteristic] {
        guard case .characteristics(let found) = try await procedure(
            .discoverCharacteristics(start: service.handle, end: service.endHandle), on: service.peripheral) else { return [] }
        let link = try readyLink(service.peripheral)
        var result: [RemoteCharacteristic] = []
        for c in found {
            client.discovered(c.uuid, valueHandle: c.valueHandle, on: link.handle)
            guard uuids == nil || uuids!.contains(c.uuid) else { continue }
            result.append(RemoteCharacteristic(peripheral: service.peripheral, service: service.uuid, uuid: c.uuid,
                                               properties: c.properties, handle: c.declarationHandle,
                                               valueHandle: c.valueHandle, endHandle: c.endHandle))
        }
        return result
    }

    func discoverDescriptors(for characteristic: RemoteCharacteristic) async throws -> [RemoteDescriptor] {
        guard case .descriptors(let found) = try await procedure(
            .discoverDescriptors(valueHandle: characteristic.valueHandle, end: characteristic.endHandle), on: characteristic.peripheral)
        else { return [] }
        return found.map {
            RemoteDescriptor(peripheral: characteristic.peripheral, characteristic: characteristic.uuid,
                             characteristicValueHandle: characteristic.valueHandle, uuid: $0.uuid, handle: $0.handle)
        }
    }

    // MARK: Reading and writing

    func read(_ characteristic: RemoteCharacteristic) async throws -> Data {
        try await readValue(characteristic.valueHandle, of: characteristic.peripheral)
    }

    func read(_ descriptor: RemoteDescriptor) async throws -> Data {
        try await readValue(descriptor.handle, of: descriptor.peripheral)
    }

    private func readValue(_ handle: UInt16, of peer: UUID) async throws -> Data {
        guard case .value(let value) = try await procedure(.read(handle: handle), on: peer) else { return Data() }
        return Data(value)
    }

    func write(_ value: Data, to characteristic: RemoteCharacteristic, type: WriteType) async throws {
        let peer = characteristic.peripheral
        let link = try readyLink(peer)
        switch type {
        case .withResponse:
            guard characteristic.properties.contains(.write) else {
                throw BleuError.notSupported(.characteristicProperties(characteristic.uuid, characteristic.properties, .write))
            }
            try await writeWithResponse(Array(value), handle: characteristic.valueHandle, link: link)
        case .withoutResponse:
            guard characteristic.properties.contains(.writeWithoutResponse) else {
                throw BleuError.notSupported(.characteristicProperties(characteristic.uuid, characteristic.properties, .writeWithoutResponse))
            }
            guard value.count <= link.mtu - 3 else { throw BleuError.valueTooLong(length: value.count, maximum: link.mtu - 3) }
            guard client.reserveWriteCommand(on: link.handle) else { throw BleuError.sendQueueFull(peer) }
            do {
                try sendChecked(L2CAPBFrame(channelID: L2CAPBFrame.attCID, payload:
                    ATTPDU.writeCommand(handle: characteristic.valueHandle, value: Array(value)).encoded),
                    on: link.handle, kind: .writeCommand)
            } catch {
                client.writeCommandFailed(on: link.handle)
                throw error
            }
        }
    }

    func write(_ value: Data, to descriptor: RemoteDescriptor) async throws {
        let link = try readyLink(descriptor.peripheral)
        try await writeWithResponse(Array(value), handle: descriptor.handle, link: link)
    }

    /// A Write Request, or prepared writes and an Execute Write for a value longer than one PDU.
    private func writeWithResponse(_ value: [UInt8], handle: UInt16, link: HCILink) async throws {
        guard value.count <= 512 else { throw BleuError.valueTooLong(length: value.count, maximum: 512) }
        _ = try await procedure(.write(handle: handle, value: value), on: link.peer)
    }

    func canSendWriteWithoutResponse(to peer: UUID) -> Bool {
        guard let link = connections.centralLink(to: peer), link.isReady else { return false }
        return client.canSendWriteCommand(on: link.handle)
    }

    func attMTU(_ peer: UUID) throws -> Int {
        try readyLink(peer).mtu
    }

    func maximumWriteValueLength(_ peer: UUID, type: WriteType) throws -> Int {
        let link = try readyLink(peer)
        return type == .withoutResponse ? link.mtu - 3 : 512
    }

    // MARK: Notifications

    func subscribe(to characteristic: RemoteCharacteristic) async throws -> AsyncThrowingStream<Data, any Error> {
        let (subscriber, stream, continuation) = ValueSubscriber.stream(limit: client.streamLimit)
        let end = try await subscribe(characteristic, subscriber)
        continuation.onTermination = { _ in end() }
        return stream
    }

    /// Hands each value to `receive` from the task that reads the link's ATT PDUs.
    func subscribe(to characteristic: RemoteCharacteristic,
                   receive: @escaping @Sendable (ValueDelivery) -> Void) async throws -> ValueSubscription {
        let (subscriber, silence) = ValueSubscriber.receiver(receive)
        let end = try await subscribe(characteristic, subscriber)
        return ValueSubscription {
            silence()
            end()
        }
    }

    /// Files `subscriber` with the characteristic's subscription, turning notifications (or
    /// indications) on first when they are not; returns what removes it.
    private func subscribe(_ characteristic: RemoteCharacteristic, _ subscriber: ValueSubscriber) async throws -> @Sendable () -> Void {
        let peer = characteristic.peripheral
        var link = try readyLink(peer)
        guard !characteristic.properties.isDisjoint(with: [.notify, .indicate]) else {
            throw BleuError.notSupported(.characteristicProperties(characteristic.uuid, characteristic.properties, .subscribe))
        }
        let valueHandle = characteristic.valueHandle
        var cccdToWrite: UInt16?
        if client.subscription(valueHandle, on: link.handle) == nil {
            let descriptors = try await discoverDescriptors(for: characteristic)
            guard let cccd = descriptors.first(where: { $0.uuid == BluetoothUUID.Descriptor.clientCharacteristicConfiguration })
            else { throw BleuError.descriptorNotFound(BluetoothUUID.Descriptor.clientCharacteristicConfiguration) }
            link = try readyLink(peer)
            if client.subscription(valueHandle, on: link.handle) == nil {
                client.subscribe(characteristic, cccdHandle: cccd.handle, on: link.handle)
                cccdToWrite = cccd.handle
            }
        }
        // The subscriber is in place before the configuration is written: a server may notify at once.
        let handle = link.handle
        let id = client.add(subscriber, valueHandle: valueHandle, on: handle)
        let pipeline = self.pipeline
        let end: @Sendable () -> Void = { pipeline.post(.valueStreamEnded(id, valueHandle: valueHandle, handle: handle)) }
        if let cccd = cccdToWrite {
            let bits: UInt16 = characteristic.properties.contains(.notify) ? 0x0001 : 0x0002
            do {
                _ = try await procedure(.configure(valueHandle: valueHandle, end: characteristic.endHandle,
                                                   descriptor: cccd, bits: bits), on: peer)
            } catch {
                if let subscription = client.unsubscribe(valueHandle, on: handle) {
                    for (other, subscriber) in subscription.subscribers where other != id { subscriber.end(error) }
                }
                throw error
            }
        }
        return end
    }

    func unsubscribe(from characteristic: RemoteCharacteristic) async throws {
        let link = try readyLink(characteristic.peripheral)
        guard let subscription = client.unsubscribe(characteristic.valueHandle, on: link.handle) else { return }
        for subscriber in subscription.subscribers.values { subscriber.end(nil) }
        _ = try await procedure(.configure(valueHandle: characteristic.valueHandle, end: characteristic.endHandle,
                                           descriptor: subscription.cccdHandle, bits: 0), on: characteristic.peripheral)
    }

    // MARK: Procedures

    /// Runs a GATT procedure on the central link to `peer`. A request the server refuses for
    /// want of security (``/BleuATT/AttributeAccess/securityToRetry(after:on:)``) pairs or
    /// encrypts first and runs once more, as CoreBluetooth does, unless
    /// ``HCIRadioConfiguration/pairsOnInsufficientSecurity`` is off; a failed pairing throws its
    /// ``/BleuCore/BleuError/pairingFailed(_:)``.
    private func procedure(_ kind: GATTProcedure.Kind, on peer: UUID) async throws -> GATTProcedure.Outcome {
        let link = try readyLink(peer)
        do {
            return try await link.bearer.run(kind, mtu: link.mtu)
        } catch BleuError.att(let code) {
            guard configuration.pairsOnInsufficientSecurity,
                  let required = AttributeAccess.securityToRetry(after: code, on: securityLevel(of: peer) ?? .unencrypted) else {
                throw BleuError.att(code)
            }
            logger.debug("the peripheral refused a request (\(code)); pairing to \(required), then trying once more")
            try await pair(peer, minimum: required)
            let again = try readyLink(peer)
            return try await again.bearer.run(kind, mtu: again.mtu)
        }
    }

    /// A notification or indication from the server of the link.
    func valueReceived(_ valueHandle: UInt16, _ bytes: [UInt8], on link: HCILink) {
        if client.isServiceChanged(valueHandle, on: link.handle) { events.central.yield(.servicesChanged(link.peer)) }
        client.received(bytes, valueHandle: valueHandle, on: link.handle)
    }
}
