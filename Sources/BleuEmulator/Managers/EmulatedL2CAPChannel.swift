import BleuATT
import BleuCore
import Foundation

/// One end of an LE credit-based L2CAP channel on an ``EmulatorBus``. Dropping it closes the
/// channel.
final class EmulatedL2CAPChannel: L2CAPChannel {
    let psm: UInt16
    let peer: UUID
    let incoming: AsyncThrowingStream<Data, any Error>
    private let bus: EmulatorBus
    private let channel: ChannelID
    private let side: ChannelSide

    init(bus: EmulatorBus, channel: ChannelID, side: ChannelSide, psm: UInt16, peer: UUID, input: StreamID) {
        self.bus = bus
        self.channel = channel
        self.side = side
        self.psm = psm
        self.peer = peer
        incoming = bus.dataStream(input)
    }

    func send(_ data: Data) async throws {
        let _: Void = try await bus.awaiting { send(data, id: $0, completion: $1) }
    }

    func close() async {
        closeNow()
    }

    /// Begins sending an SDU; `completion` runs inside the engine once the peer has it.
    func send(_ data: Data, id: OperationID, completion: @escaping Completion<Void>) {
        bus.begin(id, { [channel, side] engine, id throws(BleuError) in
            try engine.channelSend(data, channel: channel, side: side, operation: id)
        }, completion: { completion($0.map { _ in }) })
    }

    func closeNow() {
        bus.withEngine { [channel, side] in $0.closeChannel(channel, side: side) }
    }
}
