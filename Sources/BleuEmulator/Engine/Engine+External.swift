import BleuATT
import BleuCore
import Foundation

/// A device whose host runs outside the engine — the host of a virtual HCI controller
/// (BleuEmulatorHub's `VirtualController`), which may be any HCI host in any process.
///
/// The engine runs the air for it as for every device: its advertising is heard by every
/// scanner, its connections have the link model's air time and connection events, its links
/// are lost to faults and supervision timeouts. What its host sends travels as L2CAP PDUs
/// (``LinkPacket/Payload/l2cap(channel:payload:receipt:)``), and an emulated manager at the
/// other end reads them with the same ATT server and client that the emulator's own devices
/// use. Everything that reaches the host is handed to `deliver`, inside the engine's lock and
/// in the engine's order: it must only hand the delivery on.
package struct ExternalHost: Sendable {
    let deliver: @Sendable (ExternalDelivery) -> Void

    package init(deliver: @escaping @Sendable (ExternalDelivery) -> Void) {
        self.deliver = deliver
    }
}

/// The role an external device has on one of its links.
package enum ExternalRole: Sendable, Equatable {
    case central, peripheral
}

/// What the air tells an external device's host: what its controller reports in HCI events.
package enum ExternalDelivery: Sendable, Equatable {
    /// The scan heard an advertising PDU (or, scanning actively, a scan response) from `address`.
    case advertisingReport(address: UInt64, data: [UInt8], isScanResponse: Bool, connectable: Bool, rssi: Int)
    /// A connection exists; `link` names it until ``disconnected(link:reason:)``.
    case connected(link: Int, role: ExternalRole, peer: UInt64, interval: Duration, supervisionTimeout: Duration)
    /// The connection attempt to `peer` ended without a link, with this HCI status.
    case connectionFailed(peer: UInt64, status: UInt8)
    /// An L2CAP PDU arrived on a link: its channel and its information payload.
    case received(link: Int, channel: UInt16, payload: [UInt8])
    /// The PDU the host sent with this receipt has left the air (its controller buffers are free).
    case sent(link: Int, receipt: UInt64)
    /// The link ended, with the HCI reason this end sees.
    case disconnected(link: Int, reason: UInt8)
    /// The central asked to encrypt the link: the peripheral's host must answer with its key.
    case longTermKeyRequest(link: Int, random: UInt64, ediv: UInt16)
    /// The encryption start ended: `status` 0 encrypted the link (`refreshed` when it already was).
    case encryptionChanged(link: Int, status: UInt8, refreshed: Bool)
}

/// An encryption start between two external hosts, from the central's request to both sides' news.
struct ExternalEncryption {
    let random: UInt64
    let ediv: UInt16
    let key: [UInt8]
    let wasEncrypted: Bool
}

extension Engine {
    // MARK: Devices

    /// A device for an external host: a central and a peripheral node with one address, whose
    /// events go to `host` (their managers' event hubs have no subscribers).
    mutating func attachExternal(_ host: ExternalHost, device: String?) -> (central: CentralKey, peripheral: PeripheralKey) {
        let address = newAddress(device: device)
        let central = centrals.allocate()
        centrals[central] = CentralNode(key: central, address: address, restoreIdentifier: nil,
                                        hub: EventHub(limit: 1, onReceipts: hooks.onReceipts), mtu: EmulatorConfiguration.maximumMTU,
                                        external: host)
        let peripheral = peripherals.allocate()
        peripherals[peripheral] = PeripheralNode(key: peripheral, address: address, restoreIdentifier: nil,
                                                 hub: EventHub(limit: 1, onReceipts: hooks.onReceipts),
                                                 mtu: EmulatorConfiguration.maximumMTU, distance: configuration.rssi.defaultDistance,
                                                 external: host)
        return (central, peripheral)
    }

    /// The external device leaves the air: its advertising and scan stop, its connection
    /// attempt ends, and its links are lost (its peers see a supervision timeout).
    mutating func detachExternal(central: CentralKey, peripheral: PeripheralKey) {
        leaveAir(central: central, peripheral: peripheral)
        centrals.removeValue(forKey: central)
        peripherals.removeValue(forKey: peripheral)
    }

    /// HCI Reset: the device leaves the air as ``detachExternal(central:peripheral:)`` does and
    /// stays, with nothing running.
    mutating func leaveAir(central: CentralKey, peripheral: PeripheralKey) {
        stopScan(central: central)
        stopAdvertising(peripheral: peripheral)
        centrals[central]?.pending.removeAll()
        centrals[central]?.awaitedAddress = nil
        var lost: [(LinkID, ExternalRole)] = []
        if let node = centrals[central] { lost += node.links.values.map { ($0, .central) } }
        if let node = peripherals[peripheral] { lost += node.links.values.map { ($0, .peripheral) } }
        for (link, role) in lost.sorted(by: { $0.0 < $1.0 }) {
            // Its host hears nothing more of the link; its peer, a supervision timeout.
            links[link]?.externalGone.insert(role)
            loseLink(link)
        }
    }

