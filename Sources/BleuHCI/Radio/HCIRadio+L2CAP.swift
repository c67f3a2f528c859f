import BleuCore
import Foundation

/// LE signalling and LE credit-based connection-oriented channels: the signalling the channel
/// table calls for, and the waits of channel readers and senders.
extension HCIRadio {
    // MARK: Signalling in

    func signalReceived(_ bytes: [UInt8], on handle: ConnectionHandle) {
        guard let link = connections[handle] else { return }
        guard let signal = try? L2CAPSignal(decoding: bytes), signal.identifier != 0 else {
            answerGenerically(bytes, link: link)
            return
        }
        switch signal.command {
        case let .leCreditBasedConnectionRequest(spsm, sourceCID, mtu, mps, credits):
            let (response, opened) = channels.accept(psm: spsm, remoteCID: sourceCID, mtu: mtu, mps: mps, credits: credits,
                                                     encrypted: (security[handle]?.security.level ?? .unencrypted) > .unencrypted,
                                                     on: handle)
            if let opened {
                events.peripheral.yield(.l2capChannelOpened(HCIL2CAPChannel(psm: spsm, peer: link.peer, key: opened, radio: self)))
            }
            pipeline.send(L2CAPSignal(identifier: signal.identifier, response), on: handle)
        case let .leCreditBasedConnectionResponse(destinationCID, mtu, mps, credits, result):
            guard let open = channels.takeOpen(PendingSignal(handle: handle, identifier: signal.identifier)) else { return }
            guard result == 0 else {
                open.continuation.resume(throwing: Self.channelRefusal(result, psm: open.psm, peer: link.peer))
                return
            }
            switch channels.opened(open, on: handle, destinationCID: destinationCID, mtu: mtu, mps: mps, credits: credits) {
            case .success(let key):
                open.continuation.resume(returning: HCIL2CAPChannel(psm: open.psm, peer: link.peer, key: key, radio: self))
            case .failure(let error):
                open.continuation.resume(throwing: error)
                pipeline.send(L2CAPSignal(identifier: connections.signalIdentifier(on: handle), .disconnectionRequest(
                    destinationCID: destinationCID, sourceCID: open.localCID)), on: handle)
            }
        case let .flowControlCredit(cid, credits):
            guard let key = channels.key(on: handle, remoteCID: cid) else { return }
            do {
                try channels.addCredits(credits, to: key)
            } catch {
                violation(error, on: key)
            }
        case let .disconnectionRequest(destinationCID, sourceCID):
            let key = ChannelKey(handle: handle, cid: destinationCID)
            guard channels.channels[key]?.channel.remoteCID == sourceCID else {
                answerGenerically(bytes, link: link)
                return
            }
            pipeline.send(L2CAPSignal(identifier: signal.identifier, .disconnectionResponse(
                destinationCID: destinationCID, sourceCID: sourceCID)), on: handle)
            channels.end(key, error: nil)
        case .disconnectionResponse:
            break  // we ended the channel when we asked
        case .commandReject:
            if let open = channels.takeOpen(PendingSignal(handle: handle, identifier: signal.identifier)) {
                open.continuation.resume(throwing: BleuError.notSupported(.creditBasedChannels))
            }
        default:
            answerGenerically(bytes, link: link)
        }
    }

    /// Connection parameter updates, rejects of what we do not understand.
    private func answerGenerically(_ bytes: [UInt8], link: HCILink) {
        let reply = LESignalingChannel.reply(to: bytes, isCentral: link.role == .central)
        if let response = reply.response { pipeline.send(response, on: link.handle) }
        if let parameters = reply.connectionUpdate {
            pipeline.issue(.leConnectionUpdate(handle: link.handle.rawValue, parameters), completes: false,
                           "applying the peer's connection parameter update on \(link.handle)")
        }
    }

    // MARK: Peripheral: publishing

    func publishChannel(requiresEncryption: Bool) throws -> UInt16 {
        try requirePoweredOn()
        guard let psm = channels.publish(requiresEncryption: requiresEncryption) else {
            throw BleuError.limitReached(.dynamicPSMs)
        }
        return psm
    }

    func unpublishChannel(_ psm: UInt16) throws {
        guard channels.unpublish(psm) else { throw BleuError.invalidState(.psmNotPublished(psm)) }
    }

    // MARK: Central: opening

