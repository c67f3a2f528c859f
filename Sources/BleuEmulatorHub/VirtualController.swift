import BleuCore
import BleuEmulator
import BleuHCI
import Foundation

/// An LE controller, spoken to in HCI, whose radio is a device on an emulator bus's air
/// (``BleuEmulator`` `ExternalRadio`): any HCI host — BleuHCI's, Bumble's — drives it, and
/// meets the bus's emulated managers and other virtual controllers' hosts there, with the bus's
/// link model (air time, connection events, data length, PHY, link loss) between them.
///
/// It implements what an LE host needs of a controller: start-up and buffer queries, legacy
/// advertising and scanning, connections (create, cancel, disconnect, update, remote
/// features), ACL data with flow control by buffer count (Number Of Completed Packets when a
/// PDU has left the air), data length and PHY (answered with the bus's configuration, which
/// the link model runs), and encryption start between two hosts (the LTK request to the
/// peripheral's host; a key that differs ends the link with MIC Failure). Its supported
/// commands list exactly those; any other command is answered with Unknown HCI Command.
///
/// Everything runs on one serial queue, in order: the host's packets (``receive(_:)``) and the
/// air's deliveries. `send` gets each packet for the host.
final class VirtualController: @unchecked Sendable {
    // @unchecked: every stored `var` below is touched only on `queue`.

    /// The controller's LE ACL buffers, as LE Read Buffer Size reports them.
    static let aclBufferLength = 251
    static let aclBufferCount = 8

    private let queue = DispatchQueue(label: "bleu.hub.controller")
    private let configuration: EmulatorConfiguration
    private let send: @Sendable (H4Packet) -> Void
    private let log: @Sendable (String) -> Void
    private var radio: ExternalRadio?

    private var advertisingType = LEAdvertisingType.connectableScannableUndirected
    private var advertisingData: [UInt8] = []
    private var scanResponseData: [UInt8] = []
    private var advertising = false
    private var activeScanning = true
    private var scanning = false
    private var connecting = false

    /// Connection handles by link, and back.
    private var handles: [Int: UInt16] = [:]
    private var links: [UInt16: Int] = [:]
    private var nextHandle: UInt16 = 0x0001
    /// Per handle: the L2CAP PDU being reassembled from the host's ACL packets, and how many packets it took.
    private var partial: [UInt16: (bytes: [UInt8], packets: Int)] = [:]
    /// Per PDU sent to the air: its handle and the ACL packets to complete when it has left.
    private var inFlight: [UInt64: (handle: UInt16, packets: Int)] = [:]
    private var nextReceipt: UInt64 = 1

    /// A controller whose device is on `bus` (a bus of this process). `device` names it so that
    /// it keeps its address across hosts; `send` takes each HCI packet for the host.
    init(bus: EmulatorBus, device: String?, send: @escaping @Sendable (H4Packet) -> Void,
         log: @escaping @Sendable (String) -> Void = { _ in }) {
        configuration = bus.configuration
        self.send = send
        self.log = log
        let radio = ExternalRadio(bus: bus, device: device) { [weak self] delivery in
            guard let self else { return }
            self.queue.async { self.handle(delivery) }
        }
        queue.sync { self.radio = radio }
    }

    /// The device's address on the air.
    var address: BluetoothAddress {
        queue.sync { Self.bluetoothAddress(radio?.address ?? 0) }
    }

    /// A packet from the host.
    func receive(_ packet: H4Packet) {
        queue.async { self.handle(packet) }
    }

    /// The host went away: the device leaves the air (its links are lost at their peers).
    func close() {
        queue.sync { radio = nil }
    }

    // MARK: From the host

    private func handle(_ packet: H4Packet) {
        switch packet.type {
        case .command:
            do {
                execute(try HCICommand(decoding: packet.body))
            } catch {
                // A command whose parameters do not decode: its opcode, if any, gets Invalid HCI Command Parameters.
                log("virtual controller: a command that does not decode (\(error))")
                if packet.body.count >= 2 {
                    let opcode = HCIOpcode(rawValue: UInt16(packet.body[0]) | UInt16(packet.body[1]) << 8)
                    send(HCIEvent.commandComplete(numHCICommandPackets: 1, opcode: opcode, returnParameters: [0x12]).h4Packet)
                }
            }
        case .acl:
            do {
                received(try ACLPacket(decoding: packet.body))
            } catch {
                log("virtual controller: an ACL packet that does not decode (\(error)); dropped")
            }
        default:
            log("virtual controller: a \(packet.type) packet from the host; dropped")
        }
    }

