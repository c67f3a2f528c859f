import BleuATT
import BleuCore
import Testing

@testable import BleuHCI

/// A test's view (one task's) of one ATT bearer over an ``HCIHost`` connection: sends requests and waits for
/// their responses, and meanwhile serves the peer's own requests from a ``GATTDatabase``.
struct ATTLink {
    let host: HCIHost
    let handle: UInt16
    var database = GATTDatabase(deviceName: "bleu-host")
    var connection = ATTServerConnection()
    var inbound: AsyncStream<HCIHost.Inbound>.Iterator
    /// Notifications and indications received, in order.
    private(set) var notifications: [ATTPDU] = []

    init(host: HCIHost, handle: UInt16) {
        self.host = host
        self.handle = handle
        inbound = host.inbound.makeAsyncIterator()
    }

    /// Sends a request and returns its response (or Error Response).
    mutating func request(_ pdu: ATTPDU) async throws -> ATTPDU {
        try await host.send(L2CAPBFrame(channelID: L2CAPBFrame.attCID, payload: pdu.encoded), on: handle)
        while let item = await inbound.next() {
            guard case .frame(let received) = item, received.handle == handle, received.frame.channelID == L2CAPBFrame.attCID else { continue }
            let opcode = ATTOpcode(rawValue: received.frame.payload.first ?? 0)
            switch opcode.method {
            case .response?:
                return try ATTPDU(decoding: received.frame.payload)
            case .notification?, .indication?:
                let pdu = try ATTPDU(decoding: received.frame.payload)
                notifications.append(pdu)
                if case .handleValueIndication = pdu { try await send(.handleValueConfirmation) }
            default:
                if case .respond(let answer) = ATTServer.handle(received.frame.payload, database: database, connection: &connection) {
                    try await send(answer)
                }
            }
        }
        throw HCIHostError.transportClosed(.stopped)
    }

    func send(_ pdu: ATTPDU) async throws {
        try await host.send(L2CAPBFrame(channelID: L2CAPBFrame.attCID, payload: pdu.encoded), on: handle)
    }
}

extension HCIHost {
    /// Waits for the next successful LE connection and returns its handle.
    func nextConnection() async -> UInt16? {
        for await event in events {
            switch event {
            case .le(.connectionComplete(let c)), .le(.enhancedConnectionComplete(let c)), .le(.enhancedConnectionCompleteV2(let c)):
                if c.status == 0 { return c.handle }
            default: continue
            }
        }
        return nil
    }
}
