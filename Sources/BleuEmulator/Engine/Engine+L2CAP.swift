import BleuATT
import BleuCore
import DequeModule
import Foundation

extension Engine {
    /// Publishes a channel on the lowest free dynamic LE PSM (0x0080–0x00FF).
    mutating func publishChannel(peripheral key: PeripheralKey, requiresEncryption: Bool) throws(BleuError) -> UInt16 {
        guard let node = peripherals[key] else { throw .invalidState(.managerGone) }
        guard let psm = (UInt16(0x0080)...UInt16(0x00FF)).first(where: { node.psms[$0] == nil }) else {
            throw .limitReached(.dynamicPSMs)
        }
        peripherals[key]?.psms[psm] = requiresEncryption
        return psm
    }

    mutating func unpublishChannel(peripheral key: PeripheralKey, psm: UInt16) throws(BleuError) {
        guard peripherals[key]?.psms.removeValue(forKey: psm) != nil else {
            throw .invalidState(.psmNotPublished(psm))
        }
    }

    /// A central asks to open a channel; the operation completes with it, or fails.
    mutating func openChannel(psm: UInt16, on linkID: LinkID, operation: OperationID) {
        guard var link = links[linkID] else { return fail(operation, BleuError.cancelled) }
        let id = channels.allocate()
        let identifier = link.nextSignalIdentifier
        link.nextSignalIdentifier = link.nextSignalIdentifier == 255 ? 1 : link.nextSignalIdentifier + 1
        links[linkID] = link
        let l2cap = configuration.l2cap
        let end = BusChannel.End(credits: 0, peerMTU: 0, peerMPS: 0)
        channels[id] = BusChannel(id: id, link: linkID, psm: psm, opener: operation, identifier: identifier, ends: BusChannel.Ends(central: end, peripheral: end))
        send(LinkPacket(direction: .centralToPeripheral,
                        payload: .signaling(.connectionRequest(identifier: identifier, psm: psm, channel: id, mtu: l2cap.mtu,
                                                               mps: l2cap.mps, credits: l2cap.initialCredits))),
             on: linkID)
    }

    mutating func retryChannelOpen(_ id: ChannelID) {
        guard let channel = channels[id], !channel.isOpen else { return }
        let l2cap = configuration.l2cap
        send(LinkPacket(direction: .centralToPeripheral,
                        payload: .signaling(.connectionRequest(identifier: channel.identifier, psm: channel.psm, channel: id,
                                                               mtu: l2cap.mtu, mps: l2cap.mps, credits: l2cap.initialCredits))),
             on: channel.link)
    }

    mutating func failChannelOpen(_ id: ChannelID, _ error: any Error) {
        guard let channel = channels.removeValue(forKey: id) else { return }
        if let opener = channel.opener { fail(opener, error) }
    }

    mutating func signalReceived(_ signal: ChannelSignal, direction: RadioSchedule.Direction, on linkID: LinkID) {
        switch signal {
        case .connectionRequest(let identifier, let psm, let id, let mtu, let mps, let credits):
            connectionRequested(identifier: identifier, psm: psm, channel: id, mtu: mtu, mps: mps, credits: credits, on: linkID)
        case .connectionResponse(_, let id, let mtu, let mps, let credits, let result):
            connectionAnswered(channel: id, mtu: mtu, mps: mps, credits: credits, result: result)
        case .credits(let id, let count):
            let side = ChannelSide(receiving: direction)
            guard channels[id] != nil else { return }
            channels[id]?.ends[side].credits += count
            pumpChannel(id, side: side)
        case .disconnectionRequest(let id):
            let side = ChannelSide(receiving: direction)
            peerClosed(id, side: side)
        }
    }

    /// The peripheral side answers a connection request: PSM published, security enough, accepted.
    private mutating func connectionRequested(identifier: UInt8, psm: UInt16, channel id: ChannelID, mtu: Int, mps: Int, credits: Int,
                                              on linkID: LinkID) {
        guard let link = links[linkID], let node = peripherals[link.peripheral], channels[id] != nil else { return }
        let l2cap = configuration.l2cap
        func respond(_ result: UInt16) {
            send(LinkPacket(direction: .peripheralToCentral,
                            payload: .signaling(.connectionResponse(identifier: identifier, channel: id, mtu: l2cap.mtu, mps: l2cap.mps,
                                                                    credits: l2cap.initialCredits, result: result))),
                 on: linkID)
        }
        guard let requiresEncryption = node.psms[psm] else { return respond(0x0002) }
        if requiresEncryption, link.security < .encrypted { return respond(0x0008) }
        channels[id]?.ends[ChannelSide.peripheral].credits = credits
        channels[id]?.ends[ChannelSide.peripheral].peerMTU = mtu
        channels[id]?.ends[ChannelSide.peripheral].peerMPS = mps
        let input = newStream(.channel(id, side: ChannelSide.peripheral), limit: l2cap.initialCredits)
        channels[id]?.ends[ChannelSide.peripheral].input = input
        respond(0x0000)
        if let channel = hooks.makeChannel(id, ChannelSide.peripheral, psm, link.centralID, input) {
            node.hub.yield(.l2capChannelOpened(channel))
        }
    }