    private func complete(_ opcode: HCIOpcode, _ parameters: [UInt8] = [0]) {
        send(HCIEvent.commandComplete(numHCICommandPackets: 1, opcode: opcode, returnParameters: parameters).h4Packet)
    }

    private func status(_ opcode: HCIOpcode, _ status: UInt8 = 0) {
        send(HCIEvent.commandStatus(status: status, numHCICommandPackets: 1, opcode: opcode).h4Packet)
    }

    private func event(_ event: HCIEvent) {
        send(event.h4Packet)
    }

    private func execute(_ command: HCICommand) {
        let opcode = command.opcode
        guard Self.isSupported(opcode) else { return complete(opcode, [0x01]) }  // Unknown HCI Command
        guard let radio else { return }
        switch command {
        case .reset:
            radio.reset()
            resetState()
            complete(opcode)
        case .readLocalSupportedCommands:
            complete(opcode, [0] + Self.supportedCommandsMask)
        case .readLocalVersionInformation:
            complete(opcode, LocalVersionInformation(hciVersion: 0x0C, hciSubversion: 0, lmpVersion: 0x0C,
                                                     companyIdentifier: 0xFFFF, lmpSubversion: 0).returnParameters)
        case .readLocalSupportedFeatures:
            // LE Supported (Controller), BR/EDR Not Supported.
            complete(opcode, [0, 0, 0, 0, 0, 0x60, 0, 0, 0])
        case .leReadLocalSupportedFeatures:
            complete(opcode, [0] + Self.le64(Self.leFeatures))
        case .readBDADDR:
            complete(opcode, [0] + Self.bluetoothAddress(radio.address).littleEndianBytes)
        case .readBufferSize:
            // No BR/EDR buffers: an LE host uses the LE ones.
            complete(opcode, [0, 0, 0, 0, 0, 0, 0, 0])
        case .leReadBufferSize:
            complete(opcode, LEBufferSize(aclDataPacketLength: UInt16(Self.aclBufferLength),
                                          totalNumACLDataPackets: UInt8(Self.aclBufferCount)).returnParametersV1)
        case .setEventMask, .leSetEventMask, .writeLEHostSupport:
            complete(opcode)
        case .leReadMaximumDataLength:
            let octets = UInt16(configuration.dataLength)
            let time = UInt16(AirTime.packetMicroseconds(payload: configuration.dataLength, phy: configuration.phy))
            complete(opcode, [0] + Self.le16(octets) + Self.le16(time) + Self.le16(octets) + Self.le16(time))
        case .leSetRandomAddress(let address):
            let accepted = radio.setAddress(Self.address(address))
            complete(opcode, [accepted ? 0 : 0x0C])
        case .leSetAdvertisingParameters(let parameters):
            advertisingType = parameters.advertisingType
            complete(opcode, [advertising ? 0x0C : 0])
        case .leSetAdvertisingData(let data):
            advertisingData = data
            if advertising { startAdvertising() }
            complete(opcode)
        case .leSetScanResponseData(let data):
            scanResponseData = data
            if advertising { startAdvertising() }
            complete(opcode)
        case .leSetAdvertisingEnable(let enable):
            advertising = enable
            if enable { startAdvertising() } else { radio.stopAdvertising() }
            complete(opcode)
        case .leSetScanParameters(let parameters):
            activeScanning = parameters.scanType == .active
            complete(opcode, [scanning ? 0x0C : 0])
        case let .leSetScanEnable(enable, filterDuplicates):
            scanning = enable
            if enable { radio.startScan(active: activeScanning, filterDuplicates: filterDuplicates) } else { radio.stopScan() }
            complete(opcode)
        case .leCreateConnection(let parameters):
            guard !connecting else { return status(opcode, 0x0C) }
            connecting = true
            status(opcode)
            radio.connect(to: Self.address(parameters.peerAddress))
        case .leCreateConnectionCancel:
            complete(opcode, [radio.cancelConnect() ? 0 : 0x0C])
        case let .disconnect(handle, reason):
            guard let link = links[handle] else { return status(opcode, 0x02) }  // Unknown Connection Identifier
            status(opcode)
            _ = radio.disconnect(link, reason: reason)
        case .leConnectionUpdate(let handle, _):
            guard links[handle] != nil else { return status(opcode, 0x02) }
            status(opcode)
            // The link model runs the bus's connection interval: the update keeps it.
            event(.le(.connectionUpdateComplete(status: 0, handle: handle, interval: configuration.connectionInterval, latency: 0,
                                                supervisionTimeout: configuration.supervisionTimeout)))
        case .leReadRemoteFeatures(let handle):
            guard links[handle] != nil else { return status(opcode, 0x02) }
            status(opcode)
            event(.le(.readRemoteFeaturesComplete(status: 0, handle: handle, features: Self.leFeatures)))
        case .leSetDataLength(let handle, _, _):
            guard links[handle] != nil else { return complete(opcode, [0x02] + Self.le16(handle)) }
            complete(opcode, [0] + Self.le16(handle))
            // The link model's data length is the bus's: the change reports it.
            let octets = UInt16(configuration.dataLength)
            let time = AirTime.packet(payload: configuration.dataLength, phy: configuration.phy)
            event(.le(.dataLengthChange(handle: handle, maxTxOctets: octets, maxTxTime: time, maxRxOctets: octets, maxRxTime: time)))
        case .leSetPHY(let handle, _, _, _, _):
            guard links[handle] != nil else { return status(opcode, 0x02) }
            status(opcode)
            let phy = Self.phy(configuration.phy)
            event(.le(.phyUpdateComplete(status: 0, handle: handle, txPHY: phy, rxPHY: phy)))
        case let .leEnableEncryption(handle, random, ediv, key):
            guard let link = links[handle], radio.startEncryption(on: link, random: random, ediv: ediv, key: key) else {
                return status(opcode, 0x02)
            }
            status(opcode)
        case let .leLongTermKeyRequestReply(handle, key):
            let known = links[handle].map { radio.replyLongTermKey(on: $0, key: key) } ?? false
            complete(opcode, [known ? 0 : 0x02] + Self.le16(handle))
        case .leLongTermKeyRequestNegativeReply(let handle):
            let known = links[handle].map { radio.replyLongTermKey(on: $0, key: nil) } ?? false
            complete(opcode, [known ? 0 : 0x02] + Self.le16(handle))
        case .raw(let raw, let parameters):
            executeRaw(raw, parameters)
        default:
            complete(opcode, [0x01])
        }
    }

