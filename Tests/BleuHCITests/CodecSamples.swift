import BleuATT
import BleuCore
@testable import BleuHCI

/// One packet of any layer, so the catalogue below can mix them.
enum CodecSample: Hashable {
    case command(HCICommand)
    case event(HCIEvent)
    case acl(ACLPacket)
    case signal(L2CAPSignal)
    case att(ATTPDU)
    case smp(SMPPDU)

    /// HCI packets with their H4 indicator; signalling commands and ATT PDUs bare.
    var encoded: [UInt8] {
        switch self {
        case .command(let c): c.h4Packet.encoded
        case .event(let e): e.h4Packet.encoded
        case .acl(let a): a.h4Packet.encoded
        case .signal(let s): s.encoded
        case .att(let p): p.encoded
        case .smp(let p): p.encoded
        }
    }

    /// Decodes bytes as the same kind of packet.
    func decodeSameKind(_ bytes: [UInt8]) throws -> CodecSample {
        switch self {
        case .command: .command(try HCICommand(decoding: try H4Packet(decoding: bytes).body))
        case .event: .event(try HCIEvent(decoding: try H4Packet(decoding: bytes).body))
        case .acl: .acl(try ACLPacket(decoding: try H4Packet(decoding: bytes).body))
        case .signal: .signal(try L2CAPSignal(decoding: bytes))
        case .att: .att(try ATTPDU(decoding: bytes))
        case .smp: .smp(try SMPPDU(decoding: bytes))
        }
    }
}

/// The packets `scripts/bumble_codec_crosscheck.py` also builds with Bumble's classes, under the
/// same names and with the same field values.
enum CodecSamples {
    static let a = BluetoothAddress(string: "C0:11:22:33:44:55")!
    static let b = BluetoothAddress(string: "D6:01:02:03:04:05")!

    static func hex(_ string: String) -> [UInt8] { hexBytes(string) }

    static let all: [(String, CodecSample)] = commands + events + signals + attPDUs

