import BleuATT
import BleuCore
import Foundation

/// Connecting, disconnecting, losing links.
extension Engine {
    /// Starts or joins a connection attempt; the operation completes when the link is up.
    mutating func connect(central key: CentralKey, to peripheralID: UUID, timeout: Duration?, operation: OperationID) throws(BleuError) {
        guard let node = centrals[key] else { throw .invalidState(.managerGone) }
        if let error = node.state.unavailableError { throw error }
        guard let peripheral = node.known[peripheralID] else { throw .peripheralNotFound(peripheralID) }
        if let linkID = node.links[peripheral], links[linkID]?.isUp == true {
            succeed(operation)
            return
        }
        if var attempt = node.pending[peripheral] {
            attempt.waiters.append(operation)
            centrals[key]?.pending[peripheral] = attempt
        } else {
            guard node.links.count + node.pending.count < configuration.maximumConnectionsPerCentral else {
                throw .limitReached(.connections(configuration.maximumConnectionsPerCentral))
            }
            let attempt = numbers.nextProcedure()
            centrals[key]?.pending[peripheral] = PendingConnection(attempt: attempt, peripheralID: peripheralID, waiters: [operation])
            tryEstablish(central: key, peripheral: peripheral)
        }
        if let timeout, waiters.isWaiting(operation) {
            schedule(.connectTimeout(central: key, peripheral: peripheral, operation: operation), at: timeoutBase() + timeout)
        }
    }

    /// Whether a peripheral can be connected now: on, advertising and in range.
    func isConnectable(_ key: PeripheralKey) -> Bool {
        guard let node = peripherals[key] else { return false }
        return node.state == .poweredOn && node.advertising?.connectable == true && configuration.rssi.isInRange(node.distance)
    }

    /// Moves every attempt waiting for `peripheral` forward (it started advertising, came into
    /// range, or an attempt was made).
    mutating func tryEstablish(central key: CentralKey, peripheral: PeripheralKey) {
        guard let attempt = centrals[key]?.pending[peripheral], !attempt.establishing, isConnectable(peripheral) else { return }
        centrals[key]?.pending[peripheral]?.establishing = true
        if isRealistic {
            schedule(.establish(central: key, peripheral: peripheral, attempt: attempt.attempt), at: now + configuration.connectLatency)
        } else {
            establish(central: key, peripheral: peripheral, attempt: attempt.attempt)
        }
    }

    mutating func tryEstablishAll(peripheral: PeripheralKey) {
        for key in centrals.keys.sorted() where centrals[key]?.pending[peripheral] != nil {
            tryEstablish(central: key, peripheral: peripheral)
        }
        // An HCI host's LE Create Connection waiting for this address.
        guard let address = peripherals[peripheral]?.address else { return }
        for key in centrals.keys.sorted() where centrals[key]?.awaitedAddress == address {
            connect(central: key, toAddress: address)
        }
    }

