import BleuCore
import Foundation

/// The one LE Create Connection a controller runs at a time.
struct ConnectAttempt {
    let id: UInt64
    let peer: UUID
    let address: BluetoothAddress
    let continuation: CheckedContinuation<UInt16, any Error>
    /// Why the attempt is being cancelled, once it is: the error the caller gets.
    var cancellation: BleuError?
}

extension HCIRadio {
    // MARK: Central: connecting

    /// Connects to a peripheral this radio knows and returns once the link is usable (MTU
    /// exchanged). See ``BleuCore/CentralManager/connect(_:timeout:)``.
    func connect(_ peer: UUID, timeout: Duration?) async throws {
        try requirePoweredOn()
        if let link = centralLink(peer), link.isReady { return }
        guard let entry = peers.entry(peer) else { throw BleuError.peripheralNotFound(peer) }
        if let handle = centralLink(peer)?.handle {  // set up by another caller right now
            try await waitForSetup(handle, of: peer)
            return
        }
        guard links.count < configuration.maxConnections else {
            throw BleuError.limitReached("this radio holds \(configuration.maxConnections) connections; disconnect one first")
        }
        await acquireConnectSlot()
        defer { releaseConnectSlot() }
        if let link = centralLink(peer) {  // connected while we waited for the slot
            if !link.isReady { try await waitForSetup(link.handle, of: peer) }
            return
        }
        try requirePoweredOn()
        if Task.isCancelled { throw BleuError.cancelled }
        let create: HCICommand = usesExtendedCommands
            ? .leExtendedCreateConnection(filterPolicy: 0, ownAddressType: ownAddressType, peerAddressType: entry.type,
                                          peerAddress: entry.address, phys: .le1M,
                                          [LEInitiatingPHY(connection: configuration.connectionParameters)])
            : .leCreateConnection(LECreateConnectionParameters(peerAddressType: entry.type, peerAddress: entry.address,
                                                               ownAddressType: ownAddressType,
                                                               connection: configuration.connectionParameters))
        nextAttemptID += 1
        let id = nextAttemptID
        let handle: UInt16 = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                connectAttempt = ConnectAttempt(id: id, peer: peer, address: entry.address, continuation: continuation)
                logger.debug("connecting to \(entry.address) (\(entry.type))")
                Task {
                    do {
                        _ = try await host.send(create)
                    } catch {
                        failAttempt(id, BleuError.connectionFailed(peer, reason: "\(error)"))
                    }
                }
                if let timeout {
                    Task { [clock] in
                        try? await clock.sleep(for: timeout)
                        cancelAttempt(id, because: .connectionTimeout(peer))
                    }
                }
            }
        } onCancel: {
            Task { await self.cancelAttempt(id, because: .cancelled) }
        }
        try await waitForSetup(handle, of: peer)
    }

    private func acquireConnectSlot() async {
        if !connecting {
            connecting = true
            return
        }
        await withCheckedContinuation { connectWaiters.append($0) }
    }

    private func releaseConnectSlot() {
        if connectWaiters.isEmpty {
            connecting = false
        } else {
            connectWaiters.removeFirst().resume()
        }
    }

    /// Cancels the running attempt to `peer` (LE Create Connection Cancel); the controller then
    /// reports the attempt's end, and the caller gets `error`.
    func cancelAttempt(_ id: UInt64, because reason: BleuError) {
        guard var attempt = connectAttempt, attempt.id == id, attempt.cancellation == nil else { return }
        attempt.cancellation = reason
        connectAttempt = attempt
        logger.debug("cancelling the connection attempt to \(attempt.address): \(reason)")
        Task { [clock] in
            do {
                _ = try await host.execute(.leCreateConnectionCancel)
                // A controller reports the attempt's end (LE Connection Complete, Unknown Connection
                // Identifier) at once; one that does not (Bumble's) must not hold the caller.
                try? await clock.sleep(for: .seconds(2))
                failAttempt(id, reason)
            } catch {
                // Nothing to cancel (the connection completed at the same moment), or no controller.
                failAttempt(id, reason)
            }
        }
    }

    private func failAttempt(_ id: UInt64, _ error: BleuError) {
        guard let attempt = connectAttempt, attempt.id == id else { return }
        connectAttempt = nil
        attempt.continuation.resume(throwing: error)
    }

    /// Waits until a new central link finished its setup (or failed).
    private func waitForSetup(_ handle: UInt16, of peer: UUID) async throws {
        guard let link = links[handle] else { throw BleuError.notConnected(peer) }
        if link.isReady { return }
        try await withCheckedThrowingContinuation { setupWaiters[handle, default: []].append($0) }
    }

    func centralLink(_ peer: UUID) -> HCILink? {
        links.values.first { $0.peer == peer && $0.role == .central }
    }

    /// The central link to `peer`, ready for use, or the error saying why there is none.
    func readyLink(_ peer: UUID) throws -> HCILink {
        try requirePoweredOn()
        guard let link = centralLink(peer), link.isReady else { throw BleuError.notConnected(peer) }
        return link
    }

    // MARK: Both roles: connection events

    func connectionComplete(_ event: LEConnectionComplete) {
        let role: HCILink.Role = event.role == .central ? .central : .peripheral
        guard event.status == 0 else {
            if role == .central, let attempt = connectAttempt {
                connectAttempt = nil
                let status = HCIStatus(rawValue: event.status)
                if let cancellation = attempt.cancellation {
                    attempt.continuation.resume(throwing: cancellation)
                } else {
                    attempt.continuation.resume(throwing: BleuError.connectionFailed(attempt.peer, reason: "\(status)"))
                }
            }
            return
        }
        let peer = identifyPeer(event.peerAddress, type: event.peerAddressType)
        let handle = event.handle
        let bearer = ATTBearer(clock: clock, timeout: configuration.attTimeout) { [weak self] bytes in
            guard let self else { throw BleuError.notConnected(peer) }
            try await self.sendChecked(L2CAPBFrame(channelID: L2CAPBFrame.attCID, payload: bytes), on: handle)
        }
        links[handle] = HCILink(handle: handle, role: role, peer: peer, address: event.peerAddress,
                                addressType: event.peerAddressType, bearer: bearer, maxMTU: configuration.attMTU,
                                parameters: HCILinkParameters(interval: event.interval, latency: event.latency,
                                                              supervisionTimeout: event.supervisionTimeout))
        if configuration.requestsDataLengthExtension, controller.leFeatures & (1 << 5) != 0 {
            // Best effort: a controller that refuses it or never answers changes nothing.
            issue(.leSetDataLength(handle: handle, txOctets: 251, txTime: .packetTime(octets: 251)), completes: true,
                  "asking for Data Length Extension on 0x\(hex4(handle))")
        }
        switch role {
        case .central:
            guard let attempt = connectAttempt, attempt.address == event.peerAddress else {
                // No attempt of ours asked for this one (a controller that completed an attempt
                // we had cancelled): nobody will use it.
                logger.notice("dropping a connection to \(event.peerAddress) that no attempt is waiting for")
                disconnect(handle, reason: 0x13)
                return
            }
            connectAttempt = nil
            if let cancellation = attempt.cancellation {
                // The connection won the race with our cancel: the caller gave up, so drop it.
                attempt.continuation.resume(throwing: cancellation)
                disconnect(handle, reason: 0x13)
                return
            }
            attempt.continuation.resume(returning: handle)
            Task { await self.setUpCentralLink(handle) }
        case .peripheral:
            links[handle]?.isReady = true
            peripheralEvents.yield(.centralConnected(peer))
            // Advertising stops when a connection is made; keep advertising as asked.
            if advertisement != nil { issue(advertisingEnable(true), completes: true, "advertising again after a connection") }
        }
    }

    /// A central link's setup: the MTU exchange (as iOS does on every connection), then ready.
    private func setUpCentralLink(_ handle: UInt16) async {
        guard let bearer = links[handle]?.bearer else { return }
        var mtu = 23
        if configuration.attMTU > 23 {
            do {
                if case .mtu(let exchanged) = try await bearer.run(.exchangeMTU(clientMTU: UInt16(configuration.attMTU)), mtu: 23) {
                    mtu = exchanged
                }
            } catch {
                // A peer may refuse the exchange; the link goes on at the default MTU of 23.
                logger.debug("MTU exchange failed; the link stays at MTU 23", metadata: ["error": "\(error)"])
            }
        }
        guard var link = links[handle] else { return }
        if mtu > link.mtu { setMTU(mtu, on: &link) }
        link.isReady = true
        links[handle] = link
        centralEvents.yield(.connected(link.peer))
        if link.mtu > 23 { centralEvents.yield(.mtuChanged(link.peer, mtu: link.mtu)) }
        for waiter in setupWaiters.removeValue(forKey: handle) ?? [] { waiter.resume() }
    }

    /// One MTU for both directions of the bearer (Vol 3 Part F §3.4.2).
    func setMTU(_ mtu: Int, on link: inout HCILink) {
        link.mtu = max(23, min(mtu, configuration.attMTU))
        link.server.setMTU(link.mtu)
    }

    // MARK: Disconnecting

    /// Disconnects a central link or cancels a pending attempt; returns once the controller
    /// reported the end.
    func cancelConnection(_ peer: UUID) async {
        if let attempt = connectAttempt, attempt.peer == peer {
            cancelAttempt(attempt.id, because: .cancelled)
            return
        }
        guard let link = links.values.first(where: { $0.peer == peer }) else { return }
        links[link.handle]?.disconnectRequested = true
        disconnect(link.handle, reason: 0x13)
        await waitUntilClosed(link.handle)
    }

    func disconnect(_ handle: UInt16, reason: UInt8) {
        issue(.disconnect(handle: handle, reason: reason), completes: false, "disconnecting 0x\(hex4(handle))")
    }

    private func waitUntilClosed(_ handle: UInt16) async {
        guard links[handle] != nil else { return }
        await withCheckedContinuation { closeWaiters[handle, default: []].append($0) }
    }

    /// A connection ended (Disconnection Complete, or the radio went off): fail what waits on it
    /// and tell the application.
    func linkClosed(_ handle: UInt16, reason reported: DisconnectReason) {
        guard let link = links.removeValue(forKey: handle) else { return }
        let reason = link.disconnectRequested ? DisconnectReason.localHostTerminated : reported
        let error = BleuError.disconnected(link.peer, reason)
        Task { await link.bearer.close(error) }
        for subscription in link.subscriptions.values {
            for stream in subscription.streams.values { stream.finish(throwing: error) }
        }
        link.indicationTimer?.cancel()
        for waiter in setupWaiters.removeValue(forKey: handle) ?? [] { waiter.resume(throwing: error) }
        for waiter in closeWaiters.removeValue(forKey: handle) ?? [] { waiter.resume() }
        finishProcedure(.connectionUpdate(handle), with: .failure(error))
        finishProcedure(.phyUpdate(handle), with: .failure(error))
        serverLinkClosed(link, error: error)
        channelsClosed(on: handle, error: error)
        switch link.role {
        case .central:
            if link.isReady { centralEvents.yield(.disconnected(link.peer, reason)) }
        case .peripheral:
            for (valueHandle, bits) in link.server.clientConfigurations where bits != 0 {
                if let characteristic = applicationCharacteristic(valueHandle) {
                    peripheralEvents.yield(.unsubscribed(central: link.peer, characteristic: characteristic))
                }
            }
            peripheralEvents.yield(.centralDisconnected(link.peer, reason))
        }
    }

    // MARK: Queries

    func isConnected(_ peer: UUID) -> Bool {
        centralLink(peer)?.isReady ?? false
    }

    func knownPeripherals(_ identifiers: [UUID]) -> [KnownPeripheral] {
        identifiers.compactMap { id in
            peers.entry(id).map { KnownPeripheral(id: id, name: $0.name, isConnected: isConnected(id)) }
        }
    }

    func connectedPeripherals(withServices services: [BluetoothUUID]) -> [KnownPeripheral] {
        links.values.filter { $0.role == .central && $0.isReady }
            .filter { services.isEmpty || !Set(services).isDisjoint(with: $0.discoveredServices) }
            .map { KnownPeripheral(id: $0.peer, name: peers.entry($0.peer)?.name, isConnected: true) }
    }

    /// Reads the connection's RSSI (HCI Read RSSI).
    func readRSSI(_ peer: UUID) async throws -> Int {
        let link = try readyLink(peer)
        let parameters = try await host.execute(.readRSSI(handle: link.handle))
        guard parameters.count >= 4 else { throw BleuError.invalidData("Read RSSI returned \(parameters.count) bytes") }
        return Int(Int8(bitPattern: parameters[3]))
    }
}