    /// LE Set Random Address: refused (false) while the device advertises, scans or connects,
    /// or when another device on the air has the address.
    mutating func setExternalAddress(_ address: UInt64, central: CentralKey, peripheral: PeripheralKey) -> Bool {
        guard let centralNode = centrals[central], let peripheralNode = peripherals[peripheral] else { return false }
        if centralNode.address == address { return true }
        guard centralNode.scan == nil, centralNode.pending.isEmpty, centralNode.awaitedAddress == nil,
              peripheralNode.advertising == nil,
              !centrals.values.contains(where: { $0.address == address }),
              !peripherals.values.contains(where: { $0.address == address }) else { return false }
        centrals[central]?.address = address
        peripherals[peripheral]?.address = address
        return true
    }

    // MARK: Advertising and scanning

    /// Advertises the host's bytes. Emulated scanners decode them as a phone would (bytes that
    /// do not decode are heard as an empty advertisement, and the trace says so); external
    /// scanners get them as they are.
    mutating func startAdvertising(peripheral key: PeripheralKey, bytes: [UInt8], scanResponse: [UInt8], connectable: Bool) {
        var heard = AdvertisingData()
        do {
            heard = try AdvertisingData(decoding: Data(bytes))
            if !scanResponse.isEmpty { heard = heard.merged(with: try AdvertisingData(decoding: Data(scanResponse))) }
        } catch {
            record(.advertisement, "advertising bytes that do not decode (\(error)); emulated scanners hear an empty advertisement")
        }
        let id = numbers.nextProcedure()
        peripherals[key]?.advertising = AdvertisingState(id: id, advertisement: heard, scanResponse: nil, connectable: connectable,
                                                         heard: heard, length: bytes.count, since: now,
                                                         bytes: bytes, scanResponseBytes: scanResponse)
        advertisingChanged(peripheral: key)
        tryEstablishAll(peripheral: key)
    }

    /// Starts the external device's scan (replacing one running).
    mutating func startExternalScan(central key: CentralKey, active: Bool, filterDuplicates: Bool) {
        stopScan(central: key)
        let id = numbers.nextProcedure()
        centrals[key]?.scan = BusScan(id: id, options: ScanOptions(allowDuplicates: !filterDuplicates), stream: nil, active: active)
        hearAdvertisers(central: key, scan: id)
    }

    /// An external scanner hears one advertising event: the advertising PDU, and when scanning
    /// actively and the advertiser has one, its scan response.
    mutating func hearExternally(_ host: ExternalHost, central key: CentralKey, peripheral: PeripheralKey,
                                 advertising: AdvertisingState, active: Bool) {
        guard let node = peripherals[peripheral] else { return }
        let rssi = rssi(ofPeripheral: peripheral)
        centrals[key]?.scan?.reported.insert(peripheral)
        record(.advertisement, length: advertising.length, "\(String(node.address, radix: 16)) heard by an HCI host, RSSI \(rssi) dBm")
        host.deliver(.advertisingReport(address: node.address, data: advertising.bytes, isScanResponse: false,
                                        connectable: advertising.connectable, rssi: rssi))
        if active, !advertising.scanResponseBytes.isEmpty {
            host.deliver(.advertisingReport(address: node.address, data: advertising.scanResponseBytes, isScanResponse: true,
                                            connectable: advertising.connectable, rssi: rssi))
        }
    }

    // MARK: Connections

    /// LE Create Connection: connects when a device with `address` advertises connectably
    /// (at once if one does), as a controller's initiator waits for the advertiser.
    mutating func connect(central key: CentralKey, toAddress address: UInt64) {
        guard let node = centrals[key] else { return }
        guard let peripheral = peripherals.keys.sorted().first(where: { peripherals[$0]?.address == address && $0 != externalPeer(of: key) })
        else {
            centrals[key]?.awaitedAddress = address
            return
        }
        centrals[key]?.awaitedAddress = nil
        guard node.pending[peripheral] == nil, node.links[peripheral] == nil else { return }
        let peripheralID = identifier(of: address, seenBy: node.address)
        centrals[key]?.known[peripheralID] = peripheral
        centrals[key]?.pending[peripheral] = PendingConnection(attempt: numbers.nextProcedure(), peripheralID: peripheralID, waiters: [])
        tryEstablish(central: key, peripheral: peripheral)
    }

    /// The peripheral node of the external device whose central node is `key` (the same address).
    private func externalPeer(of key: CentralKey) -> PeripheralKey? {
        guard let address = centrals[key]?.address, centrals[key]?.external != nil else { return nil }
        return peripherals.keys.first { peripherals[$0]?.address == address && peripherals[$0]?.external != nil }
    }

