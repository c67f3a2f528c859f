import BleuATT
import BleuCore
import Foundation

/// Connecting, and each link's life in both roles: what the concerns keep per link starts
/// with the LE Connection Complete and ends with the Disconnection Complete.
extension HCIRadio {
    // MARK: Central: connecting

    /// Connects to a peripheral this radio knows and returns once the link is usable (MTU
    /// exchanged). See ``BleuCore/CentralManager/connect(_:timeout:)``.
    func connect(_ peer: UUID, timeout: Duration?) async throws {
        try requirePoweredOn()
        if let link = connections.centralLink(to: peer), link.isReady { return }
        guard let entry = connections.peers.entry(peer) else { throw BleuError.peripheralNotFound(peer) }
        if let handle = connections.centralLink(to: peer)?.handle {  // set up by another caller right now
            try await waitForSetup(handle, of: peer)
            return
        }
        guard connections.count < configuration.maxConnections else {
            throw BleuError.limitReached(.connections(configuration.maxConnections))
        }
        if !connections.takeSlot() { await withCheckedContinuation { connections.waitForSlot($0) } }
        defer { connections.releaseSlot() }
        if let link = connections.centralLink(to: peer) {  // connected while we waited for the slot
            if !link.isReady { try await waitForSetup(link.handle, of: peer) }
            return
        }
        try requirePoweredOn()
        if Task.isCancelled { throw BleuError.cancelled }
        let create: HCICommand = setup.usesExtendedCommands
            ? .leExtendedCreateConnection(filterPolicy: 0, ownAddressType: setup.ownAddressType, peerAddressType: entry.type,
                                          peerAddress: entry.address, phys: .le1M,
                                          [LEInitiatingPHY(connection: configuration.connectionParameters)])
            : .leCreateConnection(LECreateConnectionParameters(peerAddressType: entry.type, peerAddress: entry.address,
                                                               ownAddressType: setup.ownAddressType,
                                                               connection: configuration.connectionParameters))
        let id = connections.nextAttemptID()
        // The attempt's deadline: owned by this call, cancelled once the attempt ended.
        let deadline = timeout.map { timeout in
            Task { [weak self, clock] in
                do { try await clock.sleep(for: timeout) } catch { return }
                await self?.cancelAttempt(id, because: .connectionTimeout(peer))
            }
        }
        let pipeline = self.pipeline
        let handle: ConnectionHandle
        do {
            defer { deadline?.cancel() }
            handle = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    connections.begin(ConnectAttempt(id: id, peer: peer, address: entry.address, continuation: continuation))
                    logger.debug("connecting to \(entry.address) (\(entry.type))")
                    spawn { radio in
                        do {
                            _ = try await radio.host.send(create)
                        } catch {
                            radio.connections.failAttempt(id, Self.connectionFailure(error, peer: peer))
                        }
                    }
                }
            } onCancel: {
                pipeline.post(.cancelAttempt(id))
            }
        }
        try await waitForSetup(handle, of: peer)
    }

    /// Cancels the running attempt to `peer` (LE Create Connection Cancel); the controller then
    /// reports the attempt's end, and the caller gets `error`.
    func cancelAttempt(_ id: UInt64, because reason: BleuError) {
        guard let attempt = connections.cancelAttempt(id, because: reason) else { return }
        logger.debug("cancelling the connection attempt to \(attempt.address): \(reason)")
        spawn { radio in
            do {
                _ = try await radio.host.execute(.leCreateConnectionCancel)
                // A controller reports the attempt's end (LE Connection Complete, Unknown Connection
                // Identifier) at once; one that does not (Bumble's) must not hold the caller. A
                // cancelled wait (the radio stopping) ends it at once.
                try? await radio.clock.sleep(for: .seconds(2))
                radio.connections.failAttempt(id, reason)
            } catch {
                // Nothing to cancel (the connection completed at the same moment), or no controller.
                radio.connections.failAttempt(id, reason)
            }
        }
    }

    /// Waits until a new central link finished its setup (or failed).
    private func waitForSetup(_ handle: ConnectionHandle, of peer: UUID) async throws {
        guard let link = connections[handle] else { throw BleuError.notConnected(peer) }
        if link.isReady { return }
        try await withCheckedThrowingContinuation { connections.waitForSetup(handle, $0) }
    }

    /// The central link to `peer`, ready for use, or the error saying why there is none.
    func readyLink(_ peer: UUID) throws -> HCILink {
        try requirePoweredOn()
        guard let link = connections.centralLink(to: peer), link.isReady else { throw BleuError.notConnected(peer) }
        return link
    }

    // MARK: Both roles: a link's life

    func connectionComplete(_ event: LEConnectionComplete) {
        let role: HCILink.Role = event.role == .central ? .central : .peripheral
        guard event.status == 0 else {
            if role == .central { connections.attemptFailed(status: event.status) }
            return
        }
        let peer = identifyPeer(event.peerAddress, type: event.peerAddressType)
        let handle = ConnectionHandle(event.handle)
        // The bearer's PDUs go straight onto the pipeline's frame lane (a yield, no hop); once
        // the link closes, the bearer is closed too and sends nothing more.
        let pipeline = self.pipeline
        let bearer = ATTBearer(clock: clock, timeout: configuration.attTimeout) { bytes in
            pipeline.send(L2CAPBFrame(channelID: L2CAPBFrame.attCID, payload: bytes), on: handle)
        }
        let link = HCILink(handle: handle, role: role, peer: peer, address: event.peerAddress,
                           addressType: event.peerAddressType, localAddress: setup.address, bearer: bearer)
        server.linkOpened(handle, peer: peer, maxMTU: configuration.attMTU, minimumKeySize: configuration.security.minimumKeySize)
        security.linkOpened(handle, role: role == .central ? .initiator : .responder)
        client.linkOpened(handle)
        linkLayer.linkOpened(handle, HCILinkParameters(interval: event.interval, latency: event.latency,
                                                       supervisionTimeout: event.supervisionTimeout))
        if configuration.requestsDataLengthExtension, setup.supportsDataLengthExtension {
            // Best effort: a controller that refuses it or never answers changes nothing.
            pipeline.issue(.leSetDataLength(handle: handle.rawValue, txOctets: 251, txTime: .packetTime(octets: 251)),
                           completes: true, "asking for Data Length Extension on \(handle)")
        }
        switch connections.admit(link) {
        case .unwanted:
            // No attempt of ours asked for this one (a controller that completed an attempt we
            // had cancelled): nobody will use it.
            logger.notice("dropping a connection to \(event.peerAddress) that no attempt is waiting for")
            disconnect(handle, reason: 0x13)
        case .abandoned:
            disconnect(handle, reason: 0x13)
        case .awaitingSetup:
            spawn { radio in await radio.setUpCentralLink(handle) }
        case .ready:
            events.peripheral.yield(.centralConnected(peer))
            // Advertising stops when a connection is made; keep advertising as asked.
            if advertiser.isAdvertising {
                pipeline.issue(RadioAdvertiser.enable(true, extended: setup.usesExtendedCommands), completes: true,
                               "advertising again after a connection")
            }
        }
    }

    /// A central link's setup: the MTU exchange (as iOS does on every connection), then ready.
    private func setUpCentralLink(_ handle: ConnectionHandle) async {
        guard let bearer = connections[handle]?.bearer else { return }
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
        guard let current = connections[handle] else { return }
        if mtu > current.mtu {
            // One MTU for both directions of the bearer (Vol 3 Part F §3.4.2).
            let mtu = max(23, min(mtu, configuration.attMTU))
            connections.setMTU(mtu, on: handle)
            server.setMTU(mtu, on: handle)
        }
        guard let link = connections.setReady(handle) else { return }
        events.central.yield(.connected(link.peer))
        if link.mtu > 23 { events.central.yield(.mtuChanged(link.peer, mtu: link.mtu)) }
        connections.setupFinished(handle)
    }

    /// Disconnects a central link or cancels a pending attempt; returns once the controller
    /// reported the end.
    func cancelConnection(_ peer: UUID) async {
        if let attempt = connections.attempt, attempt.peer == peer {
            cancelAttempt(attempt.id, because: .cancelled)
            return
        }
        guard let link = connections.anyLink(to: peer) else { return }
        connections.markDisconnectRequested(link.handle)
        disconnect(link.handle, reason: 0x13)
        guard connections[link.handle] != nil else { return }
        await withCheckedContinuation { connections.waitUntilClosed(link.handle, $0) }
    }

    func disconnect(_ handle: ConnectionHandle, reason: UInt8) {
        pipeline.issue(.disconnect(handle: handle.rawValue, reason: reason), completes: false, "disconnecting \(handle)")
    }

    /// A connection ended (Disconnection Complete, or the radio went off): every concern lets go
    /// of the link, what waits on it fails, and the application hears of it.
    func linkClosed(_ handle: ConnectionHandle, reason reported: DisconnectReason) {
        guard let link = connections.remove(handle) else { return }
        let reason = link.disconnectRequested ? DisconnectReason.localHostTerminated : reported
        let error = BleuError.disconnected(link.peer, reason)
        link.bearer.close(error)
        client.linkClosed(handle, error: error)
        connections.releaseWaiters(of: handle, failingSetupWith: error)
        linkLayer.linkClosed(handle, error: error)
        let (configurations, ready) = server.linkClosed(handle)
        if ready { events.peripheral.yield(.readyToUpdateSubscribers) }
        channels.linkClosed(handle, error: error)
        security.linkClosed(handle, error: error)
        switch link.role {
        case .central:
            if link.isReady { events.central.yield(.disconnected(link.peer, reason)) }
        case .peripheral:
            for (valueHandle, bits) in configurations where bits != 0 {
                if let characteristic = server.applicationCharacteristic(valueHandle) {
                    events.peripheral.yield(.unsubscribed(central: link.peer, characteristic: characteristic))
                }
            }
            events.peripheral.yield(.centralDisconnected(link.peer, reason))
        }
    }

    // MARK: Queries

    func isConnected(_ peer: UUID) -> Bool {
        connections.isConnected(peer)
    }

    func knownPeripherals(_ identifiers: [UUID]) -> [KnownPeripheral] {
        identifiers.compactMap { id in
            connections.peers.entry(id).map { KnownPeripheral(id: id, name: $0.name, isConnected: isConnected(id)) }
        }
    }

    func connectedPeripherals(withServices services: [BluetoothUUID]) -> [KnownPeripheral] {
        connections.all.filter { $0.role == .central && $0.isReady && client.offers(services, on: $0.handle) }
            .map { KnownPeripheral(id: $0.peer, name: connections.peers.entry($0.peer)?.name, isConnected: true) }
    }

    /// Reads the connection's RSSI (HCI Read RSSI).
    func readRSSI(_ peer: UUID) async throws -> Int {
        let link = try readyLink(peer)
        let parameters = try await host.execute(.readRSSI(handle: link.handle.rawValue))
        guard parameters.count >= 4 else { throw BleuError.invalidData(.commandResult(opcode: HCIOpcode.readRSSI.rawValue, length: parameters.count)) }
        return Int(Int8(bitPattern: parameters[3]))
    }

    /// What a connection attempt whose LE Create Connection command failed ends with: the
    /// controller's refusal as ``/BleuCore/BleuError/ConnectionFailure/commandRejected(status:)``,
    /// any other failure of the host (a timeout, a closed transport) as it is.
    static func connectionFailure(_ error: any Error, peer: UUID) -> any Error {
        guard case .commandFailed(_, let status)? = error as? HCIHostError else { return error }
        return BleuError.connectionFailed(peer, reason: .commandRejected(status: status.rawValue))
    }
}