    static let commands: [(String, CodecSample)] = [
        ("cmd.reset", .command(.reset)),
        ("cmd.setEventMask", .command(.setEventMask(0x203F_FFFF_FFFF_FFFF))),
        ("cmd.leSetEventMask", .command(.leSetEventMask(0x0A_1FFF))),
        ("cmd.leReadBufferSize", .command(.leReadBufferSize)),
        ("cmd.readBDADDR", .command(.readBDADDR)),
        ("cmd.readRSSI", .command(.readRSSI(handle: 0x0040))),
        ("cmd.disconnect", .command(.disconnect(handle: 1, reason: 0x13))),
        ("cmd.leSetAdvertisingParameters", .command(.leSetAdvertisingParameters(LEAdvertisingParameters(
            intervalMin: .milliseconds(30), intervalMax: .milliseconds(40), advertisingType: .connectableScannableUndirected,
            ownAddressType: .randomDevice)))),
        ("cmd.leSetAdvertisingData", .command(.leSetAdvertisingData(hex("020106050962656c75")))),
        ("cmd.leSetScanResponseData", .command(.leSetScanResponseData(hex("03030f18")))),
        ("cmd.leSetAdvertisingEnable", .command(.leSetAdvertisingEnable(true))),
        ("cmd.leSetScanParameters", .command(.leSetScanParameters(LEScanParameters(scanType: .active, interval: .milliseconds(60), window: .milliseconds(30))))),
        ("cmd.leSetScanEnable", .command(.leSetScanEnable(enable: true, filterDuplicates: true))),
        ("cmd.leCreateConnection", .command(.leCreateConnection(LECreateConnectionParameters(
            scanInterval: .milliseconds(60), scanWindow: .milliseconds(30), peerAddressType: .randomDevice, peerAddress: a,
            connection: LEConnectionParameters(intervalMin: .milliseconds(30), intervalMax: .milliseconds(50),
                                               supervisionTimeout: .seconds(5)))))),
        ("cmd.leCreateConnectionCancel", .command(.leCreateConnectionCancel)),
        ("cmd.leConnectionUpdate", .command(.leConnectionUpdate(handle: 2, LEConnectionParameters(
            intervalMin: .microseconds(7500), intervalMax: .milliseconds(15), maxLatency: 1, supervisionTimeout: .seconds(3),
            minCELength: .microseconds(1250), maxCELength: .microseconds(2500))))),
        ("cmd.leSetDataLength", .command(.leSetDataLength(handle: 3, txOctets: 251, txTime: .microseconds(2120)))),
        ("cmd.leEnableEncryption", .command(.leEnableEncryption(handle: 2, random: 0x0102_0304_0506_0708, ediv: 0xBEEF,
                                                                longTermKey: hex("0123456789abcdeffedcba9876543210")))),
        ("cmd.leLongTermKeyRequestReply", .command(.leLongTermKeyRequestReply(handle: 3,
                                                                              longTermKey: hex("0123456789abcdeffedcba9876543210")))),
        ("cmd.leLongTermKeyRequestNegativeReply", .command(.leLongTermKeyRequestNegativeReply(handle: 4))),
        ("cmd.leSetPHY", .command(.leSetPHY(handle: 4, allPHYs: [], txPHYs: .le2M, rxPHYs: .le2M, options: 0))),
        ("cmd.leSetExtendedAdvertisingParameters", .command(.leSetExtendedAdvertisingParameters(LEExtendedAdvertisingParameters(
            handle: 1, eventProperties: [.connectable, .scannable, .legacy], intervalMin: .milliseconds(100),
            intervalMax: .milliseconds(41_110), ownAddressType: .randomDevice,  // 0x0100F0 × 0.625 ms: the 24-bit field
            txPower: 127, secondaryPHY: .le2M, sid: 3)))),
        ("cmd.leSetExtendedAdvertisingData", .command(.leSetExtendedAdvertisingData(LEExtendedAdvertisingData(
            handle: 1, data: hex("0201060303aafe"))))),
        ("cmd.leSetExtendedAdvertisingEnable", .command(.leSetExtendedAdvertisingEnable(enable: true, sets: [
            LEAdvertisingSetEnable(handle: 1), LEAdvertisingSetEnable(handle: 2, duration: .seconds(5), maxEvents: 9)]))),
        ("cmd.leSetExtendedScanParameters", .command(.leSetExtendedScanParameters(
            ownAddressType: .publicDevice, filterPolicy: 0, phys: [.le1M, .leCoded],
            [LEExtendedScanPHY(scanType: .active, interval: .milliseconds(60), window: .milliseconds(30)),
             LEExtendedScanPHY(scanType: .passive, interval: .milliseconds(90), window: .milliseconds(45))]))),
        ("cmd.leSetExtendedScanEnable", .command(.leSetExtendedScanEnable(enable: true, filterDuplicates: 1, duration: nil, period: nil))),
        ("cmd.leExtendedCreateConnection", .command(.leExtendedCreateConnection(
            filterPolicy: 0, ownAddressType: .publicDevice, peerAddressType: .randomDevice, peerAddress: a, phys: [.le1M, .le2M], [
                LEInitiatingPHY(scanInterval: .milliseconds(60), scanWindow: .milliseconds(30), connection: LEConnectionParameters(
                    intervalMin: .milliseconds(30), intervalMax: .milliseconds(50), supervisionTimeout: .seconds(5))),
                LEInitiatingPHY(scanInterval: .milliseconds(60), scanWindow: .milliseconds(30), connection: LEConnectionParameters(
                    intervalMin: .milliseconds(15), intervalMax: .milliseconds(30), supervisionTimeout: .seconds(4))),
            ]))),
    ]

