import Testing

@testable import BleuHCI

@Suite("L2CAP LE signalling answers")
struct LESignalingChannelTests {
    func reply(_ command: L2CAPSignal.Command, identifier: UInt8 = 5, central: Bool) -> LESignalingChannel.Reply {
        LESignalingChannel.reply(to: L2CAPSignal(identifier: identifier, command).encoded, isCentral: central)
    }

    @Test("a central accepts valid connection parameters and asks for LE Connection Update; a peripheral rejects")
    func parameterUpdate() {
        let request = L2CAPSignal.Command.connectionParameterUpdateRequest(intervalMin: 6, intervalMax: 12, latency: 0, timeout: 300)
        let accepted = reply(request, central: true)
        #expect(accepted.response == L2CAPSignal(identifier: 5, .connectionParameterUpdateResponse(result: 0)))
        #expect(accepted.connectionUpdate == LEConnectionParameters(intervalMin: .microseconds(7500), intervalMax: .milliseconds(15), maxLatency: 0,
                                                                    supervisionTimeout: .seconds(3)))
        #expect(reply(request, central: false) == .init(response: L2CAPSignal(identifier: 5, .connectionParameterUpdateResponse(result: 1))))
        // Timeout too short for the interval and latency (§4.20): rejected.
        let bad = reply(.connectionParameterUpdateRequest(intervalMin: 100, intervalMax: 200, latency: 10, timeout: 100), central: true)
        #expect(bad.response == L2CAPSignal(identifier: 5, .connectionParameterUpdateResponse(result: 1)) && bad.connectionUpdate == nil)
    }

    @Test("unknown and malformed commands get a Command Reject; responses and identifier 0 get nothing")
    func rejects() {
        #expect(reply(.unknown(code: 0x0A, data: [1, 0]), identifier: 9, central: true).response
                == L2CAPSignal(identifier: 9, .commandReject(reason: 0, data: [])))
        #expect(LESignalingChannel.reply(to: [0x12, 0x07, 0x02, 0x00, 0x06, 0x00], isCentral: true).response
                == L2CAPSignal(identifier: 7, .commandReject(reason: 0, data: [])))
        #expect(reply(.connectionParameterUpdateResponse(result: 0), central: true) == .init())
        #expect(reply(.unknown(code: 0x0A, data: []), identifier: 0, central: true) == .init())
        #expect(reply(.leCreditBasedConnectionRequest(spsm: 0x80, sourceCID: 0x40, mtu: 100, mps: 100, initialCredits: 1),
                      central: false).response
                == L2CAPSignal(identifier: 5, .leCreditBasedConnectionResponse(destinationCID: 0, mtu: 0, mps: 0, initialCredits: 0, result: 2)))
        #expect(reply(.disconnectionRequest(destinationCID: 0x40, sourceCID: 0x41), central: true).response
                == L2CAPSignal(identifier: 5, .commandReject(reason: 2, data: [0x40, 0x00, 0x41, 0x00])))
    }
}