    /// LE Create Connection Cancel: the attempt ends, reported as Unknown Connection Identifier
    /// (what a controller's LE Connection Complete says after a cancel). False when none runs.
    mutating func cancelExternalConnect(central key: CentralKey) -> Bool {
        guard let node = centrals[key] else { return false }
        if let address = node.awaitedAddress {
            centrals[key]?.awaitedAddress = nil
            node.external?.deliver(.connectionFailed(peer: address, status: 0x02))
            return true
        }
        guard let (peripheral, _) = node.pending.first(where: { node.links[$0.key] == nil }) else { return false }
        centrals[key]?.pending.removeValue(forKey: peripheral)
        node.external?.deliver(.connectionFailed(peer: peripherals[peripheral]?.address ?? 0, status: 0x02))
        return true
    }

    /// The link is made: external ends hear of it (a controller reports LE Connection Complete
    /// at once; an emulated central's MTU exchange comes from its own host).
    mutating func externalLinkEstablished(_ id: LinkID) {
        guard let link = links[id], let central = centrals[link.central], let peripheral = peripherals[link.peripheral] else { return }
        if let host = peripheral.external {
            // A connection ends a controller's legacy connectable advertising.
            peripherals[link.peripheral]?.advertising = nil
            host.deliver(.connected(link: id.rawValue, role: .peripheral, peer: central.address,
                                    interval: configuration.connectionInterval, supervisionTimeout: configuration.supervisionTimeout))
        }
        if let host = central.external {
            links[id]?.isUp = true
            centrals[link.central]?.pending.removeValue(forKey: link.peripheral)
            host.deliver(.connected(link: id.rawValue, role: .central, peer: peripheral.address,
                                    interval: configuration.connectionInterval, supervisionTimeout: configuration.supervisionTimeout))
        }
    }

    /// The external end of `link` in `role`, if its host still listens.
    func externalHost(of id: LinkID, _ role: ExternalRole) -> ExternalHost? {
        guard let link = links[id], !link.externalGone.contains(role) else { return nil }
        return role == .central ? centrals[link.central]?.external : peripherals[link.peripheral]?.external
    }

    /// The HCI Disconnect command: LL_TERMINATE_IND with the host's reason.
    mutating func externalDisconnect(_ id: LinkID, from role: ExternalRole, reason: UInt8) {
        terminate(id, from: role == .central ? .centralToPeripheral : .peripheralToCentral, code: reason, waiter: nil)
    }

    // MARK: Data

    /// The host sends an L2CAP PDU on one of its links; ``ExternalDelivery/sent(link:receipt:)``
    /// reports when it has left the air.
    mutating func externalSend(_ id: LinkID, from role: ExternalRole, channel: UInt16, payload: [UInt8], receipt: UInt64) {
        send(LinkPacket(direction: role == .central ? .centralToPeripheral : .peripheralToCentral,
                        payload: .l2cap(channel: channel, payload: payload, receipt: receipt)), on: id)
    }

    /// A packet reaches an external end: as the L2CAP PDU its host reads. What the emulator's
    /// own security and channel procedures send (they are not byte-level) does not reach it:
    /// those procedures fail at the emulated end instead (see ``startSecurity``).
    mutating func deliverExternally(_ packet: LinkPacket, to host: ExternalHost, on id: LinkID) {
        switch packet.payload {
        case .att(let pdu):
            host.deliver(.received(link: id.rawValue, channel: FixedL2CAPChannel.att, payload: pdu.encoded))
            switch pdu {
            case .handleValueNotification(let handle, _): valueArrived(handle: handle, indication: false, on: id)
            case .handleValueIndication(let handle, _): valueArrived(handle: handle, indication: true, on: id)
            default: break
            }
        case .l2cap(let channel, let payload, _):
            host.deliver(.received(link: id.rawValue, channel: channel, payload: payload))
        case .terminate(let code):
            terminationReceived(code, direction: packet.direction, on: id)
        case .smp, .signaling, .kframe, .encryption:
            record(.fault, link: id, "an emulated procedure's PDU cannot reach an HCI host; dropped")
        }
    }