    /// Commands BleuHCI's codec leaves raw.
    private func executeRaw(_ opcode: HCIOpcode, _ parameters: [UInt8]) {
        switch opcode {
        case Self.leReadSuggestedDefaultDataLength:
            let octets = UInt16(configuration.dataLength)
            let time = UInt16(AirTime.packetMicroseconds(payload: configuration.dataLength, phy: configuration.phy))
            complete(opcode, [0] + Self.le16(octets) + Self.le16(time))
        case Self.leWriteSuggestedDefaultDataLength, Self.leSetDefaultPHY:
            complete(opcode)
        case Self.leReadPHY:
            let handle = parameters.count >= 2 ? UInt16(parameters[0]) | UInt16(parameters[1]) << 8 : 0
            let phy = Self.phy(configuration.phy).rawValue
            complete(opcode, [links[handle] == nil ? 0x02 : 0] + Self.le16(handle) + [phy, phy])
        default:
            complete(opcode, [0x01])
        }
    }

    private func startAdvertising() {
        let connectable = advertisingType == .connectableScannableUndirected || advertisingType == .connectableDirectedLowDutyCycle
            || advertisingType == .connectableDirectedHighDutyCycle
        let scannable = advertisingType == .connectableScannableUndirected || advertisingType == .scannableUndirected
        radio?.startAdvertising(advertisingData, scanResponse: scannable ? scanResponseData : [], connectable: connectable)
    }

    private func resetState() {
        advertisingType = .connectableScannableUndirected
        advertisingData = []
        scanResponseData = []
        advertising = false
        activeScanning = true
        scanning = false
        connecting = false
        handles = [:]
        links = [:]
        partial = [:]
        inFlight = [:]
    }

