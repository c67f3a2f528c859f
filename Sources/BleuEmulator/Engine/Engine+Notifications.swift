import BleuATT
import BleuCore
import Foundation

/// Notifications, indications and write-without-response flow control.
///
/// A peripheral's notification queue holds `notificationQueueDepth` values across its links;
/// `updateValue` returns `false` when it is full and the peripheral hears
/// `readyToUpdateSubscribers` once one leaves. A value leaves the queue when it is delivered
/// (a notification) or confirmed (an indication), and it only goes on air while every stream
/// subscribed to it on the central has room: a slow consumer holds the link back rather than
/// losing values.
extension Engine {
    /// Queues a value for the subscribed centrals (all, or those listed). Returns `false`, and
    /// queues nothing, when the queue is full.
    ///
    /// A value longer than a subscribed central's ATT MTU − 3 is refused for that central: it
    /// is not sent to it (a notification PDU cannot carry it) and the trace records a
    /// ``LinkTraceEvent/Kind/refused`` event on its link. The refusal does not make the call
    /// return `false`: `false` promises a ``BleuCore/PeripheralEvent/readyToUpdateSubscribers``
    /// event, and retrying would never fit. So, as for a central that is not subscribed, the
    /// call returns `true` when nothing is queued; ``EmulatedPeripheralManager/maximumUpdateValueLength(for:)`` says
    /// what fits beforehand.
    mutating func updateValue(peripheral key: PeripheralKey, _ value: Data, for characteristic: PublishedCharacteristic,
                              centrals filter: [UUID]?) -> Bool {
        guard let node = peripherals[key], node.state == .poweredOn else { return false }
        let handle = characteristic.valueHandle
        guard node.database.characteristic(valueHandle: handle)?.uuid == characteristic.uuid else { return true }
        var tooLong: [LinkID] = []
        let targets = node.links.values.sorted().filter { id in
            guard let link = links[id], let bits = link.server.configurations[handle], bits != 0 else { return false }
            if let filter, !filter.contains(link.centralID) { return false }
            guard value.count <= link.mtu - 3 else {
                tooLong.append(id)
                return false
            }
            return true
        }
        for id in tooLong {
            let maximum = (links[id]?.mtu ?? EmulatorConfiguration.minimumMTU) - 3
            record(.refused, link: id, direction: .peripheralToCentral, handle: handle, length: value.count,
                   "value of \(value.count) bytes not sent: longer than ATT MTU − 3 (\(maximum))")
        }
        guard !targets.isEmpty else { return true }
        guard node.queuedValues < configuration.notificationQueueDepth else {
            peripherals[key]?.readyPending = true
            return false
        }
        for id in targets {
            let bits = links[id]?.server.configurations[handle] ?? 0
            links[id]?.outbox.append(OutgoingValue(handle: handle, value: value, indication: bits & 0x0001 == 0))
            links[id]?.queuedValues += 1
            peripherals[key]?.queuedValues += 1
        }
        for id in targets { pumpOutbox(id) }
        return true
    }

    /// Moves queued values onto the air while the central's streams have room for them.
    mutating func pumpOutbox(_ linkID: LinkID) {
        while let link = links[linkID], let head = link.outbox.first {
            if link.server.configurations[head.handle] == nil {
                links[linkID]?.outbox.removeFirst()
                releaseQueuedValues(1, on: linkID)
                continue
            }
            if head.indication, link.indicationInFlight { return }
            let inFlight = link.inFlight[head.handle] ?? 0
            for stream in link.valueStreams[head.handle] ?? [] where bufferedCount(stream) + inFlight >= (streams[stream]?.limit ?? 0) {
                return
            }
            links[linkID]?.outbox.removeFirst()
            links[linkID]?.inFlight[head.handle, default: 0] += 1
            if head.indication { links[linkID]?.indicationInFlight = true }
            let pdu: ATTPDU = head.indication ? .handleValueIndication(handle: head.handle, value: Array(head.value))
                : .handleValueNotification(handle: head.handle, value: Array(head.value))
            send(LinkPacket(direction: .peripheralToCentral, payload: .att(pdu)), on: linkID)
        }
    }

    /// A notification or indication reached the central: every stream of the characteristic
    /// gets it; an indication is confirmed.
    mutating func valueReceived(_ value: Data, handle: UInt16, indication: Bool, on linkID: LinkID) {
        guard let link = links[linkID] else { return }
        for stream in link.valueStreams[handle] ?? [] { push(.data(value), to: stream) }
        if indication {
            send(LinkPacket(direction: .centralToPeripheral, payload: .att(.handleValueConfirmation)), on: linkID)
        }
        valueArrived(handle: handle, indication: indication, on: linkID)
    }

