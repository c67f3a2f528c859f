import BleuCore
import Foundation

/// LE signalling and LE credit-based connection-oriented channels.
extension HCIRadio {
    /// The dynamic LE PSM range (Vol 3 Part A §4.22): 0x0080–0x00FF.
    static let dynamicPSMs: ClosedRange<UInt16> = 0x0080...0x00FF
    /// The dynamic LE channel identifiers (§2.1): 0x0040–0x007F.
    static let dynamicCIDs: ClosedRange<UInt16> = 0x0040...0x007F

    // MARK: Signalling in

    func signalReceived(_ bytes: [UInt8], on handle: UInt16) {
        guard let link = links[handle] else { return }
        guard let signal = try? L2CAPSignal(decoding: bytes), signal.identifier != 0 else {
            answerGenerically(bytes, link: link)
            return
        }
        switch signal.command {
        case let .leCreditBasedConnectionRequest(spsm, sourceCID, mtu, mps, credits):
            let result = acceptChannel(psm: spsm, remoteCID: sourceCID, mtu: mtu, mps: mps, credits: credits, link: link)
            sendSignal(L2CAPSignal(identifier: signal.identifier, result), on: handle)
        case let .leCreditBasedConnectionResponse(destinationCID, mtu, mps, credits, result):
            guard let pending = pendingChannelOpens.removeValue(forKey: PendingSignal(handle: handle, identifier: signal.identifier))
            else { return }
            guard result == 0 else {
                pending.continuation.resume(throwing: Self.channelRefusal(result, psm: pending.psm, peer: link.peer))
                return
            }
            guard Self.dynamicCIDs.contains(destinationCID), mtu >= 23, (23...65533).contains(mps) else {
                pending.continuation.resume(throwing: BleuError.invalidData(
                    "the peripheral accepted the channel with invalid parameters (CID 0x\(hex4(destinationCID)), MTU \(mtu), MPS \(mps))"))
                sendSignal(L2CAPSignal(identifier: signalIdentifier(on: handle), .disconnectionRequest(
                    destinationCID: destinationCID, sourceCID: pending.localCID)), on: handle)
                return
            }
            let key = ChannelKey(handle: handle, cid: pending.localCID)
            channels[key] = RadioChannel(channel: newChannel(local: pending.localCID, remote: destinationCID,
                                                             remoteMTU: mtu, remoteMPS: mps, credits: credits),
                                         psm: pending.psm, peer: link.peer)
            pending.continuation.resume(returning: HCIL2CAPChannel(psm: pending.psm, peer: link.peer, key: key, radio: self))
        case let .flowControlCredit(cid, credits):
            guard let key = channels.first(where: { $0.key.handle == handle && $0.value.channel.remoteCID == cid })?.key
            else { return }
            do {
                try channels[key]?.channel.addSendCredits(Int(credits))
                let waiters = channels[key]?.creditWaiters ?? []
                channels[key]?.creditWaiters = []
                for waiter in waiters { waiter.resume() }
            } catch {
                violation(error, on: key)
            }
        case let .disconnectionRequest(destinationCID, sourceCID):
            let key = ChannelKey(handle: handle, cid: destinationCID)
            guard channels[key]?.channel.remoteCID == sourceCID else {
                answerGenerically(bytes, link: link)
                return
            }
            sendSignal(L2CAPSignal(identifier: signal.identifier, .disconnectionResponse(
                destinationCID: destinationCID, sourceCID: sourceCID)), on: handle)
            endChannel(key, error: nil)
        case .disconnectionResponse:
            break  // we ended the channel when we asked
        case .commandReject:
            if let pending = pendingChannelOpens.removeValue(forKey: PendingSignal(handle: handle, identifier: signal.identifier)) {
                pending.continuation.resume(throwing: BleuError.notSupported("the peer does not support LE credit-based channels"))
            }
        default:
            answerGenerically(bytes, link: link)
        }
    }