    private mutating func connectionAnswered(channel id: ChannelID, mtu: Int, mps: Int, credits: Int, result: UInt16) {
        guard let channel = channels[id], let link = links[channel.link] else { return }
        switch result {
        case 0x0000:
            channels[id]?.isOpen = true
            channels[id]?.ends[ChannelSide.central].credits = credits
            channels[id]?.ends[ChannelSide.central].peerMTU = mtu
            channels[id]?.ends[ChannelSide.central].peerMPS = mps
            let input = newStream(.channel(id, side: ChannelSide.central), limit: configuration.l2cap.initialCredits)
            channels[id]?.ends[ChannelSide.central].input = input
            channels[id]?.opener = nil
            if let opener = channel.opener { succeed(opener, .channel(id, input: input)) }
        case 0x0008 where configuration.pairing.pairsOnInsufficientSecurity && link.security < .encrypted:
            startSecurity(on: channel.link, required: .encrypted, resumption: .channelOpen(id))
        case 0x0008:
            failChannelOpen(id, BleuError.att(.insufficientEncryption))
        default:
            failChannelOpen(id, BleuError.notSupported(.channelNotPublished(psm: channel.psm)))
        }
    }

    // MARK: Data

    /// Queues an SDU; the operation completes once all of its K-frames got credits and went out.
    mutating func channelSend(_ sdu: Data, channel id: ChannelID, side: ChannelSide, operation: OperationID) throws(BleuError) {
        guard let channel = channels[id], !channel.ends[side].closed, channel.ends[side.peer].closed == false else {
            throw .invalidState(.channelClosed)
        }
        let end = channel.ends[side]
        guard sdu.count <= end.peerMTU else { throw .valueTooLong(length: sdu.count, maximum: end.peerMTU) }
        channels[id]?.ends[side].outgoing.append((sdu, sdu.count + 2, operation))
        pumpChannel(id, side: side)
    }

    /// Sends K-frames while the end has credits.
    private mutating func pumpChannel(_ id: ChannelID, side: ChannelSide) {
        while let link = channels[id]?.link, let frame = channels[id]?.ends[side].takeKFrame() {
            send(LinkPacket(direction: side.sending, payload: .kframe(channel: id, length: frame.length, sdu: frame.finished?.sdu)),
                 on: link)
            if let finished = frame.finished { succeed(finished.waiter) }
        }
    }

    /// A K-frame arrived. The receiver reassembles SDUs: a frame that does not end one frees
    /// its buffer at once (its credit goes back); the frame that ends one holds its credit
    /// until the application takes the SDU, so the input never holds more SDUs than credits.
    mutating func kframeReceived(channel id: ChannelID, length: Int, sdu: Data?, direction: RadioSchedule.Direction) {
        let side = ChannelSide(receiving: direction)
        guard let channel = channels[id], !channel.ends[side].closed, let input = channel.ends[side].input else { return }
        guard let sdu else {
            send(LinkPacket(direction: direction == .centralToPeripheral ? .peripheralToCentral : .centralToPeripheral,
                            payload: .signaling(.credits(channel: id, count: 1))), on: channel.link)
            return
        }
        channels[id]?.ends[side].heldCredits += 1
        push(.data(sdu), to: input)
    }

    /// The application took an SDU: its K-frames' credits go back to the sender.
    mutating func channelInputConsumed(_ id: ChannelID, side: ChannelSide) {
        guard let channel = channels[id], channel.ends[side].heldCredits > 0 else { return }
        channels[id]?.ends[side].heldCredits -= 1
        guard !channel.ends[side].closed, links[channel.link] != nil else { return }
        send(LinkPacket(direction: side.sending, payload: .signaling(.credits(channel: id, count: 1))), on: channel.link)
    }

    // MARK: Closing

    /// Closes a channel from one end (`side`), or, with `side` `nil`, because the link is gone
    /// (`error` for the central's end, `peripheralError` for the peripheral's).
    mutating func closeChannel(_ id: ChannelID, side: ChannelSide?, error: (any Error)? = nil, peripheralError: (any Error)? = nil) {
        guard let channel = channels[id] else { return }
        guard let side else {
            channels.removeValue(forKey: id)
            if let opener = channel.opener { fail(opener, error ?? BleuError.cancelled) }
            for end in [ChannelSide.central, ChannelSide.peripheral] {
                let endError = end == ChannelSide.central ? error : (peripheralError ?? error)
                let error = endError ?? BleuError.invalidState(.channelClosed)
                endChannelEnd(channel.ends[end], sendError: error, inputError: error)
            }
            return
        }
        guard !channel.ends[side].closed else { return }
        channels[id]?.ends[side].closed = true
        endChannelEnd(channel.ends[side], sendError: BleuError.invalidState(.channelClosed), inputError: nil)
        if links[channel.link] != nil, channel.isOpen {
            send(LinkPacket(direction: side.sending, payload: .signaling(.disconnectionRequest(channel: id))), on: channel.link)
        } else {
            channels.removeValue(forKey: id)
        }
        if channels[id]?.ends.allSatisfy(\.closed) == true {
            channels.removeValue(forKey: id)
        }
    }

    /// The peer closed its end: this end's input ends after what it holds and its sends fail.
    private mutating func peerClosed(_ id: ChannelID, side: ChannelSide) {
        guard let channel = channels[id] else { return }
        channels[id]?.ends[side].closed = true
        endChannelEnd(channel.ends[side], sendError: BleuError.invalidState(.channelClosedByPeer), inputError: nil)
        channels.removeValue(forKey: id)
    }

    /// Fails an end's pending sends with `sendError` and ends its input with `inputError`
    /// (`nil`: normally, after what it holds).
    private mutating func endChannelEnd(_ end: BusChannel.End, sendError: any Error, inputError: (any Error)?) {
        for pending in end.outgoing { fail(pending.waiter, sendError) }
        if let input = end.input { endStream(input, error: inputError) }
    }
}