    static let events: [(String, CodecSample)] = [
        ("evt.commandCompleteBufferSize", .event(.commandComplete(numHCICommandPackets: 1, opcode: .leReadBufferSize,
            returnParameters: LEBufferSize(aclDataPacketLength: 27, totalNumACLDataPackets: 64).returnParametersV1))),
        ("evt.commandStatus", .event(.commandStatus(status: 0, numHCICommandPackets: 1, opcode: .leCreateConnection))),
        ("evt.disconnectionComplete", .event(.disconnectionComplete(status: 0, handle: 1, reason: 0x16))),
        ("evt.encryptionChange", .event(.encryptionChange(status: 0, handle: 1, enabled: 1))),
        ("evt.encryptionKeyRefreshComplete", .event(.encryptionKeyRefreshComplete(status: 0, handle: 2))),
        ("evt.leLongTermKeyRequest", .event(.le(.longTermKeyRequest(handle: 3, random: 0x0102_0304_0506_0708, ediv: 0xBEEF)))),
        ("evt.numberOfCompletedPackets", .event(.numberOfCompletedPackets([.init(handle: 1, count: 3), .init(handle: 2, count: 1)]))),
        ("evt.leConnectionComplete", .event(.le(.connectionComplete(LEConnectionComplete(
            handle: 1, role: .central, peerAddressType: .randomDevice, peerAddress: a, interval: .milliseconds(30),
            supervisionTimeout: .seconds(5)))))),
        ("evt.leEnhancedConnectionComplete", .event(.le(.enhancedConnectionComplete(LEConnectionComplete(
            handle: 2, role: .peripheral, peerAddressType: .publicDevice, peerAddress: b, interval: .milliseconds(50),
            supervisionTimeout: .seconds(4),
            centralClockAccuracy: 1))))),
        ("evt.leAdvertisingReport", .event(.le(.advertisingReport([
            LEAdvertisingReport(eventType: .connectableScannableUndirected, addressType: .randomDevice, address: a, data: hex("020106"), rssi: -60),
            LEAdvertisingReport(eventType: .scanResponse, addressType: .publicDevice, address: b, data: hex("05096162636465"), rssi: -72),
        ])))),
        ("evt.leExtendedAdvertisingReport", .event(.le(.extendedAdvertisingReport([
            LEExtendedAdvertisingReport(eventType: [.connectable, .scannable, .legacy], addressType: .randomDevice, address: a, rssi: -55, data: hex("0201060303aafe")),
        ])))),
        ("evt.leConnectionUpdateComplete", .event(.le(.connectionUpdateComplete(status: 0, handle: 1, interval: .milliseconds(15), latency: 0,
                                                                         supervisionTimeout: .seconds(3))))),
        ("evt.leDataLengthChange", .event(.le(.dataLengthChange(handle: 1, maxTxOctets: 251, maxTxTime: .microseconds(2120),
                                                                maxRxOctets: 251, maxRxTime: .microseconds(2120))))),
        ("evt.lePHYUpdateComplete", .event(.le(.phyUpdateComplete(status: 0, handle: 1, txPHY: .le2M, rxPHY: .le2M)))),
        ("evt.leAdvertisingSetTerminated", .event(.le(.advertisingSetTerminated(status: 0, advertisingHandle: 1, connectionHandle: 5, completedEvents: 0)))),
        ("acl.first", .acl(ACLPacket(handle: 1, boundary: .firstFlushable, data: hex("030004000a0300")))),
        ("acl.continuing", .acl(ACLPacket(handle: 0x0EFF, boundary: .continuing, data: hex("abcd")))),
    ]