    /// An ACL packet from the host: fragments gather into an L2CAP PDU, which goes on the air
    /// whole (the link model fragments it again by the link's data length).
    private func received(_ packet: ACLPacket) {
        guard let link = links[packet.handle] else {
            log("virtual controller: ACL data for handle \(packet.handle), which has no connection; dropped")
            return
        }
        if packet.boundary.startsPDU, let dropped = partial.removeValue(forKey: packet.handle) {
            log("virtual controller: a new L2CAP PDU began before the last was complete; \(dropped.bytes.count) bytes dropped")
            event(.numberOfCompletedPackets([.init(handle: packet.handle, count: UInt16(dropped.packets))]))
        }
        guard var pdu = packet.boundary.startsPDU ? (bytes: [UInt8](), packets: 0) : partial[packet.handle] else {
            log("virtual controller: a continuing fragment with no L2CAP PDU begun on handle \(packet.handle); dropped")
            return event(.numberOfCompletedPackets([.init(handle: packet.handle, count: 1)]))
        }
        pdu.bytes += packet.data
        pdu.packets += 1
        guard pdu.bytes.count >= 4 else {
            partial[packet.handle] = pdu
            return
        }
        let length = Int(pdu.bytes[0]) | Int(pdu.bytes[1]) << 8
        guard pdu.bytes.count >= 4 + length else {
            partial[packet.handle] = pdu
            return
        }
        partial[packet.handle] = nil
        if pdu.bytes.count > 4 + length {
            log("virtual controller: \(pdu.bytes.count - 4 - length) bytes past the L2CAP PDU's length on handle \(packet.handle); dropped")
        }
        let channel = UInt16(pdu.bytes[2]) | UInt16(pdu.bytes[3]) << 8
        let receipt = nextReceipt
        nextReceipt += 1
        inFlight[receipt] = (packet.handle, pdu.packets)
        if radio?.send(on: link, channel: channel, payload: Array(pdu.bytes[4..<(4 + length)]), receipt: receipt) != true {
            inFlight[receipt] = nil
        }
    }

    // MARK: From the air

    private func handle(_ delivery: ExternalDelivery) {
        switch delivery {
        case let .advertisingReport(address, data, isScanResponse, connectable, rssi):
            guard scanning else { return }
            let type: LEAdvertisingReportType = isScanResponse ? .scanResponse
                : connectable ? .connectableScannableUndirected : .nonConnectableUndirected
            event(.le(.advertisingReport([LEAdvertisingReport(eventType: type, addressType: .randomDevice,
                                                              address: Self.bluetoothAddress(address), data: data,
                                                              rssi: Int8(clamping: rssi))])))
        case let .connected(link, role, peer, interval, supervisionTimeout):
            let handle = nextHandle
            nextHandle = nextHandle >= 0x0EFF ? 0x0001 : nextHandle + 1
            handles[link] = handle
            links[handle] = link
            if role == .central { connecting = false } else { advertising = false }
            event(.le(.connectionComplete(LEConnectionComplete(
                handle: handle, role: role == .central ? .central : .peripheral, peerAddressType: .randomDevice,
                peerAddress: Self.bluetoothAddress(peer), interval: interval, supervisionTimeout: supervisionTimeout))))
        case let .connectionFailed(peer, status):
            connecting = false
            event(.le(.connectionComplete(LEConnectionComplete(status: status, handle: 0, role: .central, peerAddressType: .randomDevice,
                                                               peerAddress: Self.bluetoothAddress(peer)))))
        case let .received(link, channel, payload):
            guard let handle = handles[link] else { return }
            let pdu = Self.le16(UInt16(payload.count)) + Self.le16(channel) + payload
            var start = 0
            while start < pdu.count {
                let end = min(pdu.count, start + Self.aclBufferLength)
                send(ACLPacket(handle: handle, boundary: start == 0 ? .firstFlushable : .continuing, data: Array(pdu[start..<end])).h4Packet)
                start = end
            }
        case let .sent(_, receipt):
            guard let (handle, packets) = inFlight.removeValue(forKey: receipt), links[handle] != nil else { return }
            event(.numberOfCompletedPackets([.init(handle: handle, count: UInt16(packets))]))
        case let .disconnected(link, reason):
            guard let handle = handles.removeValue(forKey: link) else { return }
            links[handle] = nil
            partial[handle] = nil
            // The host counts a closed connection's buffers as free; no completion follows for them.
            inFlight = inFlight.filter { $0.value.handle != handle }
            event(.disconnectionComplete(status: 0, handle: handle, reason: reason))
        case let .longTermKeyRequest(link, random, ediv):
            guard let handle = handles[link] else { return }
            event(.le(.longTermKeyRequest(handle: handle, random: random, ediv: ediv)))
        case let .encryptionChanged(link, status, refreshed):
            guard let handle = handles[link] else { return }
            event(status == 0 && refreshed ? .encryptionKeyRefreshComplete(status: 0, handle: handle)
                                           : .encryptionChange(status: status, handle: handle, enabled: status == 0 ? 1 : 0))
        }
    }