    /// Connection parameter updates, rejects of what we do not understand.
    private func answerGenerically(_ bytes: [UInt8], link: HCILink) {
        let reply = LESignalingChannel.reply(to: bytes, isCentral: link.role == .central)
        if let response = reply.response { sendSignal(response, on: link.handle) }
        if let parameters = reply.connectionUpdate {
            issue(.leConnectionUpdate(handle: link.handle, parameters), completes: false,
                  "applying the peer's connection parameter update on 0x\(hex4(link.handle))")
        }
    }

    /// A fresh signalling identifier for requests on a link.
    func signalIdentifier(on handle: UInt16) -> UInt8 {
        links[handle]?.signalIdentifier() ?? 1
    }

    func sendSignal(_ signal: L2CAPSignal, on handle: UInt16) {
        send(L2CAPBFrame(channelID: L2CAPBFrame.leSignalingCID, payload: signal.encoded), on: handle)
    }

    private func newChannel(local: UInt16, remote: UInt16, remoteMTU: UInt16, remoteMPS: UInt16, credits: UInt16)
        -> CreditBasedChannel {
        CreditBasedChannel(localCID: local, remoteCID: remote, localMTU: configuration.l2capMTU,
                           localMPS: configuration.l2capMPS, remoteMTU: Int(remoteMTU), remoteMPS: Int(remoteMPS),
                           sendCredits: Int(credits), receiveCredits: configuration.l2capCredits)
    }

    private func freeCID(on handle: UInt16) -> UInt16? {
        let used = Set(channels.keys.filter { $0.handle == handle }.map(\.cid))
            .union(pendingChannelOpens.filter { $0.key.handle == handle }.map(\.value.localCID))
        return Self.dynamicCIDs.first { !used.contains($0) }
    }

    // MARK: Peripheral: accepting

    /// Answers a peer's connection request (Vol 3 Part A §4.23).
    private func acceptChannel(psm: UInt16, remoteCID: UInt16, mtu: UInt16, mps: UInt16, credits: UInt16,
                               link: HCILink) -> L2CAPSignal.Command {
        func refuse(_ result: UInt16) -> L2CAPSignal.Command {
            .leCreditBasedConnectionResponse(destinationCID: 0, mtu: 0, mps: 0, initialCredits: 0, result: result)
        }
        guard let requiresEncryption = publishedPSMs[psm] else { return refuse(0x0002) }  // SPSM not supported
        guard !requiresEncryption else { return refuse(0x0008) }  // insufficient encryption: no pairing yet
        guard Self.dynamicCIDs.contains(remoteCID) else { return refuse(0x0009) }  // invalid source CID
        guard !channels.contains(where: { $0.key.handle == link.handle && $0.value.channel.remoteCID == remoteCID }) else {
            return refuse(0x000A)  // source CID already allocated
        }
        guard mtu >= 23, (23...65533).contains(mps) else { return refuse(0x000B) }  // unacceptable parameters
        guard let local = freeCID(on: link.handle) else { return refuse(0x0004) }  // no resources
        let key = ChannelKey(handle: link.handle, cid: local)
        channels[key] = RadioChannel(channel: newChannel(local: local, remote: remoteCID, remoteMTU: mtu, remoteMPS: mps,
                                                         credits: credits), psm: psm, peer: link.peer)
        peripheralEvents.yield(.l2capChannelOpened(HCIL2CAPChannel(psm: psm, peer: link.peer, key: key, radio: self)))
        return .leCreditBasedConnectionResponse(destinationCID: local, mtu: UInt16(configuration.l2capMTU),
                                                mps: UInt16(configuration.l2capMPS),
                                                initialCredits: UInt16(configuration.l2capCredits), result: 0)
    }

    func publishChannel(requiresEncryption: Bool) throws -> UInt16 {
        try requirePoweredOn()
        guard let psm = Self.dynamicPSMs.first(where: { publishedPSMs[$0] == nil }) else {
            throw BleuError.limitReached("every dynamic PSM (0x0080–0x00FF) is published")
        }
        publishedPSMs[psm] = requiresEncryption
        return psm
    }