    static let signals: [(String, CodecSample)] = [
        ("sig.commandReject", .signal(L2CAPSignal(identifier: 7, .commandReject(reason: 0, data: [])))),
        ("sig.disconnectionRequest", .signal(L2CAPSignal(identifier: 2, .disconnectionRequest(destinationCID: 0x41, sourceCID: 0x40)))),
        ("sig.disconnectionResponse", .signal(L2CAPSignal(identifier: 2, .disconnectionResponse(destinationCID: 0x41, sourceCID: 0x40)))),
        ("sig.connectionParameterUpdateRequest", .signal(L2CAPSignal(identifier: 1, .connectionParameterUpdateRequest(
            intervalMin: 6, intervalMax: 12, latency: 0, timeout: 300)))),
        ("sig.connectionParameterUpdateResponse", .signal(L2CAPSignal(identifier: 1, .connectionParameterUpdateResponse(result: 1)))),
        ("sig.leCreditBasedConnectionRequest", .signal(L2CAPSignal(identifier: 3, .leCreditBasedConnectionRequest(
            spsm: 0x80, sourceCID: 0x40, mtu: 512, mps: 247, initialCredits: 10)))),
        ("sig.leCreditBasedConnectionResponse", .signal(L2CAPSignal(identifier: 3, .leCreditBasedConnectionResponse(
            destinationCID: 0x41, mtu: 256, mps: 100, initialCredits: 5, result: 0)))),
        ("sig.flowControlCredit", .signal(L2CAPSignal(identifier: 4, .flowControlCredit(cid: 0x40, credits: 12)))),
    ]

    static let uuid128 = BluetoothUUID(littleEndianBytes: Array(0..<16) as [UInt8])!

    static let attPDUs: [(String, CodecSample)] = [
        ("att.errorResponse", .att(.errorResponse(requestOpcode: .readRequest, handle: 0x12, error: .readNotPermitted))),
        ("att.exchangeMTURequest", .att(.exchangeMTURequest(clientRxMTU: 517))),
        ("att.exchangeMTUResponse", .att(.exchangeMTUResponse(serverRxMTU: 247))),
        ("att.findInformationRequest", .att(.findInformationRequest(startingHandle: 1, endingHandle: 0xFFFF))),
        ("att.findInformationResponse16", .att(.findInformationResponse(.init(entries: [
            .init(handle: 3, type: BluetoothUUID(0x2902)), .init(handle: 4, type: BluetoothUUID(0x2902))])))),
        ("att.findInformationResponse128", .att(.findInformationResponse(.init(entries: [.init(handle: 5, type: uuid128)])))),
        ("att.findByTypeValueRequest", .att(.findByTypeValueRequest(startingHandle: 1, endingHandle: 0xFFFF, type: 0x2800, value: hex("0f18")))),
        ("att.findByTypeValueResponse", .att(.findByTypeValueResponse([.init(foundHandle: 1, groupEndHandle: 5), .init(foundHandle: 6, groupEndHandle: 9)]))),
        ("att.readByTypeRequest", .att(.readByTypeRequest(startingHandle: 1, endingHandle: 0x10, type: BluetoothUUID(0x2803)))),
        ("att.readByTypeRequest128", .att(.readByTypeRequest(startingHandle: 1, endingHandle: 0x10, type: uuid128))),
        ("att.readByTypeResponse", .att(.readByTypeResponse([.init(handle: 2, value: hex("020300192a")), .init(handle: 4, value: hex("120500382a"))]))),
        ("att.readRequest", .att(.readRequest(handle: 3))),
        ("att.readResponse", .att(.readResponse(value: hex("626c6575")))),
        ("att.readBlobRequest", .att(.readBlobRequest(handle: 3, offset: 22))),
        ("att.readBlobResponse", .att(.readBlobResponse(value: hex("0102")))),
        ("att.readMultipleRequest", .att(.readMultipleRequest(handles: [3, 5, 7]))),
        ("att.readMultipleResponse", .att(.readMultipleResponse(values: hex("6401ff")))),
        ("att.readByGroupTypeRequest", .att(.readByGroupTypeRequest(startingHandle: 1, endingHandle: 0xFFFF, type: BluetoothUUID(0x2800)))),
        ("att.readByGroupTypeResponse", .att(.readByGroupTypeResponse([
            .init(handle: 1, endGroupHandle: 5, value: hex("0018")), .init(handle: 6, endGroupHandle: 9, value: hex("0118"))]))),
        ("att.writeRequest", .att(.writeRequest(handle: 9, value: hex("0100")))),
        ("att.writeResponse", .att(.writeResponse)),
        ("att.writeCommand", .att(.writeCommand(handle: 9, value: hex("deadbeef")))),
        ("att.prepareWriteRequest", .att(.prepareWriteRequest(handle: 9, offset: 18, value: hex("0a0b")))),
        ("att.prepareWriteResponse", .att(.prepareWriteResponse(handle: 9, offset: 18, value: hex("0a0b")))),
        ("att.executeWriteRequest", .att(.executeWriteRequest(commit: true))),
        ("att.executeWriteResponse", .att(.executeWriteResponse)),
        ("att.handleValueNotification", .att(.handleValueNotification(handle: 0x0B, value: hex("55aa")))),
        ("att.handleValueIndication", .att(.handleValueIndication(handle: 0x0B, value: hex("55aa")))),
        ("att.handleValueConfirmation", .att(.handleValueConfirmation)),
        ("att.readMultipleVariableRequest", .att(.readMultipleVariableRequest(handles: [3, 0x0105]))),
        ("att.readMultipleVariableResponse", .att(.readMultipleVariableResponse(values: [hex("0102"), [], hex("616263")]))),
    ] + smp