    // MARK: What it supports

    /// LE features: LE Encryption (bit 0), LE Data Packet Length Extension (5), LE 2M PHY (8).
    static let leFeatures: UInt64 = 1 << 0 | 1 << 5 | 1 << 8

    static let leReadSuggestedDefaultDataLength = HCIOpcode(rawValue: 0x2023)
    static let leWriteSuggestedDefaultDataLength = HCIOpcode(rawValue: 0x2024)
    static let leReadPHY = HCIOpcode(rawValue: 0x2030)
    static let leSetDefaultPHY = HCIOpcode(rawValue: 0x2031)

    /// The commands it implements, as (octet, bit) of the Supported Commands table (Vol 4 Part E
    /// §6.27), by opcode. Read Local Supported Commands is always supported and not listed there.
    static let supportedCommands: [UInt16: (octet: Int, bit: Int)] = [
        HCIOpcode.disconnect.rawValue: (0, 5),
        HCIOpcode.setEventMask.rawValue: (5, 6),
        HCIOpcode.reset.rawValue: (5, 7),
        HCIOpcode.readLocalVersionInformation.rawValue: (14, 3),
        HCIOpcode.readLocalSupportedFeatures.rawValue: (14, 5),
        HCIOpcode.readBufferSize.rawValue: (14, 7),
        HCIOpcode.readBDADDR.rawValue: (15, 1),
        HCIOpcode.writeLEHostSupport.rawValue: (24, 6),
        HCIOpcode.leSetEventMask.rawValue: (25, 0),
        HCIOpcode.leReadBufferSize.rawValue: (25, 1),
        HCIOpcode.leReadLocalSupportedFeatures.rawValue: (25, 2),
        HCIOpcode.leSetRandomAddress.rawValue: (25, 4),
        HCIOpcode.leSetAdvertisingParameters.rawValue: (25, 5),
        HCIOpcode.leSetAdvertisingData.rawValue: (25, 7),
        HCIOpcode.leSetScanResponseData.rawValue: (26, 0),
        HCIOpcode.leSetAdvertisingEnable.rawValue: (26, 1),
        HCIOpcode.leSetScanParameters.rawValue: (26, 2),
        HCIOpcode.leSetScanEnable.rawValue: (26, 3),
        HCIOpcode.leCreateConnection.rawValue: (26, 4),
        HCIOpcode.leCreateConnectionCancel.rawValue: (26, 5),
        HCIOpcode.leConnectionUpdate.rawValue: (27, 2),
        HCIOpcode.leReadRemoteFeatures.rawValue: (27, 5),
        HCIOpcode.leEnableEncryption.rawValue: (28, 0),
        HCIOpcode.leLongTermKeyRequestReply.rawValue: (28, 1),
        HCIOpcode.leLongTermKeyRequestNegativeReply.rawValue: (28, 2),
        HCIOpcode.leSetDataLength.rawValue: (33, 6),
        leReadSuggestedDefaultDataLength.rawValue: (33, 7),
        leWriteSuggestedDefaultDataLength.rawValue: (34, 0),
        HCIOpcode.leReadMaximumDataLength.rawValue: (35, 3),
        leReadPHY.rawValue: (35, 4),
        leSetDefaultPHY.rawValue: (35, 5),
        HCIOpcode.leSetPHY.rawValue: (35, 6),
    ]

    static func isSupported(_ opcode: HCIOpcode) -> Bool {
        opcode == .readLocalSupportedCommands || supportedCommands[opcode.rawValue] != nil
    }

    /// Read Local Supported Commands' 64 octets.
    static let supportedCommandsMask: [UInt8] = supportedCommands.values.reduce(into: [UInt8](repeating: 0, count: 64)) {
        $0[$1.octet] |= 1 << $1.bit
    }

    static func bluetoothAddress(_ address: UInt64) -> BluetoothAddress {
        BluetoothAddress(bytes: (0..<6).reversed().map { UInt8(truncatingIfNeeded: address >> (8 * $0)) })
    }

    static func address(_ address: BluetoothAddress) -> UInt64 {
        address.bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A field's bytes least significant first, as HCI sends them.
    static func le16(_ value: UInt16) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLE(value)
        return bytes
    }

    static func le64(_ value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLE(value)
        return bytes
    }

    static func phy(_ phy: PHY) -> LEPHY {
        switch phy {
        case .le1M: .le1M
        case .le2M: .le2M
        case .leCodedS2, .leCodedS8: .leCoded
        }
    }
}