    /// An external host's L2CAP PDU reaches an emulated end: ATT goes to the emulated ATT server
    /// or client; a pairing request is refused (Pairing Not Supported) and a signaling request
    /// rejected (Command Not Understood), since the emulator's own pairing and channels are not
    /// byte-level; anything else is dropped, with a trace event.
    mutating func emulatedEndReceived(channel: UInt16, payload: [UInt8], direction: RadioSchedule.Direction, on id: LinkID) {
        let reply = direction == .centralToPeripheral ? RadioSchedule.Direction.peripheralToCentral : .centralToPeripheral
        switch channel {
        case FixedL2CAPChannel.att:
            if direction == .centralToPeripheral { return serverReceive(bytes: payload, on: id) }
            do {
                clientReceive(try ATTPDU(decoding: payload), on: id)
            } catch {
                record(.fault, link: id, "an ATT PDU from an HCI host that does not decode (\(error)); dropped")
            }
        case FixedL2CAPChannel.smp where payload.first == 0x01 || payload.first == 0x0B:
            send(LinkPacket(direction: reply, payload: .l2cap(channel: FixedL2CAPChannel.smp, payload: [0x05, 0x05], receipt: nil)), on: id)
        case FixedL2CAPChannel.leSignaling where payload.count >= 2 && [0x06, 0x0A, 0x12, 0x14, 0x17].contains(payload[0]):
            let rejection: [UInt8] = [0x01, payload[1], 0x02, 0x00, 0x00, 0x00]
            send(LinkPacket(direction: reply, payload: .l2cap(channel: FixedL2CAPChannel.leSignaling, payload: rejection, receipt: nil)), on: id)
        default:
            record(.fault, link: id, "L2CAP channel 0x\(String(channel, radix: 16)) from an HCI host has no emulated end; dropped")
        }
    }

    // MARK: Encryption

    /// LE Enable Encryption from an external central: LL_ENC_REQ goes over the air.
    mutating func externalStartEncryption(_ id: LinkID, random: UInt64, ediv: UInt16, key: [UInt8]) {
        guard let link = links[id] else { return }
        links[id]?.externalEncryption = ExternalEncryption(random: random, ediv: ediv, key: key,
                                                          wasEncrypted: link.security > .unencrypted)
        send(LinkPacket(direction: .centralToPeripheral, payload: .encryption(.encryptionRequest)), on: id)
    }

    /// The peripheral's host answers the key request: the same key encrypts the link, another
    /// fails it with MIC Failure (both ends disconnect), none (`nil`) rejects it (PIN or Key Missing).
    mutating func externalLongTermKey(_ id: LinkID, key: [UInt8]?) {
        guard let encryption = links[id]?.externalEncryption else { return }
        guard let key else {
            links[id]?.externalEncryption = nil
            externalHost(of: id, .central)?.deliver(.encryptionChanged(link: id.rawValue, status: 0x06, refreshed: encryption.wasEncrypted))
            return
        }
        guard key == encryption.key else {
            links[id]?.externalEncryption = nil
            record(.security, link: id, "the keys differ: MIC Failure")
            return tearDown(id, centralReason: DisconnectReason(hciCode: 0x3D), peripheralReason: DisconnectReason(hciCode: 0x3D))
        }
        send(LinkPacket(direction: .peripheralToCentral, payload: .encryption(.startRequest)), on: id)
    }

    /// One LL PDU of an external host's encryption start arrives (Vol 6 Part B §5.1.3.1): the
    /// peripheral's host is asked for its key; LL_START_ENC_RSP encrypts the peripheral's end
    /// (which answers with its own), then the central's. Each host hears Encryption Change (or
    /// Key Refresh Complete) when its end is done. An emulated peripheral has no key for an
    /// HCI host: the central hears PIN or Key Missing.
    mutating func externalEncryptionReceived(_ step: EncryptionStep, direction: RadioSchedule.Direction, on id: LinkID) {
        guard let encryption = links[id]?.externalEncryption else { return }
        let refreshed = encryption.wasEncrypted
        switch (step, direction) {
        case (.encryptionRequest, _):
            guard let host = externalHost(of: id, .peripheral) else {
                links[id]?.externalEncryption = nil
                externalHost(of: id, .central)?.deliver(.encryptionChanged(link: id.rawValue, status: 0x06, refreshed: refreshed))
                return
            }
            send(LinkPacket(direction: .peripheralToCentral, payload: .encryption(.encryptionResponse)), on: id)
            host.deliver(.longTermKeyRequest(link: id.rawValue, random: encryption.random, ediv: encryption.ediv))
        case (.startRequest, _):
            send(LinkPacket(direction: .centralToPeripheral, payload: .encryption(.startResponse)), on: id)
        case (.startResponse, .centralToPeripheral):
            let security = max(links[id]?.security ?? .encrypted, .encrypted)
            links[id]?.security = security
            record(.security, link: id, "link encrypted with its hosts' key")
            externalHost(of: id, .peripheral)?.deliver(.encryptionChanged(link: id.rawValue, status: 0, refreshed: refreshed))
            send(LinkPacket(direction: .peripheralToCentral, payload: .encryption(.startResponse)), on: id)
        case (.startResponse, .peripheralToCentral):
            links[id]?.externalEncryption = nil
            externalHost(of: id, .central)?.deliver(.encryptionChanged(link: id.rawValue, status: 0, refreshed: refreshed))
        case (.encryptionResponse, _):
            break
        }
    }
}
