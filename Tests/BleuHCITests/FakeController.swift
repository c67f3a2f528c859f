import BleuCore
@testable import BleuHCI

/// A scripted controller on the far end of an in-memory transport: it answers the start-up
/// commands by itself and hands everything else to the test.
final class FakeController: Sendable {
    let transport: InMemoryHCITransport
    /// Every command received, in order.
    let commands: AsyncStream<HCICommand>
    /// Every ACL packet received, in order.
    let acl: AsyncStream<ACLPacket>
    let address = BluetoothAddress(string: "C0:00:00:00:00:01")!

    /// `answer` returns the events to send for a command, or `nil` to leave it to the test. With
    /// `completesPackets` every ACL packet from the host is completed at once (Number Of
    /// Completed Packets), as a controller that keeps up with the air would.
    init(transport: InMemoryHCITransport, completesPackets: Bool = false,
         answer: @escaping @Sendable (HCICommand) -> [HCIEvent]?) {
        self.transport = transport
        let (commands, commandSink) = AsyncStream<HCICommand>.makeStream()
        let (acl, aclSink) = AsyncStream<ACLPacket>.makeStream()
        self.commands = commands
        self.acl = acl
        // The task keeps the transport (and so this controller end) alive until the link closes.
        Task {
            do {
                for try await packet in transport.incoming {
                    switch packet.type {
                    case .command:
                        let command = try HCICommand(decoding: packet.body)
                        commandSink.yield(command)
                        for event in answer(command) ?? [] { try await transport.send(event.h4Packet) }
                    case .acl:
                        let acl = try ACLPacket(decoding: packet.body)
                        aclSink.yield(acl)
                        if completesPackets {
                            try await transport.send(HCIEvent.numberOfCompletedPackets([.init(handle: acl.handle, count: 1)]).h4Packet)
                        }
                    default:
                        break
                    }
                }
            } catch {}
            commandSink.finish()
            aclSink.finish()
        }
    }

    func send(_ event: HCIEvent) async throws {
        try await transport.send(event.h4Packet)
    }

    func send(_ packet: ACLPacket) async throws {
        try await transport.send(packet.h4Packet)
    }

    /// A Command Complete with the given return parameters.
    static func complete(_ command: HCICommand, _ parameters: [UInt8] = [0], credits: UInt8 = 1) -> HCIEvent {
        .commandComplete(numHCICommandPackets: credits, opcode: command.opcode, returnParameters: parameters)
    }

    /// Answers the start-up sequence like a small controller: `bufferLength`-byte LE ACL buffers, `bufferCount` of them.
    static func startUpAnswers(bufferLength: UInt16 = 27, bufferCount: UInt8 = 2,
                               address: BluetoothAddress = BluetoothAddress(string: "C0:00:00:00:00:01")!)
        -> @Sendable (HCICommand) -> [HCIEvent]? {
        { command in
            switch command {
            case .reset, .setEventMask, .leSetEventMask: [complete(command)]
            case .readLocalVersionInformation:
                [complete(command, LocalVersionInformation(hciVersion: 13, hciSubversion: 1, lmpVersion: 13,
                                                           companyIdentifier: 0x05F1, lmpSubversion: 2).returnParameters)]
            case .readLocalSupportedFeatures: [complete(command, [0] + [0, 0, 0, 0, 0x60, 0, 0, 0])]
            case .leReadLocalSupportedFeatures: [complete(command, [0] + [0xFF, 0x1F, 0, 0, 0, 0, 0, 0])]
            case .readBDADDR: [complete(command, [0] + address.littleEndianBytes)]
            case .leReadBufferSize:
                [complete(command, LEBufferSize(aclDataPacketLength: bufferLength, totalNumACLDataPackets: bufferCount).returnParametersV1)]
            case .readBufferSize: [complete(command, [0, 0xFD, 0x03, 0x40, 0x08, 0x00, 0x01, 0x00])]
            default: nil
            }
        }
    }
}

/// Waits, yielding to other tasks, until `condition` holds (state polling, not a timed sleep).
func eventually(_ condition: () async -> Bool) async {
    for _ in 0..<100_000 {
        if await condition() { return }
        await Task.yield()
    }
}
