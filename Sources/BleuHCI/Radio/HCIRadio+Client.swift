import BleuATT
import BleuCore
import Foundation

/// The GATT client of central links: discovery, reads, writes, subscriptions.
extension HCIRadio {
    // MARK: Discovery

    func discoverServices(_ uuids: [BluetoothUUID]?, on peer: UUID) async throws -> [RemoteService] {
        let link = try readyLink(peer)
        let found = try await GATTClient(bearer: link.bearer).discoverPrimaryServices()
        links[link.handle]?.discoveredServices = found.map(\.uuid)
        return found.filter { uuids == nil || uuids!.contains($0.uuid) }.map {
            RemoteService(peripheral: peer, uuid: $0.uuid, isPrimary: true, handle: $0.handle, endHandle: $0.endHandle)
        }
    }

    func discoverIncludedServices(_ uuids: [BluetoothUUID]?, for service: RemoteService) async throws -> [RemoteService] {
        let link = try readyLink(service.peripheral)
        let found = try await GATTClient(bearer: link.bearer).discoverIncludedServices(
            of: GATTClient.Service(uuid: service.uuid, handle: service.handle, endHandle: service.endHandle))
        return found.filter { uuids == nil || uuids!.contains($0.uuid) }.map {
            RemoteService(peripheral: service.peripheral, uuid: $0.uuid, isPrimary: false, handle: $0.handle,
                          endHandle: $0.endHandle)
        }
    }

    func discoverCharacteristics(_ uuids: [BluetoothUUID]?, for service: RemoteService) async throws -> [RemoteCharacteristic] {
        let link = try readyLink(service.peripheral)
        let found = try await GATTClient(bearer: link.bearer).discoverCharacteristics(
            of: GATTClient.Service(uuid: service.uuid, handle: service.handle, endHandle: service.endHandle))
        var result: [RemoteCharacteristic] = []
        for (index, c) in found.enumerated() {
            let end = index + 1 < found.count ? found[index + 1].declarationHandle - 1 : service.endHandle
            links[link.handle]?.discoveredValueHandles[c.valueHandle] = c.uuid
            guard uuids == nil || uuids!.contains(c.uuid) else { continue }
            result.append(RemoteCharacteristic(peripheral: service.peripheral, service: service.uuid, uuid: c.uuid,
                                               properties: c.properties, handle: c.declarationHandle,
                                               valueHandle: c.valueHandle, endHandle: max(end, c.valueHandle)))
        }
        return result
    }

    func discoverDescriptors(for characteristic: RemoteCharacteristic) async throws -> [RemoteDescriptor] {
        let link = try readyLink(characteristic.peripheral)
        let found = try await GATTClient(bearer: link.bearer).discoverDescriptors(
            of: GATTClient.Characteristic(uuid: characteristic.uuid, declarationHandle: characteristic.handle,
                                          properties: characteristic.properties, valueHandle: characteristic.valueHandle),
            endHandle: characteristic.endHandle)
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
        let link = try readyLink(peer)
        return Data(try await GATTClient(bearer: link.bearer).readLong(handle, mtu: link.mtu))
    }