    /// The first connection event: the link exists and the MTU exchange starts; the waiters
    /// resume when it completes.
    mutating func establish(central key: CentralKey, peripheral: PeripheralKey, attempt: UInt64) {
        guard let centralNode = centrals[key], let pending = centralNode.pending[peripheral], pending.attempt == attempt,
              centralNode.links[peripheral] == nil else { return }
        guard isConnectable(peripheral), let peripheralNode = peripherals[peripheral] else {
            centrals[key]?.pending[peripheral]?.establishing = false
            return
        }
        let peripheralID = identifier(of: peripheralNode.address, seenBy: centralNode.address)
        if chance.fault(configuration.faults.connectionFailure) {
            record(.fault, "connection to \(peripheralID) failed to be established (HCI 0x3E; seed \(seed))")
            centrals[key]?.pending.removeValue(forKey: peripheral)
            for waiter in pending.waiters {
                fail(waiter, BleuError.connectionFailed(peripheralID, reason: .link(.failedToEstablish)))
            }
            centralNode.external?.deliver(.connectionFailed(peer: peripheralNode.address, status: 0x3E))
            return
        }
        let id = links.allocate()
        let centralID = identifier(of: centralNode.address, seenBy: peripheralNode.address)
        links[id] = Link(id: id, central: key, peripheral: peripheral, peripheralID: peripheralID, centralID: centralID)
        links[id]?.server.connection = ATTServerConnection(maxMTU: peripheralNode.mtu, maxPreparedWrites: configuration.prepareQueueLimit)
        centrals[key]?.links[peripheral] = id
        centrals[key]?.known[peripheralID] = peripheral
        peripherals[peripheral]?.links[key] = id
        if isRealistic {
            centrals[key]?.radio.addConnection(id.rawValue, interval: configuration.connectionInterval,
                                               maximumExchangesPerEvent: configuration.maximumPacketsPerConnectionEvent ?? .max,
                                               at: now)
        }
        record(.connected, link: id, "\(centralID) → \(peripheralID)",
               endpoints: LinkTraceEvent.Endpoints(central: centralNode.address, peripheral: peripheralNode.address))
        peripheralNode.hub.yield(.centralConnected(centralID))
        externalLinkEstablished(id)
        // An emulated central exchanges the MTU first, as CoreBluetooth does; an HCI host does what it does.
        if centralNode.external == nil { enqueue(ClientOperation(id: newOperationID(), kind: .exchangeMTU), on: id) }
    }

    /// The MTU exchange completed: the central learns it is connected.
    mutating func linkUp(_ id: LinkID) {
        guard let link = links[id], let node = centrals[link.central] else { return }
        links[id]?.isUp = true
        let waiters = node.pending[link.peripheral]?.waiters ?? []
        centrals[link.central]?.pending.removeValue(forKey: link.peripheral)
        node.hub.yield(.connected(link.peripheralID))
        node.hub.yield(.mtuChanged(link.peripheralID, mtu: link.mtu))
        for waiter in waiters { succeed(waiter) }
    }

    mutating func connectionTimedOut(central key: CentralKey, peripheral scheduledFor: PeripheralKey, operation: OperationID) {
        // The attempt may have moved to a new node of the same device since (its app started again).
        guard let pending = centrals[key]?.pending,
              let peripheral = pending[scheduledFor]?.waiters.contains(operation) == true
                ? scheduledFor : pending.first(where: { $0.value.waiters.contains(operation) })?.key,
              var attempt = pending[peripheral] else { return }
        fail(operation, BleuError.connectionTimeout(attempt.peripheralID))
        attempt.waiters.removeAll { $0 == operation }
        if attempt.waiters.isEmpty {
            abandonAttempt(central: key, peripheral: peripheral)
        } else {
            centrals[key]?.pending[peripheral] = attempt
        }
    }

    /// Drops an attempt nobody waits for any more, and the half-made link if there is one.
    private mutating func abandonAttempt(central key: CentralKey, peripheral: PeripheralKey) {
        centrals[key]?.pending.removeValue(forKey: peripheral)
        if let link = centrals[key]?.links[peripheral] {
            tearDown(link, centralReason: .localHostTerminated, peripheralReason: .remoteUserTerminated)
        }
    }

    /// Cancels an attempt, or ends the link: the operation completes once the link is down.
    mutating func cancelConnection(central key: CentralKey, peripheralID: UUID, operation: OperationID) {
        guard let node = centrals[key], let peripheral = node.known[peripheralID] else {
            succeed(operation)
            return
        }
        if let attempt = node.pending[peripheral] {
            for waiter in attempt.waiters { fail(waiter, BleuError.cancelled) }
            centrals[key]?.pending.removeValue(forKey: peripheral)
        }
        guard let linkID = node.links[peripheral] else {
            succeed(operation)
            return
        }
        terminate(linkID, from: .centralToPeripheral, code: DisconnectReason.remoteUserTerminated.hciCode, waiter: operation)
    }