    func unpublishChannel(_ psm: UInt16) throws {
        guard publishedPSMs.removeValue(forKey: psm) != nil else {
            throw BleuError.invalidState("PSM 0x\(hex4(psm)) is not published")
        }
    }

    // MARK: Central: opening

    func openChannel(psm: UInt16, on peer: UUID) async throws -> HCIL2CAPChannel {
        let link = try readyLink(peer)
        guard let local = freeCID(on: link.handle) else {
            throw BleuError.limitReached("every LE channel identifier on this connection is in use")
        }
        let identifier = signalIdentifier(on: link.handle)
        let pending = PendingSignal(handle: link.handle, identifier: identifier)
        let timeout = configuration.attTimeout
        return try await withCheckedThrowingContinuation { continuation in
            pendingChannelOpens[pending] = PendingChannelOpen(psm: psm, localCID: local, continuation: continuation)
            sendSignal(L2CAPSignal(identifier: identifier, .leCreditBasedConnectionRequest(
                spsm: psm, sourceCID: local, mtu: UInt16(configuration.l2capMTU), mps: UInt16(configuration.l2capMPS),
                initialCredits: UInt16(configuration.l2capCredits))), on: link.handle)
            Task { [weak self, clock] in
                try? await clock.sleep(for: timeout)
                await self?.channelOpenTimedOut(pending)
            }
        }
    }

    private func channelOpenTimedOut(_ pending: PendingSignal) {
        pendingChannelOpens.removeValue(forKey: pending)?.continuation.resume(throwing: BleuError.timeout(
            operation: "opening an L2CAP channel (no answer from the peripheral)"))
    }

    static func channelRefusal(_ result: UInt16, psm: UInt16, peer: UUID) -> BleuError {
        switch result {
        case 0x0002: .notSupported("the peripheral has no L2CAP channel published on PSM 0x\(hex4(psm))")
        case 0x0004: .limitReached("the peripheral has no resources for another L2CAP channel")
        case 0x0005, 0x0006, 0x0007, 0x0008:
            .pairingFailed("the peripheral's channel on PSM 0x\(hex4(psm)) needs a secure link (result 0x\(hex4(result)))")
        default: .connectionFailed(peer, reason: "the peripheral refused the L2CAP channel (result 0x\(hex4(result)))")
        }
    }

    // MARK: Data

    func channelFrameReceived(_ payload: [UInt8], cid: UInt16, on handle: UInt16) {
        let key = ChannelKey(handle: handle, cid: cid)
        guard var state = channels[key], state.end.isOpen else { return }
        do {
            // A K-frame that does not end an SDU gets its credit back at once (the partial SDU is
            // bounded by our MTU); the one that ends it, once the application took the SDU — so
            // complete SDUs waiting for the application are bounded by our credits.
            guard let (sdu, _) = try state.channel.receive(payload) else {
                channels[key] = state
                returnCredits(1, key: key)
                return
            }
            if let reader = state.reader {
                state.reader = nil
                channels[key] = state
                returnCredits(1, key: key)
                reader.resume(returning: Data(sdu))
            } else {
                state.sdus.append(Data(sdu))
                channels[key] = state
            }
        } catch {
            channels[key] = state
            violation(error, on: key)
        }
    }

    private func returnCredits(_ credits: Int, key: ChannelKey) {
        guard credits > 0, var state = channels[key], state.end.isOpen else { return }
        state.channel.grantReceiveCredits(credits)
        channels[key] = state
        sendSignal(L2CAPSignal(identifier: signalIdentifier(on: key.handle),
                               .flowControlCredit(cid: key.cid, credits: UInt16(credits))), on: key.handle)
    }