    func openChannel(psm: UInt16, on peer: UUID) async throws -> HCIL2CAPChannel {
        let link = try readyLink(peer)
        guard let local = channels.freeCID(on: link.handle) else {
            throw BleuError.limitReached(.channelIdentifiers)
        }
        let identifier = connections.signalIdentifier(on: link.handle)
        let pending = PendingSignal(handle: link.handle, identifier: identifier)
        let timeout = configuration.attTimeout
        // The signalling timeout: owned by this call, cancelled once the peer answered.
        let timer = Task { [weak self, clock] in
            do { try await clock.sleep(for: timeout) } catch { return }
            await self?.channelOpenTimedOut(pending, after: timeout)
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            channels.requested(PendingChannelOpen(psm: psm, localCID: local, continuation: continuation), as: pending)
            pipeline.send(L2CAPSignal(identifier: identifier, .leCreditBasedConnectionRequest(
                spsm: psm, sourceCID: local, mtu: UInt16(channels.localMTU), mps: UInt16(channels.localMPS),
                initialCredits: UInt16(channels.localCredits))), on: link.handle)
        }
    }

    private func channelOpenTimedOut(_ pending: PendingSignal, after timeout: Duration) {
        guard let open = channels.takeOpen(pending) else { return }
        open.continuation.resume(throwing: BleuError.timeout(.openChannel(psm: open.psm), after: timeout))
    }

    static func channelRefusal(_ result: UInt16, psm: UInt16, peer: UUID) -> BleuError {
        switch result {
        case 0x0002: .notSupported(.channelNotPublished(psm: psm))
        case 0x0004: .limitReached(.peerChannelResources)
        case 0x0005, 0x0006, 0x0007, 0x0008: .pairingFailed(.channelSecurity(psm: psm, result: result))
        default: .connectionFailed(peer, reason: .channelRefused(psm: psm, result: result))
        }
    }

    // MARK: Data

    func channelFrameReceived(_ payload: [UInt8], cid: UInt16, on handle: ConnectionHandle) {
        let key = ChannelKey(handle: handle, cid: cid)
        switch channels.receive(payload, for: key) {
        case .ignored, .taken(creditDue: false):
            break
        case .taken(creditDue: true):
            returnCredit(key)
        case let .delivered(sdu, reader):
            returnCredit(key)
            reader.resume(returning: sdu)
        case .violation(let error):
            violation(error, on: key)
        }
    }

    /// Gives the peer one credit back on an open channel.
    private func returnCredit(_ key: ChannelKey) {
        guard channels.grant(1, on: key) else { return }
        pipeline.send(L2CAPSignal(identifier: connections.signalIdentifier(on: key.handle),
                               .flowControlCredit(cid: key.cid, credits: 1)), on: key.handle)
    }

    /// The next SDU for the channel's consumer: `nil` once it closed in order.
    func nextSDU(_ key: ChannelKey) async throws -> Data? {
        switch try channels.nextSDU(key) {
        case .sdu(let next):
            returnCredit(key)
            return next
        case .end(let error?):
            throw error
        case .end(nil):
            return nil
        case .wait:
            return try await withCheckedThrowingContinuation { channels.read(key, $0) }
        }
    }

    func channelSend(_ key: ChannelKey, _ data: Data) async throws {
        let segments = try channels.segments(of: data, on: key)
        if !channels.takeTurn(key) { await withCheckedContinuation { channels.waitForTurn(key, $0) } }
        defer { channels.endTurn(key) }
        for segment in segments {
            while try !channels.spendCredit(key) {
                try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
                    channels.waitForCredit(key, waiter)
                }
            }
            let remote = channels.channels[key]?.channel.remoteCID ?? 0
            try sendChecked(L2CAPBFrame(channelID: remote, payload: segment), on: key.handle)
        }
    }

    /// Closes a channel from this side: Disconnection Request, and the channel ends here at once.
    func channelClose(_ key: ChannelKey) {
        guard let state = channels.channels[key], state.end.isOpen else { return }
        requestDisconnection(of: state.channel, key: key)
        channels.end(key, error: nil)
    }

    /// The peer broke the channel's rules: disconnect it (§10.2), and tell its reader why.
    private func violation(_ error: BleuError.ChannelViolation, on key: ChannelKey) {
        guard let state = channels.channels[key] else { return }
        requestDisconnection(of: state.channel, key: key)
        channels.end(key, error: BleuError.invalidData(.channelProtocolViolation(error)))
    }

    private func requestDisconnection(of channel: CreditBasedChannel, key: ChannelKey) {
        guard connections[key.handle] != nil else { return }
        pipeline.send(L2CAPSignal(identifier: connections.signalIdentifier(on: key.handle), .disconnectionRequest(
            destinationCID: channel.remoteCID, sourceCID: key.cid)), on: key.handle)
    }
}
