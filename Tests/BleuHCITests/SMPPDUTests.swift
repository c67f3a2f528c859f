import BleuCore
import Testing

@testable import BleuHCI

@Suite("SMP PDUs: layout, both directions")
struct SMPPDUTests {
    @Test("every sample decodes to itself; fixed lengths hold")
    func roundTrip() throws {
        for (name, sample) in CodecSamples.smp {
            guard case .smp(let pdu) = sample else { continue }
            let bytes = pdu.encoded
            #expect(try SMPPDU(decoding: bytes) == pdu, "\(name)")
            #expect(bytes.first == pdu.code, "\(name)")
            // One octet short, and one left over: neither decodes.
            #expect(throws: PacketDecodingError.self, "\(name) truncated") { try SMPPDU(decoding: Array(bytes.dropLast())) }
            #expect(throws: PacketDecodingError.self, "\(name) with an extra octet") { try SMPPDU(decoding: bytes + [0]) }
        }
    }

    @Test("values travel least significant octet first; the pairing request's fields in order")
    func onAir() {
        let request = SMPPDU.pairingRequest(PairingFeatures(ioCapability: .keyboardDisplay, authentication: [.bonding, .mitm, .secureConnections],
                                                           initiatorKeys: [.encryptionKey, .identityKey],
                                                           responderKeys: [.encryptionKey, .identityKey, .signingKey]))
        #expect(hexString(request.encoded) == "0104000d100307")
        #expect(hexString(SMPPDU.centralIdentification(ediv: 0x1234, rand: 0x0102_0304_0506_0708).encoded) == "0734120807060504030201")
        #expect(SMPPDU.pairingConfirm(CodecSamples.hex("00112233445566778899aabbccddeeff")).encoded
                == [0x03] + CodecSamples.hex("ffeeddccbbaa99887766554433221100"))
        #expect(hexString(SMPPDU.identityAddressInformation(type: .randomDevice, address: CodecSamples.a).encoded) == "09015544332211c0")
    }

    @Test("an empty PDU, an unknown code and an OOB flag other than 0 or 1 are refused")
    func refusals() throws {
        #expect(throws: PacketDecodingError.self) { try SMPPDU(decoding: []) }
        #expect(throws: PacketDecodingError.self) { try SMPPDU(decoding: [0x0F]) }
        #expect(throws: PacketDecodingError.self) { try SMPPDU(decoding: [0x01, 0x03, 0x02, 0x01, 0x10, 0x00, 0x00]) }
        let accepted = try SMPPDU(decoding: [0x01, 0x03, 0x01, 0x01, 0x10, 0x00, 0x00])
        guard case .pairingRequest(let features) = accepted else {
            Issue.record("decoded \(accepted)")
            return
        }
        #expect(features.oobDataPresent && features.ioCapability == .noInputNoOutput && features.maximumKeySize == 16)
    }
}