    func write(_ value: Data, to characteristic: RemoteCharacteristic, type: WriteType) async throws {
        let peer = characteristic.peripheral
        let link = try readyLink(peer)
        switch type {
        case .withResponse:
            guard characteristic.properties.contains(.write) else {
                throw BleuError.notSupported("characteristic \(characteristic.uuid) does not accept writes with response")
            }
            try await writeWithResponse(Array(value), handle: characteristic.valueHandle, link: link)
        case .withoutResponse:
            guard characteristic.properties.contains(.writeWithoutResponse) else {
                throw BleuError.notSupported("characteristic \(characteristic.uuid) does not accept writes without response")
            }
            guard value.count <= link.mtu - 3 else { throw BleuError.valueTooLong(length: value.count, maximum: link.mtu - 3) }
            guard link.writeCommandsInFlight < configuration.writeWithoutResponseQueueDepth else {
                links[link.handle]?.wantsWriteReady = true
                throw BleuError.sendQueueFull(peer)
            }
            links[link.handle]?.writeCommandsInFlight += 1
            do {
                try await sendChecked(L2CAPBFrame(channelID: L2CAPBFrame.attCID, payload:
                    ATTPDU.writeCommand(handle: characteristic.valueHandle, value: Array(value)).encoded),
                    on: link.handle, kind: .writeCommand)
            } catch {
                if links[link.handle] != nil { links[link.handle]!.writeCommandsInFlight -= 1 }
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
        let bearer = link.bearer
        if value.count <= link.mtu - 3 {
            try expect(.writeResponse, try await bearer.request(.writeRequest(handle: handle, value: value)))
            return
        }
        let part = link.mtu - 5
        var offset = 0
        do {
            while offset < value.count {
                let chunk = Array(value[offset..<min(offset + part, value.count)])
                let response = try await bearer.request(.prepareWriteRequest(handle: handle, offset: UInt16(offset), value: chunk))
                guard case let .prepareWriteResponse(h, o, echoed) = try checked(response), h == handle,
                      o == UInt16(offset), echoed == chunk else {
                    throw BleuError.invalidData("the peripheral echoed a prepared write differently; the long write was cancelled")
                }
                offset += chunk.count
            }
        } catch {
            _ = try? await bearer.request(.executeWriteRequest(commit: false))
            throw error
        }
        try expect(.executeWriteResponse, try await bearer.request(.executeWriteRequest(commit: true)))
    }

    private func checked(_ response: ATTPDU) throws -> ATTPDU {
        if case .errorResponse(_, _, let error) = response { throw BleuError.att(error) }
        return response
    }

    private func expect(_ expected: ATTPDU, _ response: ATTPDU) throws {
        guard try checked(response) == expected else {
            throw BleuError.invalidData("expected \(expected.opcode), the peripheral answered \(response.opcode)")
        }
    }

    func canSendWriteWithoutResponse(to peer: UUID) -> Bool {
        guard let link = centralLink(peer), link.isReady else { return false }
        return link.writeCommandsInFlight < configuration.writeWithoutResponseQueueDepth
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
        let peer = characteristic.peripheral
        var link = try readyLink(peer)
        guard !characteristic.properties.isDisjoint(with: [.notify, .indicate]) else {
            throw BleuError.notSupported("characteristic \(characteristic.uuid) neither notifies nor indicates")
        }
        let valueHandle = characteristic.valueHandle
        var cccdToWrite: UInt16?
        if link.subscriptions[valueHandle] == nil {
            let descriptors = try await discoverDescriptors(for: characteristic)
            guard let cccd = descriptors.first(where: { $0.uuid == BluetoothUUID.Descriptor.clientCharacteristicConfiguration })
            else { throw BleuError.descriptorNotFound(BluetoothUUID.Descriptor.clientCharacteristicConfiguration) }
            link = try readyLink(peer)
            if link.subscriptions[valueHandle] == nil {
                links[link.handle]?.subscriptions[valueHandle] = HCILink.Subscription(characteristic: characteristic,
                                                                                     cccdHandle: cccd.handle)
                cccdToWrite = cccd.handle
            }
        }
        // The stream is in place before the configuration is written: a server may notify at once.
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Data.self,
                                                                    bufferingPolicy: .bufferingOldest(configuration.valueStreamLimit))
        nextStreamID += 1
        let id = nextStreamID
        links[link.handle]?.subscriptions[valueHandle]?.streams[id] = continuation
        let handle = link.handle
        continuation.onTermination = { [weak self] _ in
            Task { await self?.streamEnded(id, valueHandle: valueHandle, on: handle) }
        }
        if let cccd = cccdToWrite {
            let bits: [UInt8] = characteristic.properties.contains(.notify) ? [0x01, 0x00] : [0x02, 0x00]
            do {
                try expect(.writeResponse, try await link.bearer.request(.writeRequest(handle: cccd, value: bits)))
            } catch {
                if let subscription = links[handle]?.subscriptions.removeValue(forKey: valueHandle) {
                    for other in subscription.streams.values { other.finish(throwing: error) }
                }
                throw error
            }
        }
        return stream
    }

    private func streamEnded(_ id: Int, valueHandle: UInt16, on handle: UInt16) {
        links[handle]?.subscriptions[valueHandle]?.streams[id] = nil
    }

    func unsubscribe(from characteristic: RemoteCharacteristic) async throws {
        let link = try readyLink(characteristic.peripheral)
        guard let subscription = links[link.handle]?.subscriptions.removeValue(forKey: characteristic.valueHandle) else { return }
        for stream in subscription.streams.values { stream.finish() }
        try expect(.writeResponse, try await link.bearer.request(.writeRequest(handle: subscription.cccdHandle, value: [0, 0])))
    }

    /// A notification or indication from the server of `handle`'s link.
    func valueReceived(_ valueHandle: UInt16, _ bytes: [UInt8], on handle: UInt16) {
        guard let link = links[handle] else { return }
        if link.discoveredValueHandles[valueHandle] == BluetoothUUID.Characteristic.serviceChanged {
            centralEvents.yield(.servicesChanged(link.peer))
        }
        guard let subscription = link.subscriptions[valueHandle] else { return }
        let value = Data(bytes)
        for (id, stream) in subscription.streams {
            if case .dropped = stream.yield(value) {
                links[handle]?.subscriptions[valueHandle]?.streams[id] = nil
                stream.finish(throwing: BleuError.bufferOverflow(
                    "the stream of \(subscription.characteristic.uuid) held \(configuration.valueStreamLimit) values its consumer did not read"))
            }
        }
    }
}
