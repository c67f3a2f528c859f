import BleuATT
import BleuCore
import Foundation

/// Moving packets over links: at once and in order with instant timing, at the end of their
/// air time on the central's radio schedule with realistic timing.
extension Engine {
    /// Sends a packet over a link. A lost link swallows it; an injected link loss happens here.
    mutating func send(_ packet: LinkPacket, on linkID: LinkID) {
        guard let link = links[linkID], link.lostAt == nil else { return }
        if chance.fault(configuration.faults.linkLoss) {
            record(.fault, link: linkID, "link loss injected (seed \(seed))")
            loseLink(linkID)
            return
        }
        guard isRealistic else {
            instant.append(packet, on: linkID)
            drainInstantQueue()
            return
        }
        let encrypted = link.security > .unencrypted
        let payloads = packet.isL2CAP
            ? AirTime.fragments(l2capLength: packet.linkLayerLength, dataLength: configuration.dataLength)
            : [packet.linkLayerLength]
        var airStart: Duration?
        var end = now
        for payload in payloads {
            let exchange = AirTime.exchange(payload: payload, phy: configuration.phy, encrypted: encrypted)
            let start = centrals[link.central]?.radio.place(exchange: exchange, on: linkID.rawValue,
                                                           direction: packet.direction, at: now) ?? now
            airStart = airStart ?? start
            end = start + exchange
        }
        schedule(.deliver(link: linkID, packet: packet, airStart: airStart ?? now), at: end)
    }

    /// Delivers queued instant packets in order. Re-entrant calls return at once: the outer
    /// loop delivers what they queued, so a chain of answers never recurses.
    mutating func drainInstantQueue() {
        guard instant.beginDraining() else { return }
        while let (link, packet) = instant.next() {
            deliver(packet, on: link, airStart: nil)
        }
    }

    /// A packet arrives at the other end of the link.
    mutating func deliver(_ packet: LinkPacket, on linkID: LinkID, airStart: Duration?) {
        guard let link = links[linkID], link.lostAt == nil else { return }
        recordDelivery(packet, on: linkID, airStart: airStart)
        let sender: ExternalRole = packet.direction == .centralToPeripheral ? .central : .peripheral
        let receiver: ExternalRole = sender == .central ? .peripheral : .central
        if case .l2cap(_, _, let receipt?) = packet.payload {
            externalHost(of: linkID, sender)?.deliver(.sent(link: linkID.rawValue, receipt: receipt))
        }
        if case .encryption(let step) = packet.payload, link.externalEncryption != nil {
            return externalEncryptionReceived(step, direction: packet.direction, on: linkID)
        }
        if let host = externalHost(of: linkID, receiver) {
            return deliverExternally(packet, to: host, on: linkID)
        }
        switch packet.payload {
        case .att(let pdu):
            if packet.direction == .centralToPeripheral {
                serverReceive(pdu, on: linkID)
            } else {
                clientReceive(pdu, on: linkID)
            }
        case .smp(let message):
            pairingReceived(message, on: linkID)
        case .encryption(let step):
            encryptionReceived(step, on: linkID)
        case .signaling(let signal):
            signalReceived(signal, direction: packet.direction, on: linkID)
        case .kframe(let channel, let length, let sdu):
            kframeReceived(channel: channel, length: length, sdu: sdu, direction: packet.direction)
        case .l2cap(let channel, let payload, _):
            emulatedEndReceived(channel: channel, payload: payload, direction: packet.direction, on: linkID)
        case .terminate(let code):
            terminationReceived(code, direction: packet.direction, on: linkID)
        }
    }

    private mutating func recordDelivery(_ packet: LinkPacket, on link: LinkID, airStart: Duration?) {
        guard isTracing else { return }
        let direction = packet.direction
        switch packet.payload {
        case .att(let pdu):
            record(.att, link: link, direction: direction, airStart: airStart, opcode: pdu.opcode.rawValue, handle: pdu.handle,
                   length: pdu.encodedLength, pdu.name, pdu: pdu.encoded)
        case .smp(let message):
            record(.smp, link: link, direction: direction, airStart: airStart, opcode: message.code.rawValue,
                   length: message.length, message.name)
        case .encryption(let step):
            record(.linkControl, link: link, direction: direction, airStart: airStart, opcode: step.opcode,
                   length: step.length, "\(step)")
        case .signaling(let signal):
            record(.l2capSignaling, link: link, direction: direction, airStart: airStart, opcode: signal.code,
                   length: signal.length, signal.name)
        case .kframe(let channel, let length, let sdu):
            record(.l2capData, link: link, direction: direction, airStart: airStart, handle: UInt16(truncatingIfNeeded: channel.rawValue),
                   length: length, sdu == nil ? "K-frame" : "K-frame (end of SDU)")
        case .l2cap(let channel, let payload, _):
            if channel == FixedL2CAPChannel.att {
                record(.att, link: link, direction: direction, airStart: airStart, opcode: payload.first,
                       length: payload.count, "ATT PDU of an HCI host", pdu: payload)
            } else {
                record(.l2capData, link: link, direction: direction, airStart: airStart, handle: channel, length: payload.count,
                       "L2CAP PDU of an HCI host on channel 0x\(String(channel, radix: 16))")
            }
        case .terminate(let code):
            record(.linkControl, link: link, direction: direction, airStart: airStart, opcode: 0x02, length: 2,
                   "LL_TERMINATE_IND \(DisconnectReason(hciCode: code))")
        }
    }
}
