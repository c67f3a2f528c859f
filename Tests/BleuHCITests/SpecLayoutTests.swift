import BleuATT
import BleuCore
import Testing

@testable import BleuHCI

/// Byte layouts written out by hand from the Core Specification (section numbers in each test).
@Suite("Codecs: byte layouts from the Core Specification")
struct SpecLayoutTests {
    @Test("Vol 4 Part E §5.4.1: a command is opcode (OGF << 10 | OCF) little-endian, length, parameters")
    func commandHeader() {
        #expect(HCIOpcode.reset.rawValue == 0x0C03)
        #expect(HCICommand.reset.h4Packet.encoded == [0x01, 0x03, 0x0C, 0x00])
        // §7.1.6 Disconnect: handle (2), reason (1).
        #expect(HCICommand.disconnect(handle: 0x0123, reason: 0x13).encoded == [0x06, 0x04, 0x03, 0x23, 0x01, 0x13])
        // §7.8.11 LE Set Scan Enable.
        #expect(HCICommand.leSetScanEnable(enable: true, filterDuplicates: false).encoded == [0x0C, 0x20, 0x02, 0x01, 0x00])
    }

    @Test("Vol 4 Part E §7.8.7: advertising data goes as a length and 31 bytes, zero padded")
    func advertisingDataPadding() throws {
        let bytes = HCICommand.leSetAdvertisingData([0x02, 0x01, 0x06]).encoded
        #expect(bytes.count == 3 + 32)
        #expect(Array(bytes.prefix(7)) == [0x08, 0x20, 32, 3, 0x02, 0x01, 0x06])
        #expect(bytes.dropFirst(7).allSatisfy { $0 == 0 })
        // A length over 31 is refused.
        var bad = bytes
        bad[3] = 32
        #expect(throws: PacketDecodingError(
            "HCI command \(HCIOpcode.leSetAdvertisingData)", .invalidValue(field: "data length", value: 32))) {
            try HCICommand(decoding: bad)
        }
    }

    @Test("Vol 4 Part E §7.8.12: LE Create Connection is 25 bytes, address least significant byte first")
    func createConnection() {
        let address = BluetoothAddress(string: "C0:11:22:33:44:55")!
        let command = HCICommand.leCreateConnection(LECreateConnectionParameters(
            scanInterval: .milliseconds(60), scanWindow: .milliseconds(30), peerAddressType: .randomDevice, peerAddress: address,
            connection: LEConnectionParameters(intervalMin: .milliseconds(30), intervalMax: .milliseconds(50), maxLatency: 0,
                                               supervisionTimeout: .seconds(5))))
        #expect(command.parameters == [0x60, 0x00, 0x30, 0x00, 0x00, 0x01, 0x55, 0x44, 0x33, 0x22, 0x11, 0xC0, 0x00,
                                       0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0xF4, 0x01, 0x00, 0x00, 0x00, 0x00])
        #expect(address.description == "C0:11:22:33:44:55")
    }

    @Test("Vol 4 Part E §7.7.14 / §7.7.15: Command Complete and Command Status")
    func commandCompleteAndStatus() throws {
        // Reset complete: 1 packet allowed, opcode 0x0C03, status success.
        #expect(try HCIEvent(decoding: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
                == .commandComplete(numHCICommandPackets: 1, opcode: .reset, returnParameters: [0x00]))
        #expect(try HCIEvent(decoding: [0x0F, 0x04, 0x0C, 0x01, 0x0D, 0x20])
                == .commandStatus(status: 0x0C, numHCICommandPackets: 1, opcode: .leCreateConnection))
        // LE Read Buffer Size return parameters (§7.8.2): status, length (2), count (1).
        let size = try LEBufferSize(returnParameters: [0x00, 0x1B, 0x00, 0x10])
        #expect(size.aclDataPacketLength == 27 && size.totalNumACLDataPackets == 16)
        #expect(throws: HCIStatus.commandDisallowed) { try LEBufferSize(returnParameters: [0x0C]) }
    }

    @Test("Vol 4 Part E §7.7.19: Number Of Completed Packets is a count, then handle and count pairs")
    func completedPackets() throws {
        #expect(try HCIEvent(decoding: [0x13, 0x09, 0x02, 0x01, 0x00, 0x03, 0x00, 0x40, 0x00, 0x01, 0x00])
                == .numberOfCompletedPackets([.init(handle: 1, count: 3), .init(handle: 0x40, count: 1)]))
        // A count that promises more entries than the bytes hold is refused.
        #expect(throws: PacketDecodingError.self) { try HCIEvent(decoding: [0x13, 0x05, 0x02, 0x01, 0x00, 0x03, 0x00]) }
    }

    @Test("Vol 4 Part E §7.7.65.2: advertising reports; RSSI is signed")
    func advertisingReport() throws {
        let bytes: [UInt8] = [0x3E, 0x0E, 0x02, 0x01, 0x00, 0x01, 0x55, 0x44, 0x33, 0x22, 0x11, 0xC0, 0x02, 0x01, 0x06, 0xC4]
        guard case .le(.advertisingReport(let reports)) = try HCIEvent(decoding: bytes) else {
            Issue.record("not an advertising report")
            return
        }
        #expect(reports == [LEAdvertisingReport(eventType: .connectableScannableUndirected, addressType: .randomDevice,
                                                address: BluetoothAddress(string: "C0:11:22:33:44:55")!,
                                                data: [0x01, 0x06], rssi: -60)])
    }

    @Test("Vol 4 Part E §5.4.2: ACL handle is 12 bits, then PB (2) and BC (2) flags")
    func aclHeader() throws {
        let packet = ACLPacket(handle: 0x0ABC, boundary: .firstFlushable, data: [1, 2, 3])
        #expect(packet.encoded == [0xBC, 0x2A, 0x03, 0x00, 1, 2, 3])
        #expect(try ACLPacket(decoding: [0xBC, 0x1A, 0x00, 0x00]).boundary == .continuing)
        #expect(throws: PacketDecodingError("HCI ACL packet", .lengthMismatch(declared: 3, actual: 2))) {
            try ACLPacket(decoding: [0x01, 0x20, 0x03, 0x00, 1, 2])
        }
    }

    @Test("Vol 3 Part A §3.1 / §4.20: a B-frame carrying an LE credit-based connection request")
    func l2capLayouts() throws {
        let signal = L2CAPSignal(identifier: 1, .leCreditBasedConnectionRequest(spsm: 0x0080, sourceCID: 0x0040,
                                                                                  mtu: 23, mps: 23, initialCredits: 3))
        let frame = L2CAPBFrame(channelID: L2CAPBFrame.leSignalingCID, payload: signal.encoded)
        #expect(frame.encoded == [0x0E, 0x00, 0x05, 0x00, 0x14, 0x01, 0x0A, 0x00,
                                  0x80, 0x00, 0x40, 0x00, 0x17, 0x00, 0x17, 0x00, 0x03, 0x00])
        #expect(try L2CAPBFrame(decoding: frame.encoded) == frame)
        #expect(throws: PacketDecodingError.self) { try L2CAPBFrame(decoding: [0x05, 0x00, 0x04, 0x00, 0x0A]) }
    }

    @Test("Vol 3 Part F §3.4: ATT layouts and what a malformed PDU is")
    func attLayouts() throws {
        #expect(ATTPDU.exchangeMTURequest(clientRxMTU: 517).encoded == [0x02, 0x05, 0x02])
        #expect(ATTPDU.errorResponse(requestOpcode: .writeRequest, handle: 0x0102, error: .writeNotPermitted).encoded
                == [0x01, 0x12, 0x02, 0x01, 0x03])
        // §3.4.4.2: the length field covers the handle and the value.
        #expect(ATTPDU.readByTypeResponse([.init(handle: 3, value: [0xAA])]).encoded == [0x09, 0x03, 0x03, 0x00, 0xAA])
        #expect(ATTPDU.signedWriteCommand(handle: 1, value: [7], signature: Array(repeating: 0xEE, count: 12)).encoded.count == 16)
        #expect(try ATTPDU(decoding: [0xD2, 0x01, 0x00, 0x07] + Array(repeating: 0xEE, count: 12))
                == .signedWriteCommand(handle: 1, value: [7], signature: Array(repeating: 0xEE, count: 12)))
        #expect(ATTOpcode.writeCommand.isCommand && !ATTOpcode.writeRequest.isCommand)
        #expect(ATTOpcode.signedWriteCommand.method == .command)

        func kind(_ bytes: [UInt8]) -> PacketDecodingError.Kind? {
            do {
                _ = try ATTPDU(decoding: bytes)
                return nil
            } catch {
                return error.kind
            }
        }
        #expect(kind([0x3F]) == .unknownType(0x3F))
        #expect(kind([0x05, 0x03, 0x01, 0x00, 0x00, 0x28]) == .invalidValue(field: "format", value: 3))
        #expect(kind([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28, 0x00]) == .invalidValue(field: "attribute type length", value: 3))
        #expect(kind([0x0E, 0x01, 0x00]) == .invalidValue(field: "number of handles", value: 1))
        #expect(kind([0x18, 0x02]) == .invalidValue(field: "flags", value: 2))
        #expect(kind([0x09, 0x01, 0x00]) == .invalidValue(field: "length", value: 1))
        #expect(kind([0x09, 0x04, 0x01, 0x00, 0x02]) == .lengthMismatch(declared: 4, actual: 3))
        #expect(kind([0x23, 0x01, 0x00, 0x01, 0x00, 0xAA]) == .invalidValue(field: "number of handles", value: 1))
        #expect(kind([]) == .truncated(offset: 0, needed: 1, available: 0))
    }

    @Test("Vol 4 Part A §2: H4 cuts a stream into packets whatever the chunking")
    func h4Deframing() throws {
        let packets = [HCIEvent.commandComplete(numHCICommandPackets: 1, opcode: .reset, returnParameters: [0]).h4Packet,
                       ACLPacket(handle: 1, boundary: .firstFlushable, data: Array(0..<40)).h4Packet,
                       HCICommand.leSetScanEnable(enable: true, filterDuplicates: true).h4Packet,
                       H4Packet(type: .iso, body: [0x01, 0x00, 0x02, 0x40, 0xAA, 0xBB]),
                       H4Packet(type: .sco, body: [0x01, 0x00, 0x01, 0x77])]
        let stream = packets.flatMap(\.encoded)
        for chunkSize in 1...stream.count {
            var deframer = H4Deframer()
            var out: [H4Packet] = []
            var index = 0
            while index < stream.count {
                out += try deframer.push(stream[index..<min(index + chunkSize, stream.count)])
                index += chunkSize
            }
            #expect(out == packets, "chunk size \(chunkSize)")
            #expect(deframer.bufferedByteCount == 0)
        }
        var deframer = H4Deframer()
        #expect(throws: PacketDecodingError("H4 stream", .unknownType(0x09))) { try deframer.push([0x04, 0x0E, 0x00, 0x09]) }
        #expect(deframer.bufferedByteCount == 0)
    }
}
