import BleuCore
import BleuEmulator
import Foundation
import Testing

@testable import Bleu

/// Credit grants and cancellations a central sends on its own: one that cannot go out is
/// counted under its kind and logged, never dropped silently.
@Suite("Control messages", .timeLimit(.minutes(1)))
struct ControlMessageTests {
    /// A channel to a peripheral the central never connected: every send fails.
    func unreachableChannel(_ logs: CapturedLogs) -> (ClientChannel, UUID) {
        var configuration = BLEActorSystem.Configuration.fast
        configuration.logger = logs.logger
        let peripheral = UUID()
        let call = RemoteCharacteristic(peripheral: peripheral, service: BluetoothUUID(0x1234), uuid: BluetoothUUID(0x5678),
                                        properties: [.writeWithoutResponse], handle: 1, valueHandle: 2, endHandle: 2)
        let manager = EmulatedCentralManager(bus: EmulatorBus(configuration: .instant))
        let channel = ClientChannel(actorID: UUID(), peripheral: peripheral, call: call, manager: manager, ready: ReadySignal(),
                                    configuration: configuration)
        return (channel, peripheral)
    }

    @Test("a stream's first credit grant that cannot be sent is counted as a lost credit grant and logged as a warning")
    func lostCreditGrant() async throws {
        let logs = CapturedLogs()
        let (channel, peripheral) = unreachableChannel(logs)
        let inbox = channel.openStream(3)
        await channel.controlSent()
        #expect(channel.lostControlMessages == LostControlMessages(creditGrants: 1))
        #expect(logs.contains("could not send a stream credit grant", "\(peripheral)", "stall"))
        withExtendedLifetime(inbox) {}
    }

    @Test("control messages go out in order; each lost one is counted under its own kind")
    func countedByKind() async throws {
        let logs = CapturedLogs()
        let (channel, _) = unreachableChannel(logs)
        channel.sendControl(.cancel(id: 4))
        channel.sendControl(.cancelStream(stream: 5))
        channel.sendControl(.streamCredit(stream: 5, credits: 2))
        channel.sendControl(.cancelStream(stream: 6))
        await channel.controlSent()
        #expect(channel.lostControlMessages == LostControlMessages(creditGrants: 1, cancels: 1, streamCancels: 2))
        let order = logs.all.filter { $0.message.hasPrefix("could not send") }.map(\.message)
        #expect(order.count == 4)
        #expect(order.first?.contains("a call cancellation") == true)
        #expect(order.last?.contains("a stream cancellation") == true)
    }

    @Test("a channel makes its control lane (a stream and a task) with its first control message, not before")
    func laneMadeOnFirstMessage() async throws {
        let logs = CapturedLogs()
        let (channel, _) = unreachableChannel(logs)
        #expect(!channel.hasControlLane, "a channel that never sent a control message holds no lane")
        await channel.controlSent()
        #expect(!channel.hasControlLane, "waiting for nothing queued makes no lane")
        channel.sendControl(.cancel(id: 1))
        #expect(channel.hasControlLane)
        await channel.controlSent()
        #expect(channel.lostControlMessages == LostControlMessages(cancels: 1))
        channel.close(BleuError.invalidState(.channelClosed))
        #expect(!channel.hasControlLane, "a closed channel lets its lane go")
    }

    @Test("a control message queued after the channel closed is counted, at debug level")
    func afterClose() async throws {
        let logs = CapturedLogs()
        let (channel, _) = unreachableChannel(logs)
        channel.close(BleuError.invalidState(.channelClosed))
        channel.sendControl(.streamCredit(stream: 1, credits: 1))
        await channel.controlSent()
        #expect(channel.lostControlMessages.creditGrants == 1)
        #expect(!logs.contains("could not send"), "no warning for a channel that ended")
        #expect(logs.contains("could not send a stream credit grant", atLeast: .debug))
    }
}