    /// SMP PDUs: values written most significant octet first (the Python side reverses them).
    static let smp: [(String, CodecSample)] = [
        ("smp.pairingRequest", .smp(.pairingRequest(PairingFeatures(
            ioCapability: .keyboardDisplay, authentication: [.bonding, .mitm, .secureConnections], maximumKeySize: 16,
            initiatorKeys: [.encryptionKey, .identityKey], responderKeys: [.encryptionKey, .identityKey, .signingKey])))),
        ("smp.pairingResponse", .smp(.pairingResponse(PairingFeatures(
            ioCapability: .displayYesNo, oobDataPresent: true, authentication: [.bonding, .secureConnections], maximumKeySize: 10,
            initiatorKeys: [.identityKey], responderKeys: [.encryptionKey, .identityKey])))),
        ("smp.pairingConfirm", .smp(.pairingConfirm(hex("00112233445566778899aabbccddeeff")))),
        ("smp.pairingRandom", .smp(.pairingRandom(hex("0f0e0d0c0b0a09080706050403020100")))),
        ("smp.pairingFailed", .smp(.pairingFailed(.confirmValueFailed))),
        ("smp.encryptionInformation", .smp(.encryptionInformation(longTermKey: hex("6986791169d7cd23980522b594750a38")))),
        ("smp.centralIdentification", .smp(.centralIdentification(ediv: 0x1234, rand: 0x0102_0304_0506_0708))),
        ("smp.identityInformation", .smp(.identityInformation(identityResolvingKey: hex("ec0234a357c8ad05341010a60a397d9b")))),
        ("smp.identityAddressInformation", .smp(.identityAddressInformation(type: .randomDevice, address: a))),
        ("smp.signingInformation", .smp(.signingInformation(signatureKey: hex("2d9ae102e76dc91ce8d3a9e280b16399")))),
        ("smp.securityRequest", .smp(.securityRequest([.bonding, .mitm]))),
        ("smp.pairingPublicKey", .smp(.pairingPublicKey(
            x: hex("20b003d2f297be2c5e2c83a7e9f9a5b9eff49111acf4fddbcc0301480e359de6"),
            y: hex("dc809c49652aeb6d63329abf5a52155c766345c28fed3024741c8ed01589d28b")))),
        ("smp.pairingDHKeyCheck", .smp(.pairingDHKeyCheck(hex("e3c473989cd0e8c5d26c0b09da958f61")))),
        ("smp.keypressNotification", .smp(.keypressNotification(.digitEntered))),
    ]
}

func hexBytes(_ string: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = string.startIndex
    while index < string.endIndex {
        let next = string.index(index, offsetBy: 2)
        bytes.append(UInt8(string[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}