    /// One side ends the link: LL_TERMINATE_IND goes over the air; both sides report the
    /// disconnection when it arrives.
    mutating func terminate(_ linkID: LinkID, from direction: RadioSchedule.Direction, code: UInt8, waiter: OperationID?) {
        guard let link = links[linkID] else {
            if let waiter { succeed(waiter) }
            return
        }
        if let waiter { waiters.waitForTermination(of: linkID, waiter) }
        if link.lostAt != nil { return }
        send(LinkPacket(direction: direction, payload: .terminate(code)), on: linkID)
    }

    mutating func terminationReceived(_ code: UInt8, direction: RadioSchedule.Direction, on linkID: LinkID) {
        if direction == .centralToPeripheral {
            tearDown(linkID, centralReason: .localHostTerminated, peripheralReason: DisconnectReason(hciCode: code))
        } else {
            tearDown(linkID, centralReason: DisconnectReason(hciCode: code), peripheralReason: .localHostTerminated)
        }
    }

    /// The link went silent. With realistic timing both sides notice after the supervision
    /// timeout; with instant timing at once.
    mutating func loseLink(_ linkID: LinkID) {
        guard let link = links[linkID], link.lostAt == nil else { return }
        links[linkID]?.lostAt = now
        record(.linkLost, link: linkID, "no packet gets through; reported after the supervision timeout")
        if isRealistic {
            schedule(.supervisionTimeout(link: linkID), at: now + configuration.supervisionTimeout)
        } else {
            tearDown(linkID, centralReason: .supervisionTimeout, peripheralReason: .supervisionTimeout)
        }
    }

    /// Ends a link on both sides with the reason each sees: operations fail, streams end,
    /// subscriptions end, both managers report it.
    mutating func tearDown(_ linkID: LinkID, centralReason: DisconnectReason, peripheralReason: DisconnectReason) {
        guard let link = links[linkID] else { return }
        for role in [ExternalRole.central, .peripheral] {
            let reason = role == .central ? centralReason : peripheralReason
            externalHost(of: linkID, role)?.deliver(.disconnected(link: linkID.rawValue, reason: reason.hciCode))
        }
        links.removeValue(forKey: linkID)
        centrals[link.central]?.links.removeValue(forKey: link.peripheral)
        centrals[link.central]?.radio.removeConnection(linkID.rawValue)
        peripherals[link.peripheral]?.links.removeValue(forKey: link.central)
        record(.disconnected, link: linkID, "central: \(centralReason); peripheral: \(peripheralReason)")
        let error = BleuError.disconnected(link.peripheralID, centralReason)

        // Central side.
        for operation in link.client.operations { fail(operation.id, error) }
        for ids in link.valueStreams.values {
            for stream in ids { endStream(stream, error: error) }
        }
        for channel in channels.keys.sorted() where channels[channel]?.link == linkID {
            closeChannel(channel, side: nil, error: error, peripheralError: BleuError.disconnected(link.centralID, peripheralReason))
        }
        if let node = centrals[link.central] {
            if link.isUp {
                node.hub.yield(.disconnected(link.peripheralID, centralReason))
            } else if let attempt = node.pending[link.peripheral] {
                centrals[link.central]?.pending.removeValue(forKey: link.peripheral)
                for waiter in attempt.waiters {
                    fail(waiter, BleuError.connectionFailed(link.peripheralID, reason: .link(centralReason)))
                }
            }
        }

        // Peripheral side.
        if let node = peripherals[link.peripheral] {
            if let pending = link.server.pending { peripherals[link.peripheral]?.requests.removeValue(forKey: pending.id) }
            let database = node.database
            for (handle, bits) in link.server.configurations.sorted(by: { $0.key < $1.key }) where bits != 0 {
                if let characteristic = database.characteristic(valueHandle: handle) {
                    node.hub.yield(.unsubscribed(central: link.centralID, characteristic: characteristic))
                }
            }
            node.hub.yield(.centralDisconnected(link.centralID, peripheralReason))
            releaseQueuedValues(link.queuedValues, of: link.peripheral)
        }
        for waiter in waiters.takeTerminationWaiters(of: linkID) { succeed(waiter) }
    }
}