    /// A value reached the central (an emulated one, or an HCI host): it no longer counts in
    /// flight; a notification leaves the peripheral's queue now, an indication when its
    /// confirmation comes back.
    mutating func valueArrived(handle: UInt16, indication: Bool, on linkID: LinkID) {
        guard let link = links[linkID] else { return }
        links[linkID]?.inFlight[handle] = max(0, (link.inFlight[handle] ?? 1) - 1)
        if !indication { releaseQueuedValues(1, on: linkID) }
        pumpOutbox(linkID)
    }

    mutating func indicationConfirmed(on linkID: LinkID) {
        guard links[linkID]?.indicationInFlight == true else { return }
        links[linkID]?.indicationInFlight = false
        releaseQueuedValues(1, on: linkID)
        pumpOutbox(linkID)
    }

    /// A central unsubscribed: its queued values for the characteristic are dropped.
    mutating func dropQueuedValues(handle: UInt16, on linkID: LinkID) {
        guard let link = links[linkID] else { return }
        let dropped = link.outbox.filter { $0.handle == handle }.count
        links[linkID]?.outbox.removeAll { $0.handle == handle }
        releaseQueuedValues(dropped, on: linkID)
    }

    /// Values left a link's share of the peripheral's queue.
    mutating func releaseQueuedValues(_ count: Int, on linkID: LinkID) {
        guard count > 0, let link = links[linkID] else { return }
        links[linkID]?.queuedValues -= count
        releaseQueuedValues(count, of: link.peripheral)
    }

    /// Values left the peripheral's queue; the application hears it has room again if it was told no.
    mutating func releaseQueuedValues(_ count: Int, of peripheral: PeripheralKey) {
        guard count > 0, let node = peripherals[peripheral] else { return }
        peripherals[peripheral]?.queuedValues = max(0, node.queuedValues - count)
        if node.readyPending, (peripherals[peripheral]?.queuedValues ?? 0) < configuration.notificationQueueDepth {
            peripherals[peripheral]?.readyPending = false
            node.hub.yield(.readyToUpdateSubscribers)
        }
    }

    // MARK: Central side

    /// A configuration write completed: with notifications or indications on, the caller gets
    /// a new value stream; off, the characteristic's streams end.
    mutating func configured(_ characteristic: RemoteCharacteristic, bits: UInt16, sink: StreamSink?,
                             on linkID: LinkID) -> OperationResult {
        let handle = characteristic.valueHandle
        if bits == 0 {
            links[linkID]?.subscriptions.removeValue(forKey: handle)
            for stream in links[linkID]?.valueStreams.removeValue(forKey: handle) ?? [] { endStream(stream, error: nil) }
            return .done
        }
        links[linkID]?.subscriptions[handle] = characteristic
        return .stream(addValueStream(handle: handle, on: linkID, sink: sink))
    }

    /// Another stream of an enabled characteristic's values.
    mutating func addValueStream(handle: UInt16, on linkID: LinkID, sink: StreamSink? = nil) -> StreamID {
        let stream = newStream(.subscription(link: linkID, handle: handle), limit: configuration.subscriptionBufferLimit,
                               sink: sink)
        links[linkID]?.valueStreams[handle, default: []].append(stream)
        return stream
    }

    // MARK: Write without response

    /// Sends a write command if the link has a free slot.
    mutating func writeWithoutResponse(_ value: Data, handle: UInt16, on linkID: LinkID) throws(BleuError) {
        guard let link = links[linkID] else { return }
        guard link.writesInFlight < configuration.writeWithoutResponseQueueDepth else {
            links[linkID]?.writeReadyPending = true
            throw .sendQueueFull(link.peripheralID)
        }
        links[linkID]?.writesInFlight += 1
        send(LinkPacket(direction: .centralToPeripheral, payload: .att(.writeCommand(handle: handle, value: Array(value)))), on: linkID)
    }

    /// Whether a write command would be accepted now; a `false` answer asks for the ready event.
    mutating func canSendWriteWithoutResponse(on linkID: LinkID) -> Bool {
        guard let link = links[linkID] else { return false }
        if link.writesInFlight < configuration.writeWithoutResponseQueueDepth { return true }
        links[linkID]?.writeReadyPending = true
        return false
    }

    /// A write command's slot freed: the peripheral's application took it, or it was dropped.
    mutating func writeSlotFreed(on linkID: LinkID) {
        guard let link = links[linkID] else { return }
        links[linkID]?.writesInFlight = max(0, link.writesInFlight - 1)
        if link.writeReadyPending {
            links[linkID]?.writeReadyPending = false
            centrals[link.central]?.hub.yield(.readyToSendWriteWithoutResponse(link.peripheralID))
        }
    }
}