    /// The next SDU for the channel's consumer: `nil` once it closed in order.
    func nextSDU(_ key: ChannelKey) async throws -> Data? {
        guard var state = channels[key] else { return nil }
        if !state.sdus.isEmpty {
            let next = state.sdus.removeFirst()
            channels[key] = state
            returnCredits(1, key: key)
            return next
        }
        switch state.end {
        case .open: break
        case .closed:
            channels[key] = nil
            return nil
        case .failed(let error):
            channels[key] = nil
            throw error
        }
        guard state.reader == nil else { throw BleuError.invalidState("an L2CAP channel's incoming data has one reader") }
        return try await withCheckedThrowingContinuation { continuation in
            state.reader = continuation
            channels[key] = state
        }
    }

    func channelSend(_ key: ChannelKey, _ data: Data) async throws {
        guard let state = channels[key], state.end.isOpen else { throw BleuError.invalidState("the L2CAP channel is closed") }
        guard let segments = state.channel.segments(of: Array(data)) else {
            throw BleuError.valueTooLong(length: data.count, maximum: state.channel.remoteMTU)
        }
        if state.sending { await withCheckedContinuation { channels[key]?.sendWaiters.append($0) } }
        channels[key]?.sending = true
        defer {
            if var state = channels[key] {
                if state.sendWaiters.isEmpty { state.sending = false } else { state.sendWaiters.removeFirst().resume() }
                channels[key] = state
            }
        }
        for segment in segments {
            while true {
                guard var state = channels[key], state.end.isOpen else { throw channelEndError(key) }
                if state.channel.spendCredit() {
                    channels[key] = state
                    break
                }
                try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
                    channels[key]?.creditWaiters.append(waiter)
                }
            }
            let remote = channels[key]?.channel.remoteCID ?? 0
            try await sendChecked(L2CAPBFrame(channelID: remote, payload: segment), on: key.handle)
        }
    }

    private func channelEndError(_ key: ChannelKey) -> any Error {
        if case .failed(let error) = channels[key]?.end { return error }
        return BleuError.invalidState("the L2CAP channel is closed")
    }

    /// Closes a channel from this side: Disconnection Request, and the channel ends here at once.
    func channelClose(_ key: ChannelKey) {
        guard let state = channels[key], state.end.isOpen else { return }
        if links[key.handle] != nil {
            sendSignal(L2CAPSignal(identifier: signalIdentifier(on: key.handle), .disconnectionRequest(
                destinationCID: state.channel.remoteCID, sourceCID: key.cid)), on: key.handle)
        }
        endChannel(key, error: nil)
    }

    /// The peer broke the channel's rules: disconnect it (§10.2), and tell its reader why.
    private func violation(_ error: any Error, on key: ChannelKey) {
        guard let state = channels[key] else { return }
        if links[key.handle] != nil {
            sendSignal(L2CAPSignal(identifier: signalIdentifier(on: key.handle), .disconnectionRequest(
                destinationCID: state.channel.remoteCID, sourceCID: key.cid)), on: key.handle)
        }
        endChannel(key, error: BleuError.invalidData("L2CAP channel closed: \(error)"))
    }

    /// Ends a channel: waiting senders fail, the reader gets what is buffered, then the end.
    func endChannel(_ key: ChannelKey, error: (any Error)?) {
        guard var state = channels[key], state.end.isOpen else { return }
        state.end = error.map { .failed($0) } ?? .closed
        let waiters = state.creditWaiters
        state.creditWaiters = []
        let reader = state.reader
        state.reader = nil
        channels[key] = state
        let failure = error ?? BleuError.invalidState("the L2CAP channel is closed")
        for waiter in waiters { waiter.resume(throwing: failure) }
        if let reader {
            channels[key] = nil
            if let error { reader.resume(throwing: error) } else { reader.resume(returning: nil) }
        }
    }

    /// A link went down: its channels end with `error`, its pending opens fail.
    func channelsClosed(on handle: UInt16, error: BleuError) {
        for key in channels.keys where key.handle == handle { endChannel(key, error: error) }
        for (pending, open) in pendingChannelOpens where pending.handle == handle {
            pendingChannelOpens[pending] = nil
            open.continuation.resume(throwing: error)
        }
    }
}
